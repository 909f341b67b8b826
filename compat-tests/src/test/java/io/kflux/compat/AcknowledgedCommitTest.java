package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.CommitFailedException;
import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.OffsetOutOfRangeException;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Acknowledgements and commits of group members, checked with the official Admin client's
 * listConsumerGroupOffsets: only the contiguous acknowledged prefix is ever committed (manual,
 * auto, on revoke, on close), commits carry metadata, committed offsets position new members.
 */
@KafkaTest(nodes = 1)
class AcknowledgedCommitTest {

    private static Map<TopicPartition, Long> officialCommitted(EmbeddedKafkaCluster kafka, String group) throws Exception {
        Admin admin = kafka.admin();
        return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet().stream()
                .collect(Collectors.toMap(e -> new TopicPartition(e.getKey().topic(), e.getKey().partition()),
                        e -> e.getValue().offset()));
    }

    private static KafkaFluxConsumer<String, String> member(EmbeddedKafkaCluster kafka, String topic, String group,
                                                            RebalanceListener listener, Object... extra) {
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "group.id", group);
        for (int i = 0; i < extra.length; i += 2) {
            props.put((String) extra[i], extra[i + 1]);
        }
        ConsumerOptions<String, String> options = ConsumerOptions.create(props, Deserializers.string(),
                Deserializers.string()).subscription(List.of(topic));
        return KafkaFluxConsumer.create(listener == null ? options : options.rebalanceListener(listener));
    }

    private static Map<TopicPartition, Long> ends(List<ConsumerRecord<String, String>> records) {
        Map<TopicPartition, Long> out = new HashMap<>();
        records.forEach(r -> out.merge(r.topicPartition(), r.offset() + 1, Math::max));
        return out;
    }

    @Test
    void outOfOrderAcknowledgementsCommitOnlyTheContiguousPrefix(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("ooo", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "ooo", 300);
        TopicPartition tp = new TopicPartition("ooo", 0);
        KafkaFluxConsumer<String, String> consumer = member(kafka, "ooo", "g-ooo", null, "enable.auto.commit", "false");
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        List<ConsumerRecord<String, String>> records = queue.take(300, Duration.ofSeconds(60));

        List<ConsumerRecord<String, String>> shuffled = new ArrayList<>(records);
        Collections.shuffle(shuffled, new Random(3));
        ConsumerRecord<String, String> hole = records.get(137);
        shuffled.stream().filter(r -> r != hole).forEach(ConsumerRecord::acknowledge);
        consumer.commit().block(Duration.ofSeconds(30));
        assertThat(officialCommitted(kafka, "g-ooo")).containsEntry(tp, 137L);

        // the hole's own commit() acknowledges it and commits everything after it, acknowledged before
        hole.commit().block(Duration.ofSeconds(30));
        assertThat(officialCommitted(kafka, "g-ooo")).containsEntry(tp, 300L);
        assertThat(queue.error()).isNull();
        consumer.close().block(Duration.ofSeconds(30));
    }

    @Test
    void autoCommitCommitsAcknowledgedOffsetsNeverMerelyEmittedOnes(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("auto", 2, 1);
        SampleData.produce(kafka.bootstrapServers(), "auto", 200);
        KafkaFluxConsumer<String, String> consumer = member(kafka, "auto", "g-auto", null,
                "enable.auto.commit", "true", "auto.commit.interval.ms", "100");
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        List<ConsumerRecord<String, String>> records = queue.take(200, Duration.ofSeconds(60));
        // acknowledge the first 30 records of each partition, in reverse order
        Map<TopicPartition, List<ConsumerRecord<String, String>>> byPartition = records.stream()
                .collect(Collectors.groupingBy(ConsumerRecord::topicPartition));
        Map<TopicPartition, Long> expected = new HashMap<>();
        byPartition.forEach((tp, rs) -> {
            List<ConsumerRecord<String, String>> first = new ArrayList<>(rs.subList(0, 30));
            Collections.reverse(first);
            first.forEach(ConsumerRecord::acknowledge);
            expected.put(tp, rs.get(29).offset() + 1);
        });
        awaitCommitted(kafka, "g-auto", expected, Duration.ofSeconds(10));
        Thread.sleep(500); // several more auto-commit rounds: nothing beyond the acknowledged prefix
        assertThat(officialCommitted(kafka, "g-auto")).isEqualTo(expected);

        // everything acknowledged: the loop commits the end
        records.forEach(ConsumerRecord::acknowledge);
        awaitCommitted(kafka, "g-auto", ends(records), Duration.ofSeconds(10));
        assertThat(queue.error()).isNull();
        consumer.close().block(Duration.ofSeconds(30));
    }

    @Test
    @Tag("smoke") // OffsetCommit inside a rebalance (generation, member id) and JoinGroup/SyncGroup per broker version
    void revocationCommitsAcknowledgedOffsetsBeforeTheListenerEvenWithoutAutoCommit(EmbeddedKafkaCluster kafka)
            throws Exception {
        kafka.createTopic("revoke", 4, 1);
        SampleData.produce(kafka.bootstrapServers(), "revoke", 400);
        Map<TopicPartition, Long> seenByListener = new ConcurrentHashMap<>();
        RebalanceListener listener = new RebalanceListener() {
            @Override
            public Mono<Void> onPartitionsRevoked(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                // what the coordinator holds when the application's listener runs
                return Mono.fromCallable(() -> officialCommitted(kafka, "g-revoke"))
                        .subscribeOn(Schedulers.boundedElastic())
                        .doOnNext(seenByListener::putAll).then();
            }
        };
        KafkaFluxConsumer<String, String> first = member(kafka, "revoke", "g-revoke", listener,
                "enable.auto.commit", "false", "partition.assignment.strategy", "range");
        RecordQueue<String, String> queue = RecordQueue.subscribe(first.receive(), Long.MAX_VALUE);
        List<ConsumerRecord<String, String>> records = queue.take(400, Duration.ofSeconds(60));
        // all but the last 10 records of each partition are acknowledged; none is committed
        Map<TopicPartition, List<ConsumerRecord<String, String>>> byPartition = records.stream()
                .collect(Collectors.groupingBy(ConsumerRecord::topicPartition));
        Map<TopicPartition, Long> acknowledged = new HashMap<>();
        byPartition.forEach((tp, rs) -> {
            rs.subList(0, rs.size() - 10).forEach(ConsumerRecord::acknowledge);
            acknowledged.put(tp, rs.get(rs.size() - 10).offset());
        });
        assertThat(officialCommitted(kafka, "g-revoke")).isEmpty();

        // a second member joins: the eager rebalance revokes everything from the first one
        KafkaFluxConsumer<String, String> second = member(kafka, "revoke", "g-revoke", null, "enable.auto.commit", "false");
        RecordQueue<String, String> secondQueue = RecordQueue.subscribe(second.receive(), Long.MAX_VALUE);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (seenByListener.size() < acknowledged.size() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(seenByListener).isEqualTo(acknowledged);

        // the second member starts its partitions at those commits: the unacknowledged tails come again
        List<ConsumerRecord<String, String>> again = secondQueue.drainFor(Duration.ofSeconds(8));
        Set<TopicPartition> secondOwns = second.assignment();
        assertThat(secondOwns).isNotEmpty();
        for (TopicPartition tp : secondOwns) {
            List<Long> offsets = again.stream().filter(r -> r.topicPartition().equals(tp)).map(ConsumerRecord::offset)
                    .toList();
            assertThat(offsets).as("records of %s read by the new owner", tp).hasSize(10);
            assertThat(offsets.get(0)).isEqualTo(acknowledged.get(tp));
        }
        assertThat(queue.error()).isNull();
        assertThat(secondQueue.error()).isNull();
        second.close().block(Duration.ofSeconds(30));
        first.close().block(Duration.ofSeconds(30));
    }

    @Test
    void closeCommitsAcknowledgedOffsetsEvenWithoutAutoCommit(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("close", 2, 1);
        SampleData.produce(kafka.bootstrapServers(), "close", 100);
        KafkaFluxConsumer<String, String> consumer = member(kafka, "close", "g-close", null, "enable.auto.commit", "false");
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        List<ConsumerRecord<String, String>> records = queue.take(100, Duration.ofSeconds(60));
        records.forEach(ConsumerRecord::acknowledge);
        consumer.close().block(Duration.ofSeconds(30));
        assertThat(queue.awaitTermination(Duration.ofSeconds(10))).isTrue();
        assertThat(queue.isCompleted()).isTrue();
        assertThat(officialCommitted(kafka, "g-close")).isEqualTo(ends(records));
    }

    @Test
    @Tag("smoke") // OffsetCommit/OffsetFetch versions carry the metadata string and the committed position
    void committedOffsetsAndMetadataRoundTripAndPositionTheNextMember(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("meta", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "meta", 50);
        TopicPartition tp = new TopicPartition("meta", 0);
        KafkaFluxConsumer<String, String> consumer = member(kafka, "meta", "g-meta", null, "enable.auto.commit", "false");
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        queue.take(50, Duration.ofSeconds(60));
        String metadata = "checkpoint {\"batch\": 42} ✓";
        consumer.commit(Map.of(tp, new OffsetAndMetadata(20, metadata))).block(Duration.ofSeconds(30));
        assertThat(consumer.committed(Set.of(tp)).block(Duration.ofSeconds(30)))
                .containsEntry(tp, new OffsetAndMetadata(20, metadata));
        assertThat(kafka.admin().listConsumerGroupOffsets("g-meta").partitionsToOffsetAndMetadata().get()
                .get(new org.apache.kafka.common.TopicPartition("meta", 0)).metadata()).isEqualTo(metadata);
        consumer.close().block(Duration.ofSeconds(30)); // nothing acknowledged: the explicit commit stays

        KafkaFluxConsumer<String, String> next = member(kafka, "meta", "g-meta", null);
        List<ConsumerRecord<String, String>> rest = Kflux.collectUntilIdle(next.receive(), Duration.ofSeconds(30),
                Duration.ofSeconds(2));
        assertThat(rest).extracting(ConsumerRecord::offset).first().isEqualTo(20L);
        assertThat(rest).hasSize(30);
    }

    @Test
    void aCommitOfAPartitionNotOwnedFailsAndReceiveGoesOn(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("owned", 1, 1);
        kafka.createTopic("elsewhere", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "owned", 20);
        KafkaFluxConsumer<String, String> consumer = member(kafka, "owned", "g-owned", null, "enable.auto.commit", "false");
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        List<ConsumerRecord<String, String>> records = queue.take(20, Duration.ofSeconds(60));
        TopicPartition notOwned = new TopicPartition("elsewhere", 0);
        TopicPartition owned = new TopicPartition("owned", 0);
        assertThatThrownBy(() -> consumer.commit(Map.of(notOwned, new OffsetAndMetadata(1, ""),
                owned, new OffsetAndMetadata(5, ""))).block(Duration.ofSeconds(30)))
                .isInstanceOf(CommitFailedException.class).hasMessageContaining("elsewhere-0");
        // the owned partition of that request was committed; the other was not
        assertThat(officialCommitted(kafka, "g-owned")).isEqualTo(Map.of(owned, 5L));
        // the failed commit did not end receive()
        SampleData.produce(kafka.bootstrapServers(), "owned", 5);
        assertThat(queue.take(5, Duration.ofSeconds(30))).hasSize(5);
        assertThat(queue.error()).isNull();
        records.get(19).commit().block(Duration.ofSeconds(30)); // earlier ones not acknowledged: nothing more
        assertThat(officialCommitted(kafka, "g-owned")).isEqualTo(Map.of(owned, 5L));
        consumer.close().block(Duration.ofSeconds(30));
    }

    @Test
    @Tag("smoke") // OffsetFetch without a committed offset (-1) and ListOffsets, answered per broker version
    void withoutCommittedOffsetsAutoOffsetResetDecides(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("reset", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "reset", 10);
        TopicPartition tp = new TopicPartition("reset", 0);

        KafkaFluxConsumer<String, String> none = member(kafka, "reset", "g-reset-none", null, "auto.offset.reset", "none");
        RecordQueue<String, String> failing = RecordQueue.subscribe(none.receive(), Long.MAX_VALUE);
        assertThat(failing.awaitTermination(Duration.ofSeconds(30))).isTrue();
        assertThat(failing.error()).isInstanceOf(OffsetOutOfRangeException.class);

        KafkaFluxConsumer<String, String> latest = member(kafka, "reset", "g-reset-latest", null,
                "auto.offset.reset", "latest");
        RecordQueue<String, String> tail = RecordQueue.subscribe(latest.receive(), Long.MAX_VALUE);
        awaitAssigned(latest, tp);
        Thread.sleep(1000); // the position is looked up after the assignment
        SampleData.produce(kafka.bootstrapServers(), "reset", 3);
        assertThat(tail.take(3, Duration.ofSeconds(30))).extracting(ConsumerRecord::offset).containsExactly(10L, 11L, 12L);
        latest.close().block(Duration.ofSeconds(30));

        // with a committed offset, auto.offset.reset=none does not matter
        KafkaFluxConsumer<String, String> committedOne = member(kafka, "reset", "g-reset-none", null,
                "auto.offset.reset", "none");
        Kflux.strings(Kflux.props(kafka.bootstrapServers(), "group.id", "g-reset-none"), List.of(tp))
                .commit(Map.of(tp, new OffsetAndMetadata(8, ""))).block(Duration.ofSeconds(30));
        RecordQueue<String, String> fromCommit = RecordQueue.subscribe(committedOne.receive(), Long.MAX_VALUE);
        assertThat(fromCommit.take(5, Duration.ofSeconds(30))).extracting(ConsumerRecord::offset)
                .containsExactly(8L, 9L, 10L, 11L, 12L);
        committedOne.close().block(Duration.ofSeconds(30));
    }

    private static void awaitAssigned(KafkaFluxConsumer<?, ?> consumer, TopicPartition tp) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!consumer.assignment().contains(tp) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(consumer.assignment()).contains(tp);
    }

    private static void awaitCommitted(EmbeddedKafkaCluster kafka, String group, Map<TopicPartition, Long> expected,
                                       Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<TopicPartition, Long> seen = officialCommitted(kafka, group);
        while (!seen.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            seen = officialCommitted(kafka, group);
        }
        assertThat(seen).isEqualTo(expected);
    }
}
