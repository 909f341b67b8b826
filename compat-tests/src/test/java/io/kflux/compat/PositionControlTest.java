package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializer;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndTimestamp;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.test.StepVerifier;

/** seek, seekToBeginning, seekToEnd, offsetsForTimes, pause/resume, close and resubscription on a real broker. */
@KafkaTest(nodes = 1)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PositionControlTest {
    private static final int PARTITIONS = 3;
    private static final int PER_PARTITION = 100;
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration QUIET = Duration.ofMillis(1500);
    private static final long T0 = System.currentTimeMillis() - Duration.ofHours(1).toMillis();

    /** A topic of 3 partitions with 100 records each; record i of partition p has timestamp T0 + 10 i + p. */
    private static List<TopicPartition> topic(EmbeddedKafkaCluster kafka, String name) {
        kafka.createTopic(name, PARTITIONS, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < PER_PARTITION; i++) {
            for (int p = 0; p < PARTITIONS; p++) {
                records.add(new ProducerRecord<>(name, p, T0 + 10L * i + p, "k" + i, "v" + p + "-" + i));
            }
        }
        SampleData.produce(kafka.bootstrapServers(), records);
        return Kflux.partitions(name, PARTITIONS);
    }

    private static List<Long> offsetsOf(List<ConsumerRecord<String, String>> records, TopicPartition tp) {
        return records.stream().filter(r -> r.topicPartition().equals(tp)).map(ConsumerRecord::offset).toList();
    }

    private static List<Long> range(long from, long to) {
        return LongStream.range(from, to).boxed().toList();
    }

    @Test
    void seekSeekToBeginningAndSeekToEndSetTheNextEmittedOffset(EmbeddedKafkaCluster kafka) throws Exception {
        List<TopicPartition> tps = topic(kafka, "seeks");
        TopicPartition tp0 = tps.get(0);
        TopicPartition tp1 = tps.get(1);
        TopicPartition tp2 = tps.get(2);
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()), tps);
        RecordQueue<String, String> q = RecordQueue.subscribe(consumer.receive(), 0);
        try {
            q.request(10);
            List<ConsumerRecord<String, String>> first = q.take(10, WAIT);
            Thread.sleep(300); // let the fetcher buffer more of every partition: the seek must drop it
            consumer.seek(tp0, 50).block(WAIT);
            q.request(Long.MAX_VALUE);
            List<ConsumerRecord<String, String>> rest = q.drainFor(QUIET);
            assertThat(offsetsOf(rest, tp0)).as("%s after seek to 50", tp0).isEqualTo(range(50, PER_PARTITION));
            for (TopicPartition tp : List.of(tp1, tp2)) {
                List<Long> all = new ArrayList<>(offsetsOf(first, tp));
                all.addAll(offsetsOf(rest, tp));
                assertThat(all).as("%s, not seeked", tp).isEqualTo(range(0, PER_PARTITION));
            }

            consumer.seekToBeginning(List.of(tp1)).block(WAIT);
            List<ConsumerRecord<String, String>> again = q.drainFor(QUIET);
            assertThat(offsetsOf(again, tp1)).isEqualTo(range(0, PER_PARTITION));
            assertThat(again).allMatch(r -> r.topicPartition().equals(tp1));

            consumer.seekToEnd(List.of(tp0, tp2)).block(WAIT);
            assertThat(q.drainFor(QUIET)).isEmpty();
            SampleData.produce(kafka.bootstrapServers(), List.of(new ProducerRecord<>(tp2.topic(), 2, "k", "late-2"),
                    new ProducerRecord<>(tp0.topic(), 0, "k", "late-0")));
            List<ConsumerRecord<String, String>> late = q.take(2, WAIT);
            assertThat(late).extracting(ConsumerRecord::value).containsExactlyInAnyOrder("late-0", "late-2");
            assertThat(late).extracting(ConsumerRecord::offset).containsOnly((long) PER_PARTITION);
        } finally {
            q.dispose();
        }
    }

    /**
     * A seek that lands while the emitter is building a record (here: from inside the value deserializer, the widest
     * such window) wins: the record being built is not emitted and the next one is the seek's. Before the fix the
     * emitter stored "built record + 1" as the position after the seek had set it, so the seek was lost: forward, the
     * records in between came anyway; back, the records before were never read again.
     */
    @ParameterizedTest(name = "seek to {0} while record 20 is deserialized")
    @ValueSource(longs = {60, 5})
    void aSeekDuringDeserializationIsNotUndoneByTheRecordBeingBuilt(long target, EmbeddedKafkaCluster kafka) {
        List<TopicPartition> tps = topic(kafka, "seek-race-" + target);
        TopicPartition tp0 = tps.get(0);
        AtomicReference<KafkaFluxConsumer<String, String>> self = new AtomicReference<>();
        AtomicBoolean seeked = new AtomicBoolean();
        Deserializer<String> seekingAt20 = (topic, headers, data) -> {
            String value = Deserializers.string().deserialize(topic, headers, data);
            if (value.equals("v0-20") && seeked.compareAndSet(false, true)) {
                self.get().seek(tp0, target).block(WAIT);
            }
            return value;
        };
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                Kflux.props(kafka.bootstrapServers()), Deserializers.string(), seekingAt20).assignment(tps));
        self.set(consumer);
        List<ConsumerRecord<String, String>> records = Kflux.collectUntilIdle(consumer.receive(), WAIT, QUIET);
        assertThat(seeked).isTrue();
        List<Long> expected = new ArrayList<>(range(0, 20));
        expected.addAll(range(target, PER_PARTITION));
        assertThat(offsetsOf(records, tp0)).as("%s, seek to %d while record 20 was built", tp0, target)
                .isEqualTo(expected);
        for (TopicPartition tp : List.of(tps.get(1), tps.get(2))) {
            assertThat(offsetsOf(records, tp)).as("%s, not seeked", tp).isEqualTo(range(0, PER_PARTITION));
        }
    }

    @Test
    void seekBeforeSubscribingSetsWhereItStarts(EmbeddedKafkaCluster kafka) {
        List<TopicPartition> tps = topic(kafka, "seek-first");
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()), tps);
        consumer.seek(tps.get(1), 95).block(WAIT);
        consumer.seekToEnd(List.of(tps.get(2))).block(WAIT);
        List<ConsumerRecord<String, String>> records = Kflux.collectUntilIdle(consumer.receive(), WAIT, QUIET);
        assertThat(offsetsOf(records, tps.get(0))).isEqualTo(range(0, PER_PARTITION));
        assertThat(offsetsOf(records, tps.get(1))).isEqualTo(range(95, PER_PARTITION));
        assertThat(offsetsOf(records, tps.get(2))).isEmpty();
        assertThatThrownBy(() -> consumer.seek(new TopicPartition("seek-first", 7), 0).block(WAIT))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void offsetsForTimesMatchesTheOfficialConsumer(EmbeddedKafkaCluster kafka) {
        List<TopicPartition> tps = topic(kafka, "times");
        Map<TopicPartition, Long> query = new HashMap<>();
        query.put(tps.get(0), T0 + 255);          // between records 25 and 26
        query.put(tps.get(1), 0L);                // before everything: the first record
        query.put(tps.get(2), T0 + 10_000_000);   // after everything: none
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()), tps);
        Map<TopicPartition, OffsetAndTimestamp> ours = consumer.offsetsForTimes(query).block(WAIT);

        Map<org.apache.kafka.common.TopicPartition, Long> officialQuery = new HashMap<>();
        query.forEach((tp, ts) -> officialQuery.put(new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition()), ts));
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        Map<TopicPartition, OffsetAndTimestamp> theirs = new HashMap<>();
        try (KafkaConsumer<String, String> official = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            official.offsetsForTimes(officialQuery, WAIT).forEach((tp, ot) -> theirs.put(
                    new TopicPartition(tp.topic(), tp.partition()),
                    ot == null ? null : new OffsetAndTimestamp(ot.offset(), ot.timestamp())));
        }
        assertThat(ours).isEqualTo(theirs);
        assertThat(ours.get(tps.get(0))).isEqualTo(new OffsetAndTimestamp(26, T0 + 260));
        assertThat(ours.get(tps.get(1))).isEqualTo(new OffsetAndTimestamp(0, T0 + 1));
        assertThat(ours).containsEntry(tps.get(2), null);
    }

    @Test
    void pausedPartitionsEmitNothingWhileOthersContinueUntilResumed(EmbeddedKafkaCluster kafka) throws Exception {
        List<TopicPartition> tps = topic(kafka, "pauses");
        TopicPartition tp0 = tps.get(0);
        TopicPartition tp1 = tps.get(1);
        TopicPartition tp2 = tps.get(2);
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()), tps);
        consumer.pause(List.of(tp2)).block(WAIT); // before subscribing
        assertThat(consumer.paused()).containsExactly(tp2);
        RecordQueue<String, String> q = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        try {
            List<ConsumerRecord<String, String>> initial = q.drainFor(Duration.ofSeconds(3));
            assertThat(offsetsOf(initial, tp0)).isEqualTo(range(0, PER_PARTITION));
            assertThat(offsetsOf(initial, tp1)).isEqualTo(range(0, PER_PARTITION));
            assertThat(offsetsOf(initial, tp2)).as("paused before subscribing").isEmpty();

            consumer.pause(List.of(tp0)).block(WAIT);
            assertThat(consumer.paused()).containsExactlyInAnyOrder(tp0, tp2);
            List<ProducerRecord<String, String>> more = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                more.add(new ProducerRecord<>(tp0.topic(), 0, "k", "more-0-" + i));
                more.add(new ProducerRecord<>(tp1.topic(), 1, "k", "more-1-" + i));
            }
            SampleData.produce(kafka.bootstrapServers(), more);
            List<ConsumerRecord<String, String>> whilePaused = q.drainFor(QUIET);
            assertThat(whilePaused).extracting(ConsumerRecord::value)
                    .containsExactly("more-1-0", "more-1-1", "more-1-2", "more-1-3", "more-1-4");

            consumer.resume(List.of(tp0, tp2)).block(WAIT);
            assertThat(consumer.paused()).isEmpty();
            List<ConsumerRecord<String, String>> resumed = q.drainFor(QUIET);
            assertThat(offsetsOf(resumed, tp0)).isEqualTo(range(PER_PARTITION, PER_PARTITION + 5));
            assertThat(offsetsOf(resumed, tp2)).isEqualTo(range(0, PER_PARTITION));
            assertThat(offsetsOf(resumed, tp1)).isEmpty();
        } finally {
            q.dispose();
        }
    }

    @Test
    void closeCompletesTheFluxAndOnlyOneSubscriptionAtATime(EmbeddedKafkaCluster kafka) {
        List<TopicPartition> tps = topic(kafka, "closing");
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()), tps);
        StepVerifier.create(consumer.receive(), 5)
                .expectNextCount(5)
                .then(() -> StepVerifier.create(consumer.receive())
                        .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                                .hasMessageContaining("active receive()"))
                        .verify(WAIT))
                .then(() -> consumer.close().block(WAIT))
                .expectComplete()
                .verify(WAIT);
        StepVerifier.create(consumer.receive()).expectError(IllegalStateException.class).verify(WAIT);
    }

    @Test
    void aNewSubscriptionAfterCancelContinuesWhereThePreviousStopped(EmbeddedKafkaCluster kafka) throws Exception {
        List<TopicPartition> tps = topic(kafka, "resubscribe");
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()), tps);
        List<ConsumerRecord<String, String>> all = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            RecordQueue<String, String> q = RecordQueue.subscribe(consumer.receive(), 70);
            all.addAll(q.take(70, WAIT));
            q.dispose(); // cancel with more fetched and buffered than emitted
        }
        List<ConsumerRecord<String, String>> last = Kflux.collectUntilIdle(consumer.receive(), WAIT, QUIET);
        all.addAll(last);
        for (TopicPartition tp : tps) {
            assertThat(offsetsOf(all, tp)).as("%s over four subscriptions", tp).isEqualTo(range(0, PER_PARTITION));
        }
        assertThat(all).hasSize(PARTITIONS * PER_PARTITION);
        assertThat(Set.copyOf(consumer.paused())).isEmpty();
    }
}
