package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.LogTruncationException;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.LogCapture;
import io.kflux.compat.support.OfficialConsumers;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Leader epochs of committed offsets (KIP-320) against real brokers, read back with the official Admin client:
 * a commit carries the leader epoch of the last record before the committed offset, as the official consumer's
 * does; on assignment a committed offset with a known epoch is validated with OffsetForLeaderEpoch, and one
 * beyond the end of its epoch in the leader's log (a truncated log) moves back to that end, with a WARN.
 *
 * <p>The topic: offsets 0-9 written under the first leader, then leadership moves to the other replica (the leader
 * epoch goes up) and offsets 10-19 are written under it.
 */
@Tag("smoke")
@KafkaTest(nodes = 2, isolated = true) // moves partitions, elects leaders
class LeaderEpochCommitTest {
    private static final String TOPIC = "epochs";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final io.kflux.TopicPartition KTP = new io.kflux.TopicPartition(TOPIC, 0);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static boolean created;
    private static int firstEpoch;
    private static int secondEpoch;

    /** Creates the topic with two leader epochs once per class. */
    private static synchronized void topic(EmbeddedKafkaCluster kafka) throws Exception {
        if (created) {
            return;
        }
        kafka.createTopic(TOPIC, 1, 2);
        produce(kafka, "first-", 10);
        Admin admin = kafka.admin();
        int leader = leader(admin);
        int other = kafka.nodeIds().stream().filter(n -> n != leader).findFirst().orElseThrow();
        admin.alterPartitionReassignments(Map.of(TP, Optional.of(new NewPartitionReassignment(List.of(other, leader)))))
                .all().get(30, TimeUnit.SECONDS);
        await(() -> {
            try {
                return admin.listPartitionReassignments(Set.of(TP)).reassignments().get().isEmpty();
            } catch (Exception e) {
                return false;
            }
        });
        admin.electLeaders(ElectionType.PREFERRED, Set.of(TP)).all().get(30, TimeUnit.SECONDS);
        await(() -> leader(admin) == other);
        produce(kafka, "second-", 10);
        List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>> log =
                OfficialConsumers.readAll(kafka.bootstrapServers(), TOPIC, "epochs-reader", 20, WAIT);
        assertThat(log).hasSize(20);
        firstEpoch = log.get(9).leaderEpoch().orElseThrow();
        secondEpoch = log.get(10).leaderEpoch().orElseThrow();
        assertThat(secondEpoch).as("the leader moved between offsets 9 and 10").isGreaterThan(firstEpoch);
        created = true;
    }

    @Test
    void commitsCarryTheLeaderEpochOfTheLastRecordBeforeTheCommittedOffset(EmbeddedKafkaCluster kafka) throws Exception {
        topic(kafka);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "group.id", "g-epoch-commit"),
                        Deserializers.string(), Deserializers.string())
                .subscription(List.of(TOPIC)));
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        try {
            List<ConsumerRecord<String, String>> records = queue.take(20, WAIT);
            assertThat(records).extracting(ConsumerRecord::offset).containsExactlyElementsOf(
                    java.util.stream.LongStream.range(0, 20).boxed().toList());
            assertThat(records.get(10).leaderEpoch()).contains(secondEpoch);

            records.subList(0, 10).forEach(ConsumerRecord::acknowledge);
            consumer.commit().block(WAIT);
            assertThat(committed(kafka, "g-epoch-commit")).isEqualTo(new OffsetAndMetadata(10, Optional.of(firstEpoch), ""));

            // out of order: nothing past offset 10 counts until 10 is acknowledged, here by record.commit()
            for (int i = 19; i > 10; i--) {
                records.get(i).acknowledge();
            }
            records.get(10).commit().block(WAIT);
            assertThat(committed(kafka, "g-epoch-commit")).isEqualTo(new OffsetAndMetadata(20, Optional.of(secondEpoch), ""));
        } finally {
            queue.dispose();
            consumer.close().block(WAIT);
        }
        // the official consumer commits the same epoch for the same position
        OfficialConsumers.readAll(kafka.bootstrapServers(), TOPIC, "g-epoch-official", 20, WAIT);
        assertThat(committed(kafka, "g-epoch-official")).isEqualTo(committed(kafka, "g-epoch-commit"));
    }

    @Test
    void aCommittedOffsetBeyondTheEndOfItsEpochMovesBackToThatEndAsWithTheOfficialConsumer(EmbeddedKafkaCluster kafka)
            throws Exception {
        topic(kafka);
        // offset 15 "under the first epoch": in this log the first epoch ends at 10, so the log the offset was
        // committed from was truncated (what an unclean leader election leaves behind)
        commit(kafka, "g-truncated", 15, Optional.of(firstEpoch));
        commit(kafka, "g-truncated-official", 15, Optional.of(firstEpoch));
        commit(kafka, "g-valid", 15, Optional.of(secondEpoch));
        commit(kafka, "g-no-epoch", 15, Optional.empty());

        try (LogCapture logs = new LogCapture("io.kflux")) {
            assertThat(firstOffsetKflux(kafka, "g-truncated")).isEqualTo(10L);
            assertThat(logs.matching(m -> m.contains("Log truncation detected for " + KTP))).isNotEmpty();
        }
        assertThat(firstOffsetOfficial(kafka, "g-truncated-official")).isEqualTo(10L);
        assertThat(firstOffsetKflux(kafka, "g-valid")).isEqualTo(15L);
        assertThat(firstOffsetKflux(kafka, "g-no-epoch")).as("no epoch: nothing to validate").isEqualTo(15L);
    }

    @Test
    void aTruncatedCommittedOffsetWithAutoOffsetResetNoneFailsWithLogTruncation(EmbeddedKafkaCluster kafka)
            throws Exception {
        topic(kafka);
        commit(kafka, "g-truncated-none", 15, Optional.of(firstEpoch));
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "group.id", "g-truncated-none", "auto.offset.reset", "none"), List.of(KTP));
        try {
            assertThatThrownBy(() -> consumer.receive().blockLast(WAIT))
                    .isInstanceOfSatisfying(LogTruncationException.class,
                            e -> assertThat(e.divergentOffsets()).containsEntry(KTP, 10L));
        } finally {
            consumer.close().block(WAIT);
        }
    }

    @Test
    void commitOfGivenOffsetsSendsTheirLeaderEpochAndCommittedReturnsTheStoredOne(EmbeddedKafkaCluster kafka)
            throws Exception {
        topic(kafka);
        String group = "g-epoch-explicit";
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "group.id", group), List.of(KTP));
        try {
            consumer.commit(Map.of(KTP, new io.kflux.OffsetAndMetadata(15, "with-epoch", Optional.of(secondEpoch))))
                    .block(WAIT);
            assertThat(committed(kafka, group)).isEqualTo(new OffsetAndMetadata(15, Optional.of(secondEpoch), "with-epoch"));
            assertThat(consumer.committed(Set.of(KTP)).block(WAIT))
                    .isEqualTo(Map.of(KTP, new io.kflux.OffsetAndMetadata(15, "with-epoch", Optional.of(secondEpoch))));

            // no epoch: -1 on the wire, which both clients read back as none
            consumer.commit(Map.of(KTP, new io.kflux.OffsetAndMetadata(12, "no-epoch"))).block(WAIT);
            assertThat(committed(kafka, group)).isEqualTo(new OffsetAndMetadata(12, Optional.empty(), "no-epoch"));
            assertThat(consumer.committed(Set.of(KTP)).block(WAIT))
                    .isEqualTo(Map.of(KTP, new io.kflux.OffsetAndMetadata(12, "no-epoch")));

            // an epoch the official Admin client stored
            commit(kafka, group, 11, Optional.of(firstEpoch));
            assertThat(consumer.committed(Set.of(KTP)).block(WAIT))
                    .isEqualTo(Map.of(KTP, new io.kflux.OffsetAndMetadata(11, "", Optional.of(firstEpoch))));
        } finally {
            consumer.close().block(WAIT);
        }
    }

    @Test
    void aSeekToAnOffsetWithALeaderEpochIsValidatedAsACommittedOffsetIs(EmbeddedKafkaCluster kafka) throws Exception {
        topic(kafka);
        // before receive(), with a manual assignment: the start position
        assertThat(firstOffsetAfterSeek(kafka, new io.kflux.OffsetAndMetadata(15, "", Optional.of(firstEpoch))))
                .as("offset 15 under the first epoch: that epoch ends at 10 in this log").isEqualTo(10L);
        assertThat(firstOffsetAfterSeek(kafka, new io.kflux.OffsetAndMetadata(15, "", Optional.of(secondEpoch))))
                .isEqualTo(15L);
        assertThat(firstOffsetAfterSeek(kafka, new io.kflux.OffsetAndMetadata(15))).as("no epoch: not validated")
                .isEqualTo(15L);

        // while receiving: the partition's buffered records are dropped and the new position validated
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()), List.of(KTP));
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), 1);
        try {
            assertThat(queue.take(1, WAIT).get(0).offset()).isEqualTo(0L);
            consumer.seek(KTP, new io.kflux.OffsetAndMetadata(17, "", Optional.of(firstEpoch))).block(WAIT);
            queue.request(1);
            assertThat(queue.take(1, WAIT).get(0).offset()).isEqualTo(10L);
        } finally {
            queue.dispose();
            consumer.close().block(WAIT);
        }

        // from a rebalance listener, e.g. positions kept in a database with their epochs
        KafkaFluxConsumer<String, String> member = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "group.id", "g-listener-seek-epoch"),
                        Deserializers.string(), Deserializers.string())
                .subscription(List.of(TOPIC))
                .rebalanceListener(new io.kflux.RebalanceListener() {
                    @Override
                    public reactor.core.publisher.Mono<Void> onPartitionsAssigned(
                            java.util.Collection<io.kflux.TopicPartition> partitions, io.kflux.RebalanceContext ctx) {
                        ctx.seek(KTP, new io.kflux.OffsetAndMetadata(16, "", Optional.of(firstEpoch)));
                        return reactor.core.publisher.Mono.empty();
                    }
                }));
        try {
            assertThat(member.receive().next().map(ConsumerRecord::offset).block(WAIT)).isEqualTo(10L);
        } finally {
            member.close().block(WAIT);
        }
    }

    private static long firstOffsetAfterSeek(EmbeddedKafkaCluster kafka, io.kflux.OffsetAndMetadata offset) {
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()), List.of(KTP));
        try {
            consumer.seek(KTP, offset).block(WAIT);
            return consumer.receive().next().map(ConsumerRecord::offset).block(WAIT);
        } finally {
            consumer.close().block(WAIT);
        }
    }

    private static long firstOffsetKflux(EmbeddedKafkaCluster kafka, String group) throws Exception {
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "group.id", group),
                        Deserializers.string(), Deserializers.string())
                .subscription(List.of(TOPIC)));
        try {
            return consumer.receive().next().map(ConsumerRecord::offset).block(WAIT);
        } finally {
            consumer.close().block(WAIT);
        }
    }

    private static long firstOffsetOfficial(EmbeddedKafkaCluster kafka, String group) {
        try (KafkaConsumer<String, String> consumer = OfficialConsumers.classic(kafka.bootstrapServers(), group)) {
            consumer.subscribe(List.of(TOPIC));
            Instant deadline = Instant.now().plus(WAIT);
            while (Instant.now().isBefore(deadline)) {
                var records = consumer.poll(Duration.ofMillis(200));
                if (!records.isEmpty()) {
                    return records.iterator().next().offset();
                }
            }
            throw new AssertionError("the official consumer read nothing");
        }
    }

    private static void commit(EmbeddedKafkaCluster kafka, String group, long offset, Optional<Integer> epoch)
            throws Exception {
        kafka.admin().alterConsumerGroupOffsets(group, Map.of(TP, new OffsetAndMetadata(offset, epoch, "")))
                .all().get(30, TimeUnit.SECONDS);
    }

    private static OffsetAndMetadata committed(EmbeddedKafkaCluster kafka, String group) throws Exception {
        return kafka.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS).get(TP);
    }

    private static void produce(EmbeddedKafkaCluster kafka, String prefix, int n) throws Exception {
        try (KafkaProducer<String, String> producer = SampleData.producer(kafka.bootstrapServers())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sent.add(producer.send(new ProducerRecord<>(TOPIC, 0, null, prefix + i)));
            }
            for (var f : sent) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static int leader(Admin admin) {
        try {
            return admin.describeTopics(Set.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC)
                    .partitions().get(0).leader().id();
        } catch (Exception e) {
            return -1;
        }
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(WAIT);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("condition not met within " + WAIT);
            }
            Thread.sleep(100);
        }
    }
}
