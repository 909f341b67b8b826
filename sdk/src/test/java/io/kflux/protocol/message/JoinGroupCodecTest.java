package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.JoinGroupRequest.JoinGroupRequestProtocol;
import io.kflux.protocol.message.JoinGroupResponse.JoinGroupResponseMember;
import java.util.List;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.junit.jupiter.api.Test;

class JoinGroupCodecTest {
    private static final byte[] RANGE_META = {0, 3, 0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', -1, -1, -1, -1};
    private static final byte[] COOP_META = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

    @Test
    void versionRangeIsTheSpecs() {
        assertThat(JoinGroupRequest.SPEC.lowestVersion()).isEqualTo(JoinGroupRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(JoinGroupRequest.SPEC.highestVersion()).isEqualTo(JoinGroupRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(JoinGroupResponse.SPEC.lowestVersion()).isEqualTo(JoinGroupResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(JoinGroupResponse.SPEC.highestVersion()).isEqualTo(JoinGroupResponseData.HIGHEST_SUPPORTED_VERSION);
    }

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(JoinGroupRequest.SPEC)) {
            for (String instanceId : new String[] {null, "pod-7"}) {
                for (String reason : new String[] {null, "", "rebalance: metadata changed"}) {
                    JoinGroupRequest ours = new JoinGroupRequest("orders-app", 45000, 300000, "consumer-1-4f6a",
                            instanceId, "consumer",
                            List.of(new JoinGroupRequestProtocol("cooperative-sticky", COOP_META),
                                    new JoinGroupRequestProtocol("range", RANGE_META),
                                    new JoinGroupRequestProtocol("empty", new byte[0])),
                            reason);
                    JoinGroupRequestData official = new JoinGroupRequestData().setGroupId("orders-app")
                            .setSessionTimeoutMs(45000).setMemberId("consumer-1-4f6a").setProtocolType("consumer");
                    JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                            new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
                    protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("cooperative-sticky").setMetadata(COOP_META));
                    protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(RANGE_META));
                    protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("empty").setMetadata(new byte[0]));
                    official.setProtocols(protocols);
                    if (v >= 1) {
                        official.setRebalanceTimeoutMs(300000);
                    }
                    if (v >= 5) {
                        official.setGroupInstanceId(instanceId);
                    } else if (instanceId != null) {
                        continue; // group.instance.id cannot be sent before v5
                    }
                    if (v >= 8) {
                        official.setReason(reason);
                    }
                    short version = v;
                    OracleEquivalence.check(JoinGroupRequest.SPEC, ours, official, v, a -> new JoinGroupRequestData(a, version));
                }
            }
        }
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(JoinGroupResponse.SPEC)) {
            for (String protocolName : new String[] {null, "range"}) {
                if (protocolName == null && v < 7) {
                    continue; // nullable from v7
                }
                JoinGroupResponse ours = new JoinGroupResponse(v >= 2 ? 30 : 0, (short) 0, 17,
                        v >= 7 ? "consumer" : null, protocolName, "consumer-1-4f6a", v >= 9, "consumer-1-4f6a",
                        List.of(new JoinGroupResponseMember("consumer-1-4f6a", v >= 5 ? "pod-7" : null, RANGE_META),
                                new JoinGroupResponseMember("consumer-2-99ab", null, COOP_META)));
                JoinGroupResponseData official = new JoinGroupResponseData().setErrorCode((short) 0).setGenerationId(17)
                        .setProtocolName(protocolName).setLeader("consumer-1-4f6a").setMemberId("consumer-1-4f6a");
                official.setMembers(List.of(
                        new JoinGroupResponseData.JoinGroupResponseMember().setMemberId("consumer-1-4f6a")
                                .setGroupInstanceId(v >= 5 ? "pod-7" : null).setMetadata(RANGE_META),
                        new JoinGroupResponseData.JoinGroupResponseMember().setMemberId("consumer-2-99ab")
                                .setGroupInstanceId(null).setMetadata(COOP_META)));
                if (v >= 2) {
                    official.setThrottleTimeMs(30);
                }
                if (v >= 7) {
                    official.setProtocolType("consumer");
                }
                if (v >= 9) {
                    official.setSkipAssignment(true);
                }
                short version = v;
                OracleEquivalence.check(JoinGroupResponse.SPEC, ours, official, v, a -> new JoinGroupResponseData(a, version));
            }
        }
    }

    @Test
    void errorResponseWithDefaults() {
        for (short v : OracleEquivalence.versions(JoinGroupResponse.SPEC)) {
            JoinGroupResponseData official = new JoinGroupResponseData().setErrorCode((short) 79).setMemberId("consumer-1-new");
            short version = v;
            JoinGroupResponse ours = new JoinGroupResponse(0, (short) 79, -1, null, "", "", false, "consumer-1-new", List.of());
            OracleEquivalence.check(JoinGroupResponse.SPEC, ours, official, v, a -> new JoinGroupResponseData(a, version));
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(JoinGroupRequest.SPEC.schema().defaults(), new JoinGroupRequestData(), "request");
        assertEquivalent(JoinGroupRequestProtocol.SCHEMA.defaults(), new JoinGroupRequestData.JoinGroupRequestProtocol(), "protocol");
        assertEquivalent(JoinGroupResponse.SPEC.schema().defaults(), new JoinGroupResponseData(), "response");
        assertEquivalent(JoinGroupResponseMember.SCHEMA.defaults(), new JoinGroupResponseData.JoinGroupResponseMember(), "member");
    }

    @Test
    void leaderIsKnown() {
        assertThat(new JoinGroupResponse(0, (short) 0, 1, null, "range", "m1", false, "m1", List.of()).isLeader()).isTrue();
        assertThat(new JoinGroupResponse(0, (short) 0, 1, null, "range", "m1", false, "m2", List.of()).isLeader()).isFalse();
    }
}
