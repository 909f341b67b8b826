package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.LeaveGroupRequest.MemberIdentity;
import io.kflux.protocol.message.LeaveGroupResponse.MemberResponse;
import java.util.List;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.junit.jupiter.api.Test;

class LeaveGroupCodecTest {

    @Test
    void versionRangeIsTheSpecs() {
        assertThat(LeaveGroupRequest.SPEC.lowestVersion()).isEqualTo(LeaveGroupRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(LeaveGroupRequest.SPEC.highestVersion()).isEqualTo(LeaveGroupRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(LeaveGroupResponse.SPEC.lowestVersion()).isEqualTo(LeaveGroupResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(LeaveGroupResponse.SPEC.highestVersion()).isEqualTo(LeaveGroupResponseData.HIGHEST_SUPPORTED_VERSION);
    }

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(LeaveGroupRequest.SPEC)) {
            LeaveGroupRequest ours = new LeaveGroupRequest("orders-app", "consumer-1-4f6a", List.of(
                    new MemberIdentity("consumer-1-4f6a", "pod-7", "the consumer is being closed"),
                    new MemberIdentity("", "pod-9", null),
                    new MemberIdentity("consumer-3-0c1d", null, "")));
            LeaveGroupRequestData official = new LeaveGroupRequestData().setGroupId("orders-app");
            if (v <= 2) {
                official.setMemberId("consumer-1-4f6a");
            } else {
                official.setMembers(List.of(
                        new LeaveGroupRequestData.MemberIdentity().setMemberId("consumer-1-4f6a").setGroupInstanceId("pod-7")
                                .setReason(v >= 5 ? "the consumer is being closed" : null),
                        new LeaveGroupRequestData.MemberIdentity().setMemberId("").setGroupInstanceId("pod-9").setReason(null),
                        new LeaveGroupRequestData.MemberIdentity().setMemberId("consumer-3-0c1d").setGroupInstanceId(null)
                                .setReason(v >= 5 ? "" : null)));
            }
            short version = v;
            OracleEquivalence.check(LeaveGroupRequest.SPEC, ours, official, v, a -> new LeaveGroupRequestData(a, version));
        }
    }

    @Test
    void singleMemberFactoryIsValidInEveryVersion() {
        for (short v : OracleEquivalence.versions(LeaveGroupRequest.SPEC)) {
            LeaveGroupRequestData official = new LeaveGroupRequestData().setGroupId("g");
            if (v <= 2) {
                official.setMemberId("m1");
            } else {
                official.setMembers(List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId("m1")
                        .setGroupInstanceId(null).setReason(v >= 5 ? "closing" : null)));
            }
            short version = v;
            OracleEquivalence.check(LeaveGroupRequest.SPEC, LeaveGroupRequest.of("g", "m1", null, "closing"), official, v,
                    a -> new LeaveGroupRequestData(a, version));
        }
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(LeaveGroupResponse.SPEC)) {
            LeaveGroupResponse ours = new LeaveGroupResponse(v >= 1 ? 5 : 0, (short) 0, List.of(
                    new MemberResponse("consumer-1-4f6a", "pod-7", (short) 0),
                    new MemberResponse("", "pod-9", (short) 25),
                    new MemberResponse("consumer-3-0c1d", null, (short) 82)));
            LeaveGroupResponseData official = new LeaveGroupResponseData().setErrorCode((short) 0);
            if (v >= 1) {
                official.setThrottleTimeMs(5);
            }
            if (v >= 3) {
                official.setMembers(List.of(
                        new LeaveGroupResponseData.MemberResponse().setMemberId("consumer-1-4f6a").setGroupInstanceId("pod-7"),
                        new LeaveGroupResponseData.MemberResponse().setMemberId("").setGroupInstanceId("pod-9").setErrorCode((short) 25),
                        new LeaveGroupResponseData.MemberResponse().setMemberId("consumer-3-0c1d").setGroupInstanceId(null)
                                .setErrorCode((short) 82)));
            }
            short version = v;
            OracleEquivalence.check(LeaveGroupResponse.SPEC, ours, official, v, a -> new LeaveGroupResponseData(a, version));
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(LeaveGroupRequest.SPEC.schema().defaults(), new LeaveGroupRequestData(), "request");
        assertEquivalent(MemberIdentity.SCHEMA.defaults(), new LeaveGroupRequestData.MemberIdentity(), "identity");
        assertEquivalent(LeaveGroupResponse.SPEC.schema().defaults(), new LeaveGroupResponseData(), "response");
        assertEquivalent(MemberResponse.SCHEMA.defaults(), new LeaveGroupResponseData.MemberResponse(), "member");
    }
}
