package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse.Assignment;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.junit.jupiter.api.Test;

class ConsumerGroupHeartbeatCodecTest {
    private static final UUID ORDERS_ID = UUID.fromString("5d6a1f3e-2b47-4c1a-9f0e-7c3b2a1d0e9f");
    private static final UUID BILLING_ID = UUID.fromString("00000000-0000-0001-0000-000000000002");

    private static Uuid uuid(UUID u) {
        return new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
    }

    @Test
    void versionRangeIsTheSpecs() {
        assertThat(ConsumerGroupHeartbeatRequest.SPEC.lowestVersion())
                .isEqualTo(ConsumerGroupHeartbeatRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(ConsumerGroupHeartbeatRequest.SPEC.highestVersion())
                .isEqualTo(ConsumerGroupHeartbeatRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(ConsumerGroupHeartbeatResponse.SPEC.lowestVersion())
                .isEqualTo(ConsumerGroupHeartbeatResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(ConsumerGroupHeartbeatResponse.SPEC.highestVersion())
                .isEqualTo(ConsumerGroupHeartbeatResponseData.HIGHEST_SUPPORTED_VERSION);
    }

    @Test
    void fullRequestMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(ConsumerGroupHeartbeatRequest.SPEC)) {
            ConsumerGroupHeartbeatRequest ours = new ConsumerGroupHeartbeatRequest("orders-app", "Zr0YSzlPTSy8xqVj5gRnMg", 0,
                    "pod-7", "eu-west-1a", 300000, List.of("orders", "billing"), "orders-.*", "uniform",
                    List.of(new ConsumerGroupHeartbeatRequest.TopicPartitions(ORDERS_ID, List.of(0, 3, 7)),
                            new ConsumerGroupHeartbeatRequest.TopicPartitions(BILLING_ID, List.of())));
            ConsumerGroupHeartbeatRequestData official = new ConsumerGroupHeartbeatRequestData().setGroupId("orders-app")
                    .setMemberId("Zr0YSzlPTSy8xqVj5gRnMg").setMemberEpoch(0).setInstanceId("pod-7").setRackId("eu-west-1a")
                    .setRebalanceTimeoutMs(300000).setSubscribedTopicNames(List.of("orders", "billing"))
                    .setServerAssignor("uniform").setTopicPartitions(List.of(
                            new ConsumerGroupHeartbeatRequestData.TopicPartitions().setTopicId(uuid(ORDERS_ID))
                                    .setPartitions(List.of(0, 3, 7)),
                            new ConsumerGroupHeartbeatRequestData.TopicPartitions().setTopicId(uuid(BILLING_ID))));
            if (v >= 1) {
                official.setSubscribedTopicRegex("orders-.*");
            }
            short version = v;
            OracleEquivalence.check(ConsumerGroupHeartbeatRequest.SPEC, ours, official, v,
                    a -> new ConsumerGroupHeartbeatRequestData(a, version));
        }
    }

    @Test
    void unchangedFieldsRequestMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(ConsumerGroupHeartbeatRequest.SPEC)) {
            ConsumerGroupHeartbeatRequest ours = new ConsumerGroupHeartbeatRequest("orders-app", "Zr0YSzlPTSy8xqVj5gRnMg", 12,
                    null, null, -1, null, null, null, null);
            ConsumerGroupHeartbeatRequestData official = new ConsumerGroupHeartbeatRequestData().setGroupId("orders-app")
                    .setMemberId("Zr0YSzlPTSy8xqVj5gRnMg").setMemberEpoch(12);
            short version = v;
            OracleEquivalence.check(ConsumerGroupHeartbeatRequest.SPEC, ours, official, v,
                    a -> new ConsumerGroupHeartbeatRequestData(a, version));
            // leaving with an empty subscription and nothing owned: empty, not null
            ConsumerGroupHeartbeatRequest leave = new ConsumerGroupHeartbeatRequest("orders-app", "m", -1,
                    null, null, -1, List.of(), null, null, List.of());
            OracleEquivalence.check(ConsumerGroupHeartbeatRequest.SPEC, leave, new ConsumerGroupHeartbeatRequestData()
                            .setGroupId("orders-app").setMemberId("m").setMemberEpoch(-1)
                            .setSubscribedTopicNames(List.of()).setTopicPartitions(List.of()), v,
                    a -> new ConsumerGroupHeartbeatRequestData(a, version));
        }
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersionWithAndWithoutAssignment() {
        for (short v : OracleEquivalence.versions(ConsumerGroupHeartbeatResponse.SPEC)) {
            short version = v;
            ConsumerGroupHeartbeatResponse withAssignment = new ConsumerGroupHeartbeatResponse(7, (short) 0, null,
                    "Zr0YSzlPTSy8xqVj5gRnMg", 13, 5000, new Assignment(List.of(
                            new ConsumerGroupHeartbeatResponse.TopicPartitions(ORDERS_ID, List.of(1, 2)),
                            new ConsumerGroupHeartbeatResponse.TopicPartitions(BILLING_ID, List.of(0)))));
            ConsumerGroupHeartbeatResponseData official = new ConsumerGroupHeartbeatResponseData().setThrottleTimeMs(7)
                    .setMemberId("Zr0YSzlPTSy8xqVj5gRnMg").setMemberEpoch(13).setHeartbeatIntervalMs(5000)
                    .setAssignment(new ConsumerGroupHeartbeatResponseData.Assignment().setTopicPartitions(List.of(
                            new ConsumerGroupHeartbeatResponseData.TopicPartitions().setTopicId(uuid(ORDERS_ID))
                                    .setPartitions(List.of(1, 2)),
                            new ConsumerGroupHeartbeatResponseData.TopicPartitions().setTopicId(uuid(BILLING_ID))
                                    .setPartitions(List.of(0)))));
            OracleEquivalence.check(ConsumerGroupHeartbeatResponse.SPEC, withAssignment, official, v,
                    a -> new ConsumerGroupHeartbeatResponseData(a, version));

            ConsumerGroupHeartbeatResponse emptyAssignment = new ConsumerGroupHeartbeatResponse(0, (short) 0, "", "m", 14, 5000,
                    new Assignment(List.of()));
            OracleEquivalence.check(ConsumerGroupHeartbeatResponse.SPEC, emptyAssignment, new ConsumerGroupHeartbeatResponseData()
                            .setErrorMessage("").setMemberId("m").setMemberEpoch(14).setHeartbeatIntervalMs(5000)
                            .setAssignment(new ConsumerGroupHeartbeatResponseData.Assignment()), v,
                    a -> new ConsumerGroupHeartbeatResponseData(a, version));

            ConsumerGroupHeartbeatResponse fenced = new ConsumerGroupHeartbeatResponse(0, (short) 110,
                    "The consumer group member has a smaller member epoch (3) than the one known by the group coordinator (5).",
                    null, -1, 0, null);
            OracleEquivalence.check(ConsumerGroupHeartbeatResponse.SPEC, fenced, new ConsumerGroupHeartbeatResponseData()
                            .setErrorCode((short) 110).setErrorMessage(fenced.errorMessage()).setMemberId(null).setMemberEpoch(-1),
                    v, a -> new ConsumerGroupHeartbeatResponseData(a, version));
        }
    }

    @Test
    void badNullableStructMarkerIsMalformed() {
        ConsumerGroupHeartbeatResponseData official = new ConsumerGroupHeartbeatResponseData().setMemberEpoch(1)
                .setAssignment(new ConsumerGroupHeartbeatResponseData.Assignment());
        byte[] bytes = OracleCodec.officialBytes(official, (short) 1);
        int marker = bytes.length - 4; // marker, empty compact array, struct tags, message tags
        assertThat(bytes[marker]).isEqualTo((byte) 1);
        byte[] bad = Arrays.copyOf(bytes, bytes.length);
        bad[marker] = 5;
        assertThatThrownBy(() -> OracleCodec.kfluxRead(ConsumerGroupHeartbeatResponse.SPEC, bad, (short) 1))
                .isInstanceOf(MalformedMessageException.class);
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(ConsumerGroupHeartbeatRequest.SPEC.schema().defaults(), new ConsumerGroupHeartbeatRequestData(), "request");
        assertEquivalent(ConsumerGroupHeartbeatRequest.TopicPartitions.SCHEMA.defaults(),
                new ConsumerGroupHeartbeatRequestData.TopicPartitions(), "request tp");
        assertEquivalent(ConsumerGroupHeartbeatResponse.SPEC.schema().defaults(), new ConsumerGroupHeartbeatResponseData(), "response");
        assertEquivalent(Assignment.SCHEMA.defaults(), new ConsumerGroupHeartbeatResponseData.Assignment(), "assignment");
        assertEquivalent(ConsumerGroupHeartbeatResponse.TopicPartitions.SCHEMA.defaults(),
                new ConsumerGroupHeartbeatResponseData.TopicPartitions(), "response tp");
    }
}
