package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.SyncGroupRequest.SyncGroupRequestAssignment;
import java.util.List;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.junit.jupiter.api.Test;

class SyncGroupCodecTest {
    private static final byte[] A1 = {0, 3, 0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, -1, -1, -1, -1};
    private static final byte[] A2 = {0, 3, 0, 0, 0, 0, -1, -1, -1, -1};

    @Test
    void versionRangeIsTheSpecs() {
        assertThat(SyncGroupRequest.SPEC.lowestVersion()).isEqualTo(SyncGroupRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(SyncGroupRequest.SPEC.highestVersion()).isEqualTo(SyncGroupRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(SyncGroupResponse.SPEC.lowestVersion()).isEqualTo(SyncGroupResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(SyncGroupResponse.SPEC.highestVersion()).isEqualTo(SyncGroupResponseData.HIGHEST_SUPPORTED_VERSION);
    }

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(SyncGroupRequest.SPEC)) {
            for (boolean leader : new boolean[] {true, false}) {
                List<SyncGroupRequestAssignment> assignments = leader
                        ? List.of(new SyncGroupRequestAssignment("consumer-1-4f6a", A1), new SyncGroupRequestAssignment("consumer-2-99ab", A2))
                        : List.of();
                SyncGroupRequest ours = new SyncGroupRequest("orders-app", 17, "consumer-1-4f6a", "pod-7", "consumer",
                        "cooperative-sticky", assignments);
                SyncGroupRequestData official = new SyncGroupRequestData().setGroupId("orders-app").setGenerationId(17)
                        .setMemberId("consumer-1-4f6a");
                if (leader) {
                    official.setAssignments(List.of(
                            new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId("consumer-1-4f6a").setAssignment(A1),
                            new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId("consumer-2-99ab").setAssignment(A2)));
                }
                if (v >= 3) {
                    official.setGroupInstanceId("pod-7");
                }
                if (v >= 5) {
                    official.setProtocolType("consumer").setProtocolName("cooperative-sticky");
                }
                short version = v;
                OracleEquivalence.check(SyncGroupRequest.SPEC, ours, official, v, a -> new SyncGroupRequestData(a, version));
            }
        }
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(SyncGroupResponse.SPEC)) {
            for (byte[] assignment : new byte[][] {A1, new byte[0]}) {
                SyncGroupResponse ours = new SyncGroupResponse(v >= 1 ? 12 : 0, (short) 27, "consumer", "range", assignment);
                SyncGroupResponseData official = new SyncGroupResponseData().setErrorCode((short) 27).setAssignment(assignment);
                if (v >= 1) {
                    official.setThrottleTimeMs(12);
                }
                if (v >= 5) {
                    official.setProtocolType("consumer").setProtocolName("range");
                }
                short version = v;
                OracleEquivalence.check(SyncGroupResponse.SPEC, ours, official, v, a -> new SyncGroupResponseData(a, version));
            }
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(SyncGroupRequest.SPEC.schema().defaults(), new SyncGroupRequestData(), "request");
        assertEquivalent(SyncGroupRequestAssignment.SCHEMA.defaults(), new SyncGroupRequestData.SyncGroupRequestAssignment(), "assignment");
        assertEquivalent(SyncGroupResponse.SPEC.schema().defaults(), new SyncGroupResponseData(), "response");
    }
}
