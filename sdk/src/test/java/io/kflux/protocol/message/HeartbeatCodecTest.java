package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.junit.jupiter.api.Test;

class HeartbeatCodecTest {

    @Test
    void versionRangeIsTheSpecs() {
        assertThat(HeartbeatRequest.SPEC.lowestVersion()).isEqualTo(HeartbeatRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(HeartbeatRequest.SPEC.highestVersion()).isEqualTo(HeartbeatRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(HeartbeatResponse.SPEC.lowestVersion()).isEqualTo(HeartbeatResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(HeartbeatResponse.SPEC.highestVersion()).isEqualTo(HeartbeatResponseData.HIGHEST_SUPPORTED_VERSION);
    }

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(HeartbeatRequest.SPEC)) {
            for (String instanceId : new String[] {null, "", "pod-7"}) {
                HeartbeatRequest ours = new HeartbeatRequest("orders-app", 17, "consumer-1-4f6a", instanceId);
                HeartbeatRequestData official = new HeartbeatRequestData().setGroupId("orders-app").setGenerationId(17)
                        .setMemberId("consumer-1-4f6a");
                if (v >= 3) {
                    official.setGroupInstanceId(instanceId);
                }
                short version = v;
                OracleEquivalence.check(HeartbeatRequest.SPEC, ours, official, v, a -> new HeartbeatRequestData(a, version));
            }
        }
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(HeartbeatResponse.SPEC)) {
            HeartbeatResponse ours = new HeartbeatResponse(v >= 1 ? 40 : 0, (short) 27);
            HeartbeatResponseData official = new HeartbeatResponseData().setErrorCode((short) 27);
            if (v >= 1) {
                official.setThrottleTimeMs(40);
            }
            short version = v;
            OracleEquivalence.check(HeartbeatResponse.SPEC, ours, official, v, a -> new HeartbeatResponseData(a, version));
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(HeartbeatRequest.SPEC.schema().defaults(), new HeartbeatRequestData(), "request");
        assertEquivalent(HeartbeatResponse.SPEC.schema().defaults(), new HeartbeatResponseData(), "response");
    }
}
