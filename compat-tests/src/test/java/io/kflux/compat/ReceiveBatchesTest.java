package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RecordBatch;
import io.kflux.TopicPartition;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.Kflux;
import io.kflux.test.KafkaTest;
import io.kflux.test.KafkaTestCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code receiveBatches()} on a real broker (issue #28, API.md "Batches"), under a manual assignment and under both
 * group protocols: every record exactly once and in offset order per partition, no batch above
 * {@code max.poll.records} or across partitions, a batch's {@code commit()} committing past its last record (read
 * back through the official Admin client), and a member joining mid-stream losing nothing.
 */
@KafkaTest
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReceiveBatchesTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Not a divisor of anything here: batches get cut by it and where results end. */
    private static final int MAX_POLL_RECORDS = 37;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"assignment", "classic", "consumer"})
    void everyRecordOnceInOrderAndCommitGoesPastTheBatch(String mode, KafkaTestCluster kafka) {
        String topic = "batches-" + mode;
        String group = "batches-group-" + mode;
        int perPartition = 600;
        List<TopicPartition> tps = written(kafka, mode, topic, 3, perPartition);
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "group.id", group,
                "enable.auto.commit", false, "max.poll.records", MAX_POLL_RECORDS,
                "max.partition.fetch.bytes", 4096); // several results per partition
        if (!mode.equals("assignment")) {
            props.put("group.protocol", mode);
        }
        ConsumerOptions<String, String> options = ConsumerOptions.create(props, Deserializers.string(),
                Deserializers.string());
        options = mode.equals("assignment") ? options.assignment(tps) : options.subscription(List.of(topic));
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(options);
        int total = tps.size() * perPartition;
        AtomicInteger seen = new AtomicInteger();
        AtomicInteger checkedCommits = new AtomicInteger();
        AtomicInteger index = new AtomicInteger();
        List<RecordBatch<String, String>> batches = new ArrayList<>();
        try {
            batches.addAll(consumer.receiveBatches()
                    .concatMap(batch -> {
                        Mono<RecordBatch<String, String>> committed = batch.commit().thenReturn(batch);
                        if (index.getAndIncrement() % 5 != 0) {
                            return committed.doOnNext(b -> seen.addAndGet(b.records().size()));
                        }
                        // every few batches: right after its commit (before the next batch's), the group's committed
                        // offset as the official Admin reads it is one past the batch's last record
                        return committed.flatMap(b -> Mono.fromCallable(() -> {
                            long last = b.records().get(b.records().size() - 1).offset();
                            assertThat(kafka.committedOffsets(group)).as("committed after %s", b)
                                    .containsEntry(b.topicPartition(), last + 1);
                            checkedCommits.incrementAndGet();
                            seen.addAndGet(b.records().size());
                            return b;
                        }).subscribeOn(Schedulers.boundedElastic()));
                    })
                    .takeUntil(b -> seen.get() >= total)
                    .collectList()
                    .block(WAIT));
        } finally {
            consumer.close().block(WAIT);
        }
        assertThat(checkedCommits.get()).as("commits checked through Admin").isPositive();
        Map<TopicPartition, List<Long>> offsets = new java.util.HashMap<>();
        for (RecordBatch<String, String> b : batches) {
            assertThat(b.records()).as("size of %s", b).isNotEmpty().hasSizeLessThanOrEqualTo(MAX_POLL_RECORDS);
            assertThat(b.records()).as("partition of every record of %s", b)
                    .allMatch(r -> r.topicPartition().equals(b.topicPartition()));
            b.records().forEach(r -> {
                offsets.computeIfAbsent(r.topicPartition(), tp -> new ArrayList<>()).add(r.offset());
                assertThat(r.value()).isEqualTo("v-" + r.partition() + "-" + r.offset());
                // headers kept in wire form and decoded when read (issue #28), under every group protocol
                assertThat(r.headers().size()).isEqualTo(2);
                assertThat(r.headers().lastHeader("at").valueAsString()).isEqualTo(r.partition() + "@" + r.offset());
                assertThat(r.headers().lastHeader("none").value()).isNull();
            });
        }
        List<Long> expected = LongStream.range(0, perPartition).boxed().toList();
        for (TopicPartition tp : tps) {
            assertThat(offsets.get(tp)).as("offsets of %s, in the order received", tp).isEqualTo(expected);
        }
        assertThat(batches.stream().filter(b -> b.records().size() == MAX_POLL_RECORDS))
                .as("batches cut at max.poll.records").isNotEmpty();
        assertThat(kafka.committedOffsets(group)).as("committed once all batches were committed")
                .containsExactlyInAnyOrderEntriesOf(Map.of(tps.get(0), (long) perPartition,
                        tps.get(1), (long) perPartition, tps.get(2), (long) perPartition));
    }

    /**
     * A second member joins while the first still consumes (slowly, until the second owns partitions): nothing is
     * lost, and each member received each partition's records in offset order. Batches are acknowledged as they
     * arrive, so the revocation's commit lets the new owner go on where the old one stopped.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"classic", "consumer"})
    void aMemberJoiningMidStreamLosesNothing(String protocol, KafkaTestCluster kafka) {
        String topic = "batches-rebalance-" + protocol;
        String group = "batches-rebalance-group-" + protocol;
        int perPartition = 400;
        List<TopicPartition> tps = written(kafka, protocol, topic, 6, perPartition);
        Map<String, Object> props = GroupKit.protocolProps(protocol, kafka.bootstrapServers(), group,
                "cooperative-sticky", "max.poll.records", 20, "max.partition.fetch.bytes", 2048);
        Queue<ConsumerRecord<String, String>> first = new ConcurrentLinkedQueue<>();
        Queue<ConsumerRecord<String, String>> second = new ConcurrentLinkedQueue<>();
        KafkaFluxConsumer<String, String> a = GroupKit.consumer(props, topic, null);
        KafkaFluxConsumer<String, String> b = GroupKit.consumer(props, topic, null);
        Disposable runA = null;
        Disposable runB = null;
        try {
            // slow while b owns nothing, so that the rebalance surely comes in the middle of the stream
            runA = a.receiveBatches()
                    .concatMap(batch -> (b.assignment().isEmpty() ? Mono.delay(Duration.ofMillis(120))
                            : Mono.just(0L)).thenReturn(batch))
                    .subscribe(batch -> {
                        first.addAll(batch.records());
                        batch.acknowledge();
                    });
            GroupKit.await("the first member is a quarter through", WAIT,
                    () -> first.size() >= tps.size() * perPartition / 4);
            runB = b.receiveBatches().subscribe(batch -> {
                second.addAll(batch.records());
                batch.acknowledge();
            });
            int total = tps.size() * perPartition;
            GroupKit.await("every record received", WAIT, () -> distinct(first, second) >= total);
            assertThat(second).as("records the joining member got").isNotEmpty();
            assertThat(first.size()).as("the first member stopped short of everything").isLessThan(total);
            for (Queue<ConsumerRecord<String, String>> member : List.of(first, second)) {
                Map<TopicPartition, List<Long>> byPartition = Kflux.offsetsByPartition(new ArrayList<>(member));
                byPartition.forEach((tp, offsets) -> assertThat(offsets).as("%s in a member", tp).isSorted());
            }
            assertThat(distinct(first, second)).isEqualTo(total);
        } finally {
            if (runA != null) {
                runA.dispose();
            }
            if (runB != null) {
                runB.dispose();
            }
            a.close().block(WAIT);
            b.close().block(WAIT);
        }
    }

    /**
     * Under a manual assignment: one subscription at a time (receive() beside receiveBatches() is refused), demand
     * counts batches, a paused partition gets no batch until resumed and then goes on where it stopped, and a seek
     * makes the partition's next batch start at the new offset.
     */
    @org.junit.jupiter.api.Test
    void demandPauseResumeAndSeekWorkOnBatches(KafkaTestCluster kafka) throws Exception {
        String topic = "batches-control";
        List<TopicPartition> tps = written(kafka, "assignment", topic, 2, 300);
        TopicPartition tp0 = tps.get(0);
        TopicPartition tp1 = tps.get(1);
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "max.poll.records", 50), tps);
        java.util.concurrent.BlockingQueue<RecordBatch<String, String>> q =
                new java.util.concurrent.LinkedBlockingQueue<>();
        reactor.core.publisher.BaseSubscriber<RecordBatch<String, String>> subscriber =
                new reactor.core.publisher.BaseSubscriber<>() {
                    @Override
                    protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                    }

                    @Override
                    protected void hookOnNext(RecordBatch<String, String> batch) {
                        q.add(batch);
                    }
                };
        consumer.receiveBatches().subscribe(subscriber);
        try {
            assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> consumer.receive().blockFirst(WAIT)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("active receiveBatches()");
            subscriber.request(2);
            RecordBatch<String, String> first = q.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            RecordBatch<String, String> second = q.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(first).isNotNull();
            assertThat(second).isNotNull();
            assertThat(q.poll(500, TimeUnit.MILLISECONDS)).as("nothing past a demand of two batches").isNull();
            Map<TopicPartition, List<Long>> offsets = new java.util.HashMap<>();
            java.util.function.Consumer<RecordBatch<String, String>> note = b -> b.records().forEach(r ->
                    offsets.computeIfAbsent(r.topicPartition(), tp -> new ArrayList<>()).add(r.offset()));
            note.accept(first);
            note.accept(second);

            consumer.pause(List.of(tp1)).block(WAIT);
            subscriber.request(Long.MAX_VALUE);
            GroupKit.await("partition 0 read to its end", WAIT, () -> {
                for (RecordBatch<String, String> b; (b = q.poll()) != null; ) {
                    assertThat(b.topicPartition()).as("a batch while partition 1 is paused").isEqualTo(tp0);
                    note.accept(b);
                }
                return offsets.getOrDefault(tp0, List.of()).size() == 300;
            });
            List<Long> tp1BeforeResume = List.copyOf(offsets.getOrDefault(tp1, List.of()));
            assertThat(tp1BeforeResume.size()).as("partition 1 stopped short of its end").isLessThan(300);

            consumer.seek(tp0, 10).block(WAIT);
            RecordBatch<String, String> afterSeek = q.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(afterSeek).isNotNull();
            assertThat(afterSeek.topicPartition()).isEqualTo(tp0);
            assertThat(afterSeek.records().get(0).offset()).as("first offset after the seek").isEqualTo(10L);

            consumer.resume(List.of(tp1)).block(WAIT);
            List<Long> tp1All = new ArrayList<>(tp1BeforeResume);
            GroupKit.await("partition 1 read to its end after the resume", WAIT, () -> {
                for (RecordBatch<String, String> b; (b = q.poll()) != null; ) {
                    if (b.topicPartition().equals(tp1)) {
                        b.records().forEach(r -> tp1All.add(r.offset()));
                    }
                }
                return tp1All.size() >= 300;
            });
            assertThat(tp1All).as("partition 1 across the pause").isEqualTo(LongStream.range(0, 300).boxed().toList());
        } finally {
            subscriber.dispose();
            consumer.close().block(WAIT);
        }
    }

    /**
     * Issue #28: a batch whose partition's revocation has started (assignment() no longer lists it) cannot be
     * committed, deterministically inside that window: the subscription ends, the group revokes the partition, and
     * the application's {@code onPartitionsRevoked} is held open (after kflux's own commit before revoking, before
     * the partition's tracking is dropped: where the commit used to go through). The batch's {@code commit()} then
     * fails at once with {@code CommitFailedException}, and nothing of it is committed, during or after.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"classic", "consumer"})
    void aBatchCommittedOnceItsRevocationStartedFailsAtOnce(String protocol, KafkaTestCluster kafka) throws Exception {
        String topic = "batches-revoking-" + protocol;
        String group = "batches-revoking-group-" + protocol;
        TopicPartition tp = written(kafka, protocol, topic, 1, 30).get(0);
        java.util.concurrent.CountDownLatch revoking = new java.util.concurrent.CountDownLatch(1);
        reactor.core.publisher.Sinks.Empty<Void> release = reactor.core.publisher.Sinks.empty();
        ConsumerOptions<String, String> options = ConsumerOptions.create(Kflux.props(kafka.bootstrapServers(),
                        "group.id", group, "group.protocol", protocol, "enable.auto.commit", false),
                Deserializers.string(), Deserializers.string()).subscription(List.of(topic))
                .rebalanceListener(new io.kflux.RebalanceListener() {
                    @Override
                    public Mono<Void> onPartitionsRevoked(java.util.Collection<TopicPartition> partitions,
                                                          io.kflux.RebalanceContext ctx) {
                        revoking.countDown();
                        return release.asMono();
                    }
                });
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(options);
        try {
            // take(1) ends the subscription: the member leaves, and its partition is revoked
            RecordBatch<String, String> batch = consumer.receiveBatches().take(1).blockLast(WAIT);
            assertThat(batch).isNotNull();
            assertThat(revoking.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("onPartitionsRevoked called").isTrue();
            assertThat(consumer.assignment()).doesNotContain(tp);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> batch.commit().block(WAIT))
                    .isInstanceOf(io.kflux.CommitFailedException.class);
        } finally {
            release.tryEmitEmpty();
            consumer.close().block(WAIT); // waits for the subscription's end, its revocation included
        }
        assertThat(kafka.committedOffsets(group)).as("nothing of the refused batch committed, nor by close()")
                .doesNotContainKey(tp);
    }

    /**
     * Issue #28: a batch of an earlier assignment, acknowledged after its partition was revoked and assigned to the
     * same consumer again, is ignored: it neither moves the new assignment's commits (the new assignment emits those
     * records again) nor commits itself ({@code CommitFailedException}). The new assignment's own batch then commits
     * as usual, so the absence above is not a commit path that commits nothing.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"classic", "consumer"})
    void aStaleBatchOfAnEarlierAssignmentOfTheSamePartitionIsIgnored(String protocol, KafkaTestCluster kafka)
            throws Exception {
        String topic = "batches-stale-" + protocol;
        String group = "batches-stale-group-" + protocol;
        TopicPartition tp = written(kafka, protocol, topic, 1, 30).get(0);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                Kflux.props(kafka.bootstrapServers(), "group.id", group, "group.protocol", protocol,
                        "enable.auto.commit", false, "max.poll.records", 10),
                Deserializers.string(), Deserializers.string()).subscription(List.of(topic)));
        Queue<RecordBatch<String, String>> fresh = new ConcurrentLinkedQueue<>();
        Disposable second = null;
        try {
            RecordBatch<String, String> stale = consumer.receiveBatches().take(1).blockLast(WAIT);
            assertThat(stale).isNotNull();
            // the second subscription starts once the first one's revocation ended; its batches are a new assignment
            second = consumer.receiveBatches().subscribe(fresh::add);
            GroupKit.await("a batch of the new assignment", WAIT, () -> !fresh.isEmpty());
            RecordBatch<String, String> first = fresh.peek();
            assertThat(first.records().get(0).offset()).as("the new assignment starts where nothing was committed")
                    .isZero();

            stale.acknowledge();
            consumer.commit().block(WAIT);
            assertThat(kafka.committedOffsets(group)).as("the stale acknowledgement moved nothing")
                    .doesNotContainKey(tp);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> stale.commit().block(WAIT))
                    .isInstanceOf(io.kflux.CommitFailedException.class);
            assertThat(kafka.committedOffsets(group)).doesNotContainKey(tp);

            first.commit().block(WAIT);
            long last = first.records().get(first.records().size() - 1).offset();
            assertThat(kafka.committedOffsets(group)).containsEntry(tp, last + 1);
        } finally {
            if (second != null) {
                second.dispose();
            }
            consumer.close().block(WAIT);
        }
    }

    private static int distinct(Queue<ConsumerRecord<String, String>> first,
                                Queue<ConsumerRecord<String, String>> second) {
        java.util.Set<String> keys = new java.util.HashSet<>();
        first.forEach(r -> keys.add(r.partition() + "@" + r.offset()));
        second.forEach(r -> keys.add(r.partition() + "@" + r.offset()));
        return keys.size();
    }

    /**
     * A topic of {@code partitions} partitions with {@code perPartition} records each (value v-partition-offset; headers
     * "at" = partition@offset and "none" with a null value).
     */
    private static List<TopicPartition> written(KafkaTestCluster kafka, String mode, String topic, int partitions,
                                                int perPartition) {
        assumeTrue(!mode.equals("consumer") || BrokerVersion.current().atLeast(4, 0),
                "group.protocol=consumer needs a 4.0+ broker");
        List<TopicPartition> tps = kafka.createTopic(topic, partitions);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (TopicPartition tp : tps) {
            for (int i = 0; i < perPartition; i++) {
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, tp.partition(), "k" + i,
                        "v-" + tp.partition() + "-" + i);
                record.headers().add("at", (tp.partition() + "@" + i).getBytes(StandardCharsets.UTF_8));
                record.headers().add("none", null);
                records.add(record);
            }
        }
        kafka.produce(records);
        return tps;
    }
}
