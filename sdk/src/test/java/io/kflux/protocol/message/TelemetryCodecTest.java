package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsRequestData;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsResponseData;
import org.apache.kafka.common.message.PushTelemetryRequestData;
import org.apache.kafka.common.message.PushTelemetryResponseData;
import org.junit.jupiter.api.Test;

/** GetTelemetrySubscriptions and PushTelemetry (KIP-714) byte-compared with kafka-clients, versions as 4.4's. */
class TelemetryCodecTest {
    private static final UUID INSTANCE = UUID.fromString("6f1c2e4a-93b0-4d7e-8a55-0c2d9e7f1b33");
    private static final Uuid OFFICIAL_INSTANCE = new Uuid(INSTANCE.getMostSignificantBits(),
            INSTANCE.getLeastSignificantBits());

    @Test
    void versionRangesAreTheSpecsAndKafka44s() {
        assertThat(GetTelemetrySubscriptionsRequest.SPEC.lowestVersion())
                .isEqualTo(GetTelemetrySubscriptionsRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(GetTelemetrySubscriptionsRequest.SPEC.highestVersion())
                .isEqualTo(GetTelemetrySubscriptionsRequestData.HIGHEST_SUPPORTED_VERSION)
                .isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("GetTelemetrySubscriptionsRequest"));
        assertThat(GetTelemetrySubscriptionsResponse.SPEC.highestVersion())
                .isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("GetTelemetrySubscriptionsResponse"));
        assertThat(PushTelemetryRequest.SPEC.lowestVersion()).isEqualTo(PushTelemetryRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(PushTelemetryRequest.SPEC.highestVersion())
                .isEqualTo(PushTelemetryRequestData.HIGHEST_SUPPORTED_VERSION)
                .isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("PushTelemetryRequest"));
        assertThat(PushTelemetryResponse.SPEC.highestVersion())
                .isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("PushTelemetryResponse"));
    }

    @Test
    void subscriptionRequestsMatchOfficialBytes() {
        for (short v : OracleEquivalence.versions(GetTelemetrySubscriptionsRequest.SPEC)) {
            short version = v;
            OracleEquivalence.check(GetTelemetrySubscriptionsRequest.SPEC,
                    new GetTelemetrySubscriptionsRequest(new UUID(0, 0)), new GetTelemetrySubscriptionsRequestData(), v,
                    a -> new GetTelemetrySubscriptionsRequestData(a, version));
            OracleEquivalence.check(GetTelemetrySubscriptionsRequest.SPEC,
                    new GetTelemetrySubscriptionsRequest(INSTANCE),
                    new GetTelemetrySubscriptionsRequestData().setClientInstanceId(OFFICIAL_INSTANCE), v,
                    a -> new GetTelemetrySubscriptionsRequestData(a, version));
        }
    }

    @Test
    void subscriptionResponsesMatchOfficialBytes() {
        for (short v : OracleEquivalence.versions(GetTelemetrySubscriptionsResponse.SPEC)) {
            short version = v;
            GetTelemetrySubscriptionsResponse subscribed = new GetTelemetrySubscriptionsResponse(5, (short) 0, INSTANCE,
                    -1937218, List.of((byte) 4, (byte) 3, (byte) 1, (byte) 0), 1000, 1048576, true,
                    List.of("org.apache.kafka.consumer.fetch.manager.", "org.apache.kafka.consumer.coordinator."));
            OracleEquivalence.check(GetTelemetrySubscriptionsResponse.SPEC, subscribed,
                    new GetTelemetrySubscriptionsResponseData().setThrottleTimeMs(5).setClientInstanceId(OFFICIAL_INSTANCE)
                            .setSubscriptionId(-1937218).setAcceptedCompressionTypes(List.of((byte) 4, (byte) 3, (byte) 1, (byte) 0))
                            .setPushIntervalMs(1000).setTelemetryMaxBytes(1048576).setDeltaTemporality(true)
                            .setRequestedMetrics(List.of("org.apache.kafka.consumer.fetch.manager.",
                                    "org.apache.kafka.consumer.coordinator.")), v,
                    a -> new GetTelemetrySubscriptionsResponseData(a, version));

            GetTelemetrySubscriptionsResponse all = new GetTelemetrySubscriptionsResponse(0, (short) 0, new UUID(0, 0), 7,
                    List.of(), 300000, 1048576, false, List.of(""));
            OracleEquivalence.check(GetTelemetrySubscriptionsResponse.SPEC, all,
                    new GetTelemetrySubscriptionsResponseData().setSubscriptionId(7).setPushIntervalMs(300000)
                            .setTelemetryMaxBytes(1048576).setRequestedMetrics(List.of("")), v,
                    a -> new GetTelemetrySubscriptionsResponseData(a, version));

            GetTelemetrySubscriptionsResponse failed = new GetTelemetrySubscriptionsResponse(0, (short) 42, new UUID(0, 0),
                    0, List.of(), 0, 0, false, List.of());
            OracleEquivalence.check(GetTelemetrySubscriptionsResponse.SPEC, failed,
                    new GetTelemetrySubscriptionsResponseData().setErrorCode((short) 42), v,
                    a -> new GetTelemetrySubscriptionsResponseData(a, version));
        }
    }

    @Test
    void pushRequestsMatchOfficialBytes() {
        byte[] payload = {0x0a, 0x03, 0x12, 0x01, 0x7f, (byte) 0xff, 0x00};
        for (short v : OracleEquivalence.versions(PushTelemetryRequest.SPEC)) {
            short version = v;
            OracleEquivalence.check(PushTelemetryRequest.SPEC, new PushTelemetryRequest(INSTANCE, 42, false, (byte) 4, payload),
                    new PushTelemetryRequestData().setClientInstanceId(OFFICIAL_INSTANCE).setSubscriptionId(42)
                            .setCompressionType((byte) 4).setMetrics(ByteBuffer.wrap(payload)), v,
                    a -> new PushTelemetryRequestData(a, version));
            OracleEquivalence.check(PushTelemetryRequest.SPEC, new PushTelemetryRequest(INSTANCE, 42, true, (byte) 0, new byte[0]),
                    new PushTelemetryRequestData().setClientInstanceId(OFFICIAL_INSTANCE).setSubscriptionId(42)
                            .setTerminating(true), v,
                    a -> new PushTelemetryRequestData(a, version));
        }
    }

    @Test
    void pushResponsesMatchOfficialBytes() {
        for (short v : OracleEquivalence.versions(PushTelemetryResponse.SPEC)) {
            short version = v;
            for (short error : new short[] {0, 117, 118, 89}) {
                OracleEquivalence.check(PushTelemetryResponse.SPEC, new PushTelemetryResponse(error == 89 ? 250 : 0, error),
                        new PushTelemetryResponseData().setThrottleTimeMs(error == 89 ? 250 : 0).setErrorCode(error), v,
                        a -> new PushTelemetryResponseData(a, version));
            }
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(GetTelemetrySubscriptionsRequest.SPEC.schema().defaults(), new GetTelemetrySubscriptionsRequestData(), "gts request");
        assertEquivalent(GetTelemetrySubscriptionsResponse.SPEC.schema().defaults(), new GetTelemetrySubscriptionsResponseData(), "gts response");
        assertEquivalent(PushTelemetryRequest.SPEC.schema().defaults(), new PushTelemetryRequestData(), "push request");
        assertEquivalent(PushTelemetryResponse.SPEC.schema().defaults(), new PushTelemetryResponseData(), "push response");
    }
}
