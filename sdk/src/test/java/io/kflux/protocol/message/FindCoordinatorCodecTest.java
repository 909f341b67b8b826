package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.FindCoordinatorResponse.Coordinator;
import java.util.List;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.junit.jupiter.api.Test;

class FindCoordinatorCodecTest {

    @Test
    void versionRangeIsTheSpecs() {
        assertThat(FindCoordinatorRequest.SPEC.lowestVersion()).isEqualTo(FindCoordinatorRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(FindCoordinatorRequest.SPEC.highestVersion()).isEqualTo(FindCoordinatorRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(FindCoordinatorResponse.SPEC.lowestVersion()).isEqualTo(FindCoordinatorResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(FindCoordinatorResponse.SPEC.highestVersion()).isEqualTo(FindCoordinatorResponseData.HIGHEST_SUPPORTED_VERSION);
    }

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(FindCoordinatorRequest.SPEC)) {
            // callers fill both shapes; the version decides which is written
            FindCoordinatorRequest ours = new FindCoordinatorRequest("orders-app", (byte) 1,
                    List.of("orders-app", "billing-app", "ünïcode-grp"));
            FindCoordinatorRequestData official = new FindCoordinatorRequestData();
            if (v <= 3) {
                official.setKey("orders-app");
            } else {
                official.setCoordinatorKeys(List.of("orders-app", "billing-app", "ünïcode-grp"));
            }
            if (v >= 1) {
                official.setKeyType((byte) 1);
            }
            short version = v;
            OracleEquivalence.check(FindCoordinatorRequest.SPEC, ours, official, v,
                    a -> new FindCoordinatorRequestData(a, version));
        }
    }

    @Test
    void forGroupIsValidInEveryVersion() {
        for (short v : OracleEquivalence.versions(FindCoordinatorRequest.SPEC)) {
            FindCoordinatorRequestData official = new FindCoordinatorRequestData().setKeyType((byte) 0);
            if (v <= 3) {
                official.setKey("g1");
            } else {
                official.setCoordinatorKeys(List.of("g1"));
            }
            short version = v;
            OracleEquivalence.check(FindCoordinatorRequest.SPEC, FindCoordinatorRequest.forGroup("g1"), official, v,
                    a -> new FindCoordinatorRequestData(a, version));
        }
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(FindCoordinatorResponse.SPEC)) {
            for (String errorMessage : new String[] {null, "", "coordinator loading"}) {
                FindCoordinatorResponse ours = new FindCoordinatorResponse(v >= 1 ? 25 : 0, (short) 14,
                        v >= 1 ? errorMessage : "", 3, "broker-3.example", 9093,
                        List.of(new Coordinator("orders-app", 3, "broker-3.example", 9093, (short) 0, null),
                                new Coordinator("billing-app", -1, "", -1, (short) 15, errorMessage)));
                FindCoordinatorResponseData official = new FindCoordinatorResponseData();
                if (v >= 1) {
                    official.setThrottleTimeMs(25);
                }
                if (v <= 3) {
                    official.setErrorCode((short) 14).setNodeId(3).setHost("broker-3.example").setPort(9093);
                    if (v >= 1) {
                        official.setErrorMessage(errorMessage);
                    }
                } else {
                    official.setCoordinators(List.of(
                            new FindCoordinatorResponseData.Coordinator().setKey("orders-app").setNodeId(3)
                                    .setHost("broker-3.example").setPort(9093).setErrorCode((short) 0).setErrorMessage(null),
                            new FindCoordinatorResponseData.Coordinator().setKey("billing-app").setNodeId(-1)
                                    .setHost("").setPort(-1).setErrorCode((short) 15).setErrorMessage(errorMessage)));
                }
                short version = v;
                OracleEquivalence.check(FindCoordinatorResponse.SPEC, ours, official, v,
                        a -> new FindCoordinatorResponseData(a, version));
            }
        }
    }

    @Test
    void coordinatorForReadsBothShapes() {
        FindCoordinatorResponse old = new FindCoordinatorResponse(0, (short) 0, null, 2, "b2", 9092, List.of());
        assertThat(old.coordinatorFor("g", (short) 3)).isEqualTo(new Coordinator("g", 2, "b2", 9092, (short) 0, null));
        FindCoordinatorResponse batched = new FindCoordinatorResponse(0, (short) 0, "", 0, "", 0,
                List.of(new Coordinator("a", 1, "b1", 1, (short) 0, null), new Coordinator("g", 2, "b2", 2, (short) 15, "x")));
        assertThat(batched.coordinatorFor("g", (short) 6).nodeId()).isEqualTo(2);
        assertThat(batched.coordinatorFor("missing", (short) 6)).isNull();
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(FindCoordinatorRequest.SPEC.schema().defaults(), new FindCoordinatorRequestData(), "request");
        assertEquivalent(FindCoordinatorResponse.SPEC.schema().defaults(), new FindCoordinatorResponseData(), "response");
        assertEquivalent(Coordinator.SCHEMA.defaults(), new FindCoordinatorResponseData.Coordinator(), "coordinator");
    }
}
