package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import io.kflux.protocol.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import io.kflux.protocol.message.OffsetCommitResponse.OffsetCommitResponsePartition;
import io.kflux.protocol.message.OffsetCommitResponse.OffsetCommitResponseTopic;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.junit.jupiter.api.Test;

class OffsetCommitCodecTest {
    private static final UUID ORDERS_ID = UUID.fromString("5d6a1f3e-2b47-4c1a-9f0e-7c3b2a1d0e9f");
    private static final UUID BILLING_ID = UUID.fromString("00000000-0000-0001-0000-000000000002");

    private static Uuid uuid(UUID u) {
        return new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
    }

    @Test
    void versionRangeIsTheSpecs() {
        assertThat(OffsetCommitRequest.SPEC.lowestVersion()).isEqualTo(OffsetCommitRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(OffsetCommitRequest.SPEC.highestVersion()).isEqualTo(OffsetCommitRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(OffsetCommitResponse.SPEC.lowestVersion()).isEqualTo(OffsetCommitResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(OffsetCommitResponse.SPEC.highestVersion()).isEqualTo(OffsetCommitResponseData.HIGHEST_SUPPORTED_VERSION);
    }

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(OffsetCommitRequest.SPEC)) {
            OffsetCommitRequest ours = new OffsetCommitRequest("orders-app", 17, "consumer-1-4f6a", "pod-7", 86_400_000L,
                    List.of(new OffsetCommitRequestTopic("orders", ORDERS_ID, List.of(
                                    new OffsetCommitRequestPartition(0, 1_234_567_890_123L, 5, "processed by node-a"),
                                    new OffsetCommitRequestPartition(3, 42L, 5, null),
                                    new OffsetCommitRequestPartition(7, 0L, -1, ""))),
                            new OffsetCommitRequestTopic("billing", BILLING_ID, List.of(
                                    new OffsetCommitRequestPartition(1, 99L, 2, "{\"tx\":12}")))));
            OffsetCommitRequestData official = new OffsetCommitRequestData().setGroupId("orders-app")
                    .setGenerationIdOrMemberEpoch(17).setMemberId("consumer-1-4f6a");
            if (v >= 7) {
                official.setGroupInstanceId("pod-7");
            }
            if (v <= 4) {
                official.setRetentionTimeMs(86_400_000L);
            }
            OffsetCommitRequestData.OffsetCommitRequestTopic orders = new OffsetCommitRequestData.OffsetCommitRequestTopic();
            OffsetCommitRequestData.OffsetCommitRequestTopic billing = new OffsetCommitRequestData.OffsetCommitRequestTopic();
            if (v <= 9) {
                orders.setName("orders");
                billing.setName("billing");
            } else {
                orders.setTopicId(uuid(ORDERS_ID));
                billing.setTopicId(uuid(BILLING_ID));
            }
            orders.setPartitions(List.of(
                    new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0)
                            .setCommittedOffset(1_234_567_890_123L).setCommittedLeaderEpoch(v >= 6 ? 5 : -1)
                            .setCommittedMetadata("processed by node-a"),
                    new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(3)
                            .setCommittedOffset(42L).setCommittedLeaderEpoch(v >= 6 ? 5 : -1).setCommittedMetadata(null),
                    new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(7)
                            .setCommittedOffset(0L).setCommittedLeaderEpoch(-1).setCommittedMetadata("")));
            billing.setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(1)
                    .setCommittedOffset(99L).setCommittedLeaderEpoch(v >= 6 ? 2 : -1).setCommittedMetadata("{\"tx\":12}")));
            official.setTopics(List.of(orders, billing));
            short version = v;
            OracleEquivalence.check(OffsetCommitRequest.SPEC, ours, official, v, a -> new OffsetCommitRequestData(a, version));
        }
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(OffsetCommitResponse.SPEC)) {
            OffsetCommitResponse ours = new OffsetCommitResponse(v >= 3 ? 8 : 0, List.of(
                    new OffsetCommitResponseTopic("orders", ORDERS_ID, List.of(
                            new OffsetCommitResponsePartition(0, (short) 0), new OffsetCommitResponsePartition(3, (short) 22))),
                    new OffsetCommitResponseTopic("billing", BILLING_ID, List.of(new OffsetCommitResponsePartition(1, (short) 25)))));
            OffsetCommitResponseData official = new OffsetCommitResponseData();
            if (v >= 3) {
                official.setThrottleTimeMs(8);
            }
            OffsetCommitResponseData.OffsetCommitResponseTopic orders = new OffsetCommitResponseData.OffsetCommitResponseTopic();
            OffsetCommitResponseData.OffsetCommitResponseTopic billing = new OffsetCommitResponseData.OffsetCommitResponseTopic();
            if (v <= 9) {
                orders.setName("orders");
                billing.setName("billing");
            } else {
                orders.setTopicId(uuid(ORDERS_ID));
                billing.setTopicId(uuid(BILLING_ID));
            }
            orders.setPartitions(List.of(
                    new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(0).setErrorCode((short) 0),
                    new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(3).setErrorCode((short) 22)));
            billing.setPartitions(List.of(
                    new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(1).setErrorCode((short) 25)));
            official.setTopics(List.of(orders, billing));
            short version = v;
            OracleEquivalence.check(OffsetCommitResponse.SPEC, ours, official, v, a -> new OffsetCommitResponseData(a, version));
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(OffsetCommitRequest.SPEC.schema().defaults(), new OffsetCommitRequestData(), "request");
        assertEquivalent(OffsetCommitRequestTopic.SCHEMA.defaults(), new OffsetCommitRequestData.OffsetCommitRequestTopic(), "topic");
        assertEquivalent(OffsetCommitRequestPartition.SCHEMA.defaults(),
                new OffsetCommitRequestData.OffsetCommitRequestPartition(), "partition");
        assertEquivalent(OffsetCommitResponse.SPEC.schema().defaults(), new OffsetCommitResponseData(), "response");
        assertEquivalent(OffsetCommitResponseTopic.SCHEMA.defaults(), new OffsetCommitResponseData.OffsetCommitResponseTopic(), "rtopic");
        assertEquivalent(OffsetCommitResponsePartition.SCHEMA.defaults(),
                new OffsetCommitResponseData.OffsetCommitResponsePartition(), "rpartition");
    }
}
