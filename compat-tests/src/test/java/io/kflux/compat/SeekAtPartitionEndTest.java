package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue #17: a {@code seek} back to 0 made as a partition's last record is emitted is fetched at once, not after a
 * long poll at the partition's end. kflux prefetches a partition while its last result is emitted, but not from the
 * end of its log: that Fetch would find nothing and the broker would hold it for {@code fetch.max.wait.ms}, the
 * one Fetch in flight to the broker, so the seek's Fetch would wait for it (the benchmark's ~500 ms gaps).
 * {@code fetch.max.wait.ms} is 3,000 here, so a re-read within 1,500 ms cannot have waited for a long poll.
 */
@KafkaTest(nodes = 1)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SeekAtPartitionEndTest {
    private static final int RECORDS = 20;
    private static final int PASSES = 3;
    private static final String MAX_WAIT_MS = "3000";
    private static final long REREAD_WITHIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1_500);
    private static final Duration WAIT = Duration.ofSeconds(40);

    /** A record as emitted, and when (System.nanoTime()). */
    private record Seen(int partition, long offset, String value, long atNanos) {
    }

    private static void produce(EmbeddedKafkaCluster kafka, String topic, int partition, int count) {
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            records.add(new ProducerRecord<>(topic, partition, "k" + i, "v" + partition + "-" + i));
        }
        SampleData.produce(kafka.bootstrapServers(), records);
    }

    /**
     * Reads {@code seeked} {@value #PASSES} times (seeking back to 0 from inside {@code onNext} of its last record, as
     * the benchmark does), and every other partition once; returns every record emitted and when each seek was made.
     */
    private static List<Seen> readWithSeeksBack(EmbeddedKafkaCluster kafka, List<TopicPartition> assigned,
                                                TopicPartition seeked, int othersRecords, List<Long> seekNanos) {
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(
                Kflux.props(kafka.bootstrapServers(), "fetch.max.wait.ms", MAX_WAIT_MS), assigned);
        List<Seen> seen = Collections.synchronizedList(new ArrayList<>());
        Map<Integer, Integer> passes = new ConcurrentHashMap<>();
        try {
            consumer.receive()
                    .doOnNext(r -> {
                        seen.add(new Seen(r.partition(), r.offset(), r.value(), System.nanoTime()));
                        if (r.topicPartition().equals(seeked) && r.offset() == RECORDS - 1
                                && passes.merge(r.partition(), 1, Integer::sum) < PASSES) {
                            seekNanos.add(System.nanoTime());
                            consumer.seek(seeked, 0).subscribe();
                        }
                    })
                    .take(RECORDS * PASSES + (long) othersRecords * (assigned.size() - 1))
                    .then()
                    .block(WAIT);
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
        return List.copyOf(seen);
    }

    /** Each seek back is re-read (offset 0 emitted again) within {@link #REREAD_WITHIN_NANOS}. */
    private static void assertRereadPromptly(List<Seen> seen, TopicPartition seeked, List<Long> seekNanos) {
        List<Seen> zeros = seen.stream().filter(s -> s.partition() == seeked.partition() && s.offset() == 0).toList();
        assertThat(zeros).hasSize(PASSES);
        assertThat(seekNanos).hasSize(PASSES - 1);
        List<Double> waitedMs = new ArrayList<>();
        for (int i = 0; i < PASSES - 1; i++) {
            waitedMs.add((zeros.get(i + 1).atNanos() - seekNanos.get(i)) / 1e6);
        }
        System.out.printf("%s: offset 0 re-read %s ms after the seeks back (fetch.max.wait.ms %s)%n", seeked,
                waitedMs.stream().map(ms -> String.format("%.1f", ms)).toList(), MAX_WAIT_MS);
        for (int i = 0; i < PASSES - 1; i++) {
            assertThat(zeros.get(i + 1).atNanos() - seekNanos.get(i))
                    .as("offset 0 re-read %.1f ms after seek %d (fetch.max.wait.ms %s)", waitedMs.get(i), i + 1,
                            MAX_WAIT_MS)
                    .isLessThan(REREAD_WITHIN_NANOS);
        }
    }

    private static List<Long> offsetsOf(List<Seen> seen, int partition) {
        return seen.stream().filter(s -> s.partition() == partition).map(Seen::offset).toList();
    }

    private static List<Long> passes(int count) {
        List<Long> all = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            LongStream.range(0, RECORDS).forEach(all::add);
        }
        return all;
    }

    @Test
    void aSeekBackAtTheEndIsReadAgainWithoutWaitingForALongPoll(EmbeddedKafkaCluster kafka) {
        String topic = "seek-at-end";
        kafka.createTopic(topic, 1, 1);
        produce(kafka, topic, 0, RECORDS);
        TopicPartition tp0 = new TopicPartition(topic, 0);
        List<Long> seekNanos = Collections.synchronizedList(new ArrayList<>());

        List<Seen> seen = readWithSeeksBack(kafka, List.of(tp0), tp0, 0, seekNanos);

        assertThat(offsetsOf(seen, 0)).as("every record read %d times, in order, nothing lost", PASSES)
                .isEqualTo(passes(PASSES));
        assertThat(seen).allSatisfy(s -> assertThat(s.value()).isEqualTo("v0-" + s.offset()));
        assertRereadPromptly(seen, tp0, seekNanos);
    }

    /**
     * With another partition of the same broker idle at its end, the seeked one is still re-read at once: while the
     * seeked partition waits at its end the broker gets no long poll for the other (no Fetch at all once both are at
     * their end), so the seek's Fetch goes out at once.
     */
    @Test
    void aSeekBackAtTheEndBesideAnIdlePartitionIsReadAgainWithoutWaitingForALongPoll(EmbeddedKafkaCluster kafka) {
        String topic = "seek-at-end-beside-idle";
        kafka.createTopic(topic, 2, 1);
        produce(kafka, topic, 0, RECORDS);
        produce(kafka, topic, 1, 5);
        List<TopicPartition> tps = Kflux.partitions(topic, 2);
        List<Long> seekNanos = Collections.synchronizedList(new ArrayList<>());

        List<Seen> seen = readWithSeeksBack(kafka, tps, tps.get(0), 5, seekNanos);

        assertThat(offsetsOf(seen, 0)).as("tp0 read %d times, in order", PASSES).isEqualTo(passes(PASSES));
        assertThat(offsetsOf(seen, 1)).as("tp1 read once").containsExactly(0L, 1L, 2L, 3L, 4L);
        assertRereadPromptly(seen, tps.get(0), seekNanos);
    }
}
