package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import io.kflux.reactor.kafka.receiver.KafkaReceiver;
import io.kflux.reactor.kafka.receiver.ReceiverOptions;
import io.kflux.reactor.kafka.receiver.ReceiverPartition;
import io.kflux.reactor.kafka.receiver.ReceiverRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * reactor-kafka's documented receiver patterns, run on {@code kflux-reactor-kafka-compat} against a real broker,
 * with the delivery semantics reactor-kafka documents checked through committed offsets read by the official Admin
 * client.
 */
@KafkaTest(nodes = 1)
class ReactorKafkaReceiverTest {

    private static Map<String, Object> props(EmbeddedKafkaCluster kafka, String group) {
        return props(kafka.bootstrapServers(), group);
    }

    /** reactor-kafka receiver properties: a group, earliest reset, kafka-clients' String deserializers by class. */
    static Map<String, Object> props(String bootstrapServers, String group) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrapServers);
        props.put("group.id", group);
        props.put("auto.offset.reset", "earliest");
        props.put("key.deserializer", StringDeserializer.class);
        props.put("value.deserializer", StringDeserializer.class);
        return props;
    }

    /** One partition with values value-0 .. value-(n-1) at offsets 0 .. n-1. */
    private static void fill(EmbeddedKafkaCluster kafka, String topic, int n) {
        kafka.createTopic(topic, 1, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            records.add(new ProducerRecord<>(topic, 0, "key-" + i, "value-" + i));
        }
        SampleData.produce(kafka.bootstrapServers(), records);
    }

    private static long committed(EmbeddedKafkaCluster kafka, String group, String topic) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = kafka.admin().listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        OffsetAndMetadata c = offsets.get(new TopicPartition(topic, 0));
        return c == null ? -1 : c.offset();
    }

    private static long committedUnchecked(EmbeddedKafkaCluster kafka, String group, String topic) {
        try {
            return committed(kafka, group, topic);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void waitUntil(Callable<Boolean> condition, Duration atMost) throws Exception {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + atMost);
            }
            Thread.sleep(50);
        }
    }

    private static void awaitCommitted(EmbeddedKafkaCluster kafka, String group, String topic, long expected)
            throws Exception {
        waitUntil(() -> committed(kafka, group, topic) == expected, Duration.ofSeconds(30));
    }

    @Test
    void receiveCommitsAcknowledgedOffsetsAndTheNextReceiverResumesThere(EmbeddedKafkaCluster kafka) throws Exception {
        fill(kafka, "rk-ack", 100);
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(props(kafka, "g-ack"))
                .commitInterval(Duration.ofMillis(100))
                .subscription(List.of("rk-ack"));
        List<Long> seen = new CopyOnWriteArrayList<>();
        // the documented pattern: process, then acknowledge; only the first 60 are processed here
        KafkaReceiver.create(options).receive()
                .doOnNext(r -> seen.add(r.offset()))
                .filter(r -> r.offset() < 60)
                .doOnNext(r -> r.receiverOffset().acknowledge())
                .take(60)
                .blockLast(Duration.ofSeconds(60));
        assertThat(seen).startsWith(offsetsBelow(60).toArray(Long[]::new));
        // the consumer closes after the flux ended, committing what was acknowledged
        awaitCommitted(kafka, "g-ack", "rk-ack", 60);

        List<Long> resumed = KafkaReceiver.create(options).receive()
                .doOnNext(r -> r.receiverOffset().acknowledge())
                .map(ConsumerRecord::offset)
                .take(40).collectList().block(Duration.ofSeconds(60));
        assertThat(resumed).containsExactlyElementsOf(IntStream.range(60, 100).mapToObj(i -> (long) i).toList());
        awaitCommitted(kafka, "g-ack", "rk-ack", 100);
    }

    private static List<Long> offsetsBelow(int n) {
        return IntStream.range(0, n).mapToObj(i -> (long) i).toList();
    }

    @Test
    void commitAndCommitBatchSizeCommitWhileReceiving(EmbeddedKafkaCluster kafka) throws Exception {
        fill(kafka, "rk-commit", 100);
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(props(kafka, "g-commit"))
                .commitInterval(Duration.ZERO) // no periodic commits: only commit() and the batch size
                .commitBatchSize(10)
                .subscription(List.of("rk-commit"));
        List<Long> committedWhileRunning = new ArrayList<>();
        KafkaReceiver.create(options).receive()
                .take(35)
                .concatMap(r -> {
                    if (r.offset() == 14) {
                        // commit(): acknowledges and commits everything acknowledged; completes once accepted
                        return r.receiverOffset().commit().then(Mono.fromCallable(() -> {
                            committedWhileRunning.add(committed(kafka, "g-commit", "rk-commit"));
                            return r;
                        }).subscribeOn(Schedulers.boundedElastic()));
                    }
                    r.receiverOffset().acknowledge();
                    if ((r.offset() + 1) % 10 == 0) {
                        // the 10th, 20th, 30th acknowledgement commits (the one commit() made counts too); nothing
                        // is acknowledged while waiting, so the commit holds exactly these offsets
                        return Mono.fromCallable(() -> {
                            awaitCommitted(kafka, "g-commit", "rk-commit", r.offset() + 1);
                            committedWhileRunning.add(committed(kafka, "g-commit", "rk-commit"));
                            return r;
                        }).subscribeOn(Schedulers.boundedElastic());
                    }
                    return Mono.just(r);
                })
                .blockLast(Duration.ofSeconds(90));
        assertThat(committedWhileRunning).containsExactly(10L, 15L, 20L, 30L);
        // the end of the flux commits the rest
        awaitCommitted(kafka, "g-commit", "rk-commit", 35);
    }

    @Test
    void autoAckAcknowledgesEachBatchWhenItsFluxCompletes(EmbeddedKafkaCluster kafka) throws Exception {
        fill(kafka, "rk-auto", 200);
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(props(kafka, "rk-g-auto"))
                .commitInterval(Duration.ofMillis(100))
                .consumerProperty("max.poll.records", 50)
                .subscription(List.of("rk-auto"));
        List<Integer> batchSizes = new CopyOnWriteArrayList<>();
        List<String> values = new CopyOnWriteArrayList<>();
        Flux<Flux<ConsumerRecord<String, String>>> batches = KafkaReceiver.create(options).receiveAutoAck();
        batches.concatMap(batch -> batch.doOnNext(r -> values.add(r.value())).count()
                        .doOnNext(n -> batchSizes.add(n.intValue())))
                .takeUntil(n -> values.size() >= 200)
                .blockLast(Duration.ofSeconds(60));
        assertThat(values).containsExactlyElementsOf(IntStream.range(0, 200).mapToObj(i -> "value-" + i).toList());
        assertThat(batchSizes).allMatch(n -> n >= 1 && n <= 50);
        // every batch completed, so every record was acknowledged and the close committed them all
        awaitCommitted(kafka, "rk-g-auto", "rk-auto", 200);
    }

    @Test
    void atMostOnceCommitsBeforeDelivery(EmbeddedKafkaCluster kafka) throws Exception {
        fill(kafka, "rk-amo", 50);
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(props(kafka, "g-amo"))
                .subscription(List.of("rk-amo"));
        List<long[]> offsetAndCommitted = new ArrayList<>();
        KafkaReceiver.create(options).receiveAtmostOnce()
                .take(5)
                .concatMap(r -> Mono.fromCallable(() -> new long[] {r.offset(), committed(kafka, "g-amo", "rk-amo")})
                        .subscribeOn(Schedulers.boundedElastic()))
                .doOnNext(offsetAndCommitted::add)
                .blockLast(Duration.ofSeconds(60));
        // each record's offset was committed before the application saw it (the commit of the next record may
        // already have been made too: it is made as soon as the record is in hand, ahead of its delivery)
        assertThat(offsetAndCommitted).hasSize(5).allSatisfy(a -> assertThat(a[1]).isGreaterThanOrEqualTo(a[0] + 1));

        // commit ahead 4: one commit covers five records; a failure loses up to four of them
        ReceiverOptions<String, String> ahead = options.atmostOnceCommitAheadSize(4);
        // take(1) asks for one record only, so exactly one is delivered (and nothing waits in a prefetch queue)
        List<long[]> aheadSeen = new ArrayList<>();
        KafkaReceiver.create(ahead).receiveAtmostOnce()
                .doOnNext(r -> aheadSeen.add(new long[] {r.offset(), committedUnchecked(kafka, "g-amo", "rk-amo")}))
                .take(1)
                .blockLast(Duration.ofSeconds(60));
        assertThat(aheadSeen).hasSize(1);
        assertThat(aheadSeen.get(0)).containsExactly(5L, 10L); // 5 + 1 + 4, committed before delivery
        // a clean stop takes the commit back to the record after the last one delivered: 6..9 are not lost
        awaitCommitted(kafka, "g-amo", "rk-amo", 6);
        List<Long> next = KafkaReceiver.create(ahead).receiveAtmostOnce()
                .map(ConsumerRecord::offset).take(1).collectList().block(Duration.ofSeconds(60));
        assertThat(next).containsExactly(6L);
    }

    /** A manual assignment has no revocation: the receiver's close takes the commit-ahead back. */
    @Test
    void atMostOnceWithAnAssignmentTakesTheCommitAheadBackOnClose(EmbeddedKafkaCluster kafka) throws Exception {
        fill(kafka, "rk-amo-assigned", 20);
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(props(kafka, "g-amo-assigned"))
                .atmostOnceCommitAheadSize(4)
                .assignment(List.of(new TopicPartition("rk-amo-assigned", 0)));
        List<long[]> seen = new ArrayList<>();
        KafkaReceiver.create(options).receiveAtmostOnce()
                .doOnNext(r -> seen.add(new long[] {r.offset(), committedUnchecked(kafka, "g-amo-assigned",
                                                                                    "rk-amo-assigned")}))
                .take(1)
                .blockLast(Duration.ofSeconds(60));
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0)).containsExactly(0L, 5L); // 0 + 1 + 4, committed before delivery
        awaitCommitted(kafka, "g-amo-assigned", "rk-amo-assigned", 1);
    }

    @Test
    void assignListenersSeekAndRevokeListenersSeeThePartitions(EmbeddedKafkaCluster kafka) throws Exception {
        fill(kafka, "rk-seek", 100);
        List<String> events = new CopyOnWriteArrayList<>();
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(props(kafka, "g-seek"))
                .addAssignListener(partitions -> partitions.forEach(p -> {
                    events.add("assigned " + p.topicPartition() + " begin=" + p.beginningOffset() + " end="
                               + p.endOffset() + " position=" + p.position());
                    p.seek(70);
                    events.add("sought " + p.position());
                }))
                .addRevokeListener(partitions -> events.add("revoked " + partitions.stream()
                        .map(ReceiverPartition::topicPartition).toList()))
                .subscription(List.of("rk-seek"));
        List<ReceiverRecord<String, String>> records = KafkaReceiver.create(options).receive()
                .doOnNext(r -> r.receiverOffset().acknowledge())
                .take(30).collectList().block(Duration.ofSeconds(60));
        assertThat(records).extracting(ConsumerRecord::offset)
                .containsExactlyElementsOf(IntStream.range(70, 100).mapToObj(i -> (long) i).toList());
        assertThat(records.get(0).receiverOffset().topicPartition()).isEqualTo(new TopicPartition("rk-seek", 0));
        waitUntil(() -> events.size() >= 3, Duration.ofSeconds(10));
        assertThat(events).containsExactly("assigned rk-seek-0 begin=0 end=100 position=0", "sought 70",
                                           "revoked [rk-seek-0]");
        awaitCommitted(kafka, "g-seek", "rk-seek", 100);

        // manual assignment: the assign listener runs too, before the first record; seekToEnd skips what exists
        List<String> manual = new CopyOnWriteArrayList<>();
        ReceiverOptions<String, String> assigned = ReceiverOptions.<String, String>create(props(kafka, "g-seek"))
                .addAssignListener(partitions -> partitions.forEach(p -> {
                    manual.add("position " + p.position()); // the committed offset
                    p.seekToEnd();
                    manual.add("after seekToEnd " + p.position());
                }))
                .assignment(List.of(new TopicPartition("rk-seek", 0)));
        Mono.delay(Duration.ofSeconds(2)).subscribe(x -> SampleData.produce(kafka.bootstrapServers(),
                List.of(new ProducerRecord<>("rk-seek", 0, "late", "late-value"))));
        List<String> late = KafkaReceiver.create(assigned).receive().map(ConsumerRecord::value)
                .take(1).collectList().block(Duration.ofSeconds(60));
        assertThat(late).containsExactly("late-value");
        assertThat(manual).containsExactly("position 100", "after seekToEnd 100");
    }
}
