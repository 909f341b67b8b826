package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.OffsetFetchRequest.OffsetFetchRequestGroup;
import io.kflux.protocol.message.OffsetFetchRequest.OffsetFetchRequestTopic;
import io.kflux.protocol.message.OffsetFetchRequest.OffsetFetchRequestTopics;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponseGroup;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponsePartition;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponsePartitions;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponseTopic;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponseTopics;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.junit.jupiter.api.Test;

class OffsetFetchCodecTest {
    private static final UUID ORDERS_ID = UUID.fromString("5d6a1f3e-2b47-4c1a-9f0e-7c3b2a1d0e9f");
    private static final UUID BILLING_ID = UUID.fromString("00000000-0000-0001-0000-000000000002");

    private static Uuid uuid(UUID u) {
        return new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
    }

    @Test
    void versionRangeIsTheSpecs() {
        assertThat(OffsetFetchRequest.SPEC.lowestVersion()).isEqualTo(OffsetFetchRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(OffsetFetchRequest.SPEC.highestVersion()).isEqualTo(OffsetFetchRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(OffsetFetchResponse.SPEC.lowestVersion()).isEqualTo(OffsetFetchResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(OffsetFetchResponse.SPEC.highestVersion()).isEqualTo(OffsetFetchResponseData.HIGHEST_SUPPORTED_VERSION);
    }

    private static OffsetFetchRequestData.OffsetFetchRequestTopics officialTopics(short v, String name, UUID id, List<Integer> parts) {
        OffsetFetchRequestData.OffsetFetchRequestTopics t = new OffsetFetchRequestData.OffsetFetchRequestTopics()
                .setPartitionIndexes(parts);
        return v <= 9 ? t.setName(name) : t.setTopicId(uuid(id));
    }

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(OffsetFetchRequest.SPEC)) {
            for (boolean allTopics : new boolean[] {false, true}) {
                if (allTopics && v < 2) {
                    continue; // null topics (= all) from v2
                }
                List<OffsetFetchRequestTopic> topics = allTopics ? null : List.of(
                        new OffsetFetchRequestTopic("orders", List.of(0, 3, 7)), new OffsetFetchRequestTopic("billing", List.of()));
                OffsetFetchRequest ours = new OffsetFetchRequest("orders-app", topics, List.of(
                        new OffsetFetchRequestGroup("orders-app", "consumer-1-4f6a", 23, allTopics ? null : List.of(
                                new OffsetFetchRequestTopics("orders", ORDERS_ID, List.of(0, 3, 7)),
                                new OffsetFetchRequestTopics("billing", BILLING_ID, List.of()))),
                        new OffsetFetchRequestGroup("audit", null, -1, List.of(
                                new OffsetFetchRequestTopics("orders", ORDERS_ID, List.of(1))))),
                        true);
                OffsetFetchRequestData official = new OffsetFetchRequestData();
                if (v <= 7) {
                    official.setGroupId("orders-app");
                    official.setTopics(allTopics ? null : List.of(
                            new OffsetFetchRequestData.OffsetFetchRequestTopic().setName("orders").setPartitionIndexes(List.of(0, 3, 7)),
                            new OffsetFetchRequestData.OffsetFetchRequestTopic().setName("billing").setPartitionIndexes(List.of())));
                } else {
                    OffsetFetchRequestData.OffsetFetchRequestGroup g1 = new OffsetFetchRequestData.OffsetFetchRequestGroup()
                            .setGroupId("orders-app").setTopics(allTopics ? null : List.of(
                                    officialTopics(v, "orders", ORDERS_ID, List.of(0, 3, 7)),
                                    officialTopics(v, "billing", BILLING_ID, List.of())));
                    OffsetFetchRequestData.OffsetFetchRequestGroup g2 = new OffsetFetchRequestData.OffsetFetchRequestGroup()
                            .setGroupId("audit").setTopics(List.of(officialTopics(v, "orders", ORDERS_ID, List.of(1))));
                    if (v >= 9) {
                        g1.setMemberId("consumer-1-4f6a").setMemberEpoch(23);
                        g2.setMemberId(null).setMemberEpoch(-1);
                    }
                    official.setGroups(List.of(g1, g2));
                }
                if (v >= 7) {
                    official.setRequireStable(true);
                }
                short version = v;
                OracleEquivalence.check(OffsetFetchRequest.SPEC, ours, official, v, a -> new OffsetFetchRequestData(a, version));
            }
        }
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(OffsetFetchResponse.SPEC)) {
            OffsetFetchResponse ours = new OffsetFetchResponse(v >= 3 ? 11 : 0,
                    List.of(new OffsetFetchResponseTopic("orders", List.of(
                                    new OffsetFetchResponsePartition(0, 1_234_567L, 5, "processed by node-a", (short) 0),
                                    new OffsetFetchResponsePartition(3, -1L, -1, null, (short) 0),
                                    new OffsetFetchResponsePartition(7, 10L, 4, "", (short) 88))),
                            new OffsetFetchResponseTopic("billing", List.of())),
                    (short) 14,
                    List.of(new OffsetFetchResponseGroup("orders-app", List.of(
                                    new OffsetFetchResponseTopics("orders", ORDERS_ID, List.of(
                                            new OffsetFetchResponsePartitions(0, 1_234_567L, 5, "processed by node-a", (short) 0),
                                            new OffsetFetchResponsePartitions(3, -1L, -1, null, (short) 0))),
                                    new OffsetFetchResponseTopics("billing", BILLING_ID, List.of(
                                            new OffsetFetchResponsePartitions(1, 5L, 0, "", (short) 88)))),
                                    (short) 0),
                            new OffsetFetchResponseGroup("audit", List.of(), (short) 16)));
            OffsetFetchResponseData official = new OffsetFetchResponseData();
            if (v >= 3) {
                official.setThrottleTimeMs(11);
            }
            if (v <= 7) {
                official.setTopics(List.of(
                        new OffsetFetchResponseData.OffsetFetchResponseTopic().setName("orders").setPartitions(List.of(
                                new OffsetFetchResponseData.OffsetFetchResponsePartition().setPartitionIndex(0)
                                        .setCommittedOffset(1_234_567L).setCommittedLeaderEpoch(v >= 5 ? 5 : -1)
                                        .setMetadata("processed by node-a"),
                                new OffsetFetchResponseData.OffsetFetchResponsePartition().setPartitionIndex(3)
                                        .setCommittedOffset(-1L).setCommittedLeaderEpoch(-1).setMetadata(null),
                                new OffsetFetchResponseData.OffsetFetchResponsePartition().setPartitionIndex(7)
                                        .setCommittedOffset(10L).setCommittedLeaderEpoch(v >= 5 ? 4 : -1).setMetadata("")
                                        .setErrorCode((short) 88))),
                        new OffsetFetchResponseData.OffsetFetchResponseTopic().setName("billing")));
                if (v >= 2) {
                    official.setErrorCode((short) 14);
                }
            } else {
                OffsetFetchResponseData.OffsetFetchResponseTopics orders = new OffsetFetchResponseData.OffsetFetchResponseTopics()
                        .setPartitions(List.of(
                                new OffsetFetchResponseData.OffsetFetchResponsePartitions().setPartitionIndex(0)
                                        .setCommittedOffset(1_234_567L).setCommittedLeaderEpoch(5).setMetadata("processed by node-a"),
                                new OffsetFetchResponseData.OffsetFetchResponsePartitions().setPartitionIndex(3)
                                        .setCommittedOffset(-1L).setCommittedLeaderEpoch(-1).setMetadata(null)));
                OffsetFetchResponseData.OffsetFetchResponseTopics billing = new OffsetFetchResponseData.OffsetFetchResponseTopics()
                        .setPartitions(List.of(new OffsetFetchResponseData.OffsetFetchResponsePartitions().setPartitionIndex(1)
                                .setCommittedOffset(5L).setCommittedLeaderEpoch(0).setMetadata("").setErrorCode((short) 88)));
                if (v <= 9) {
                    orders.setName("orders");
                    billing.setName("billing");
                } else {
                    orders.setTopicId(uuid(ORDERS_ID));
                    billing.setTopicId(uuid(BILLING_ID));
                }
                official.setGroups(List.of(
                        new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId("orders-app").setTopics(List.of(orders, billing)),
                        new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId("audit").setErrorCode((short) 16)));
            }
            short version = v;
            OracleEquivalence.check(OffsetFetchResponse.SPEC, ours, official, v, a -> new OffsetFetchResponseData(a, version));
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(OffsetFetchRequest.SPEC.schema().defaults(), new OffsetFetchRequestData(), "request");
        assertEquivalent(OffsetFetchRequestTopic.SCHEMA.defaults(), new OffsetFetchRequestData.OffsetFetchRequestTopic(), "topic");
        assertEquivalent(OffsetFetchRequestGroup.SCHEMA.defaults(), new OffsetFetchRequestData.OffsetFetchRequestGroup(), "group");
        assertEquivalent(OffsetFetchRequestTopics.SCHEMA.defaults(), new OffsetFetchRequestData.OffsetFetchRequestTopics(), "topics");
        assertEquivalent(OffsetFetchResponse.SPEC.schema().defaults(), new OffsetFetchResponseData(), "response");
        assertEquivalent(OffsetFetchResponseTopic.SCHEMA.defaults(), new OffsetFetchResponseData.OffsetFetchResponseTopic(), "rtopic");
        assertEquivalent(OffsetFetchResponsePartition.SCHEMA.defaults(),
                new OffsetFetchResponseData.OffsetFetchResponsePartition(), "rpartition");
        assertEquivalent(OffsetFetchResponseGroup.SCHEMA.defaults(), new OffsetFetchResponseData.OffsetFetchResponseGroup(), "rgroup");
        assertEquivalent(OffsetFetchResponseTopics.SCHEMA.defaults(), new OffsetFetchResponseData.OffsetFetchResponseTopics(), "rtopics");
        assertEquivalent(OffsetFetchResponsePartitions.SCHEMA.defaults(),
                new OffsetFetchResponseData.OffsetFetchResponsePartitions(), "rpartitions");
    }
}
