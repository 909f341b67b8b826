package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.Ordering;
import io.kflux.ProcessingOptions;
import io.kflux.TopicPartition;
import io.kflux.commit.ProgressMetadata;
import io.kflux.compat.support.GroupKit;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * {@code ProcessingOptions.commitAfterRecords} (issue #27): with automatic commits every 2 minutes, process() still
 * commits its progress every so many completed records, so what a crash would re-do is bounded by records, not only
 * by the commit interval; with 0 nothing is committed before the interval. Under a group subscription of both
 * protocols and a manual assignment with a {@code group.id}; the commits are read with the Admin client while the
 * consumer still runs (no revocation or close commit in between).
 */
// share heartbeats at 500 ms as well: a share member gets its first assignment one heartbeat after joining, 5 s
// at the broker's default; the same specification as ShareConsumerTest's, so the classes share one broker
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500", "group.share.heartbeat.interval.ms=500",
        "group.share.min.heartbeat.interval.ms=500"})
class ProcessingCommitAheadTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 3_000;
    private static final int EVERY = 400;
    private static final int IN_FLIGHT = 8;

    /** A consumer whose periodic commit would come only after 2 minutes, past the test. */
    private static KafkaFluxConsumer<String, String> consumer(String variant, EmbeddedKafkaCluster kafka, String topic,
                                                              String group) {
        Map<String, Object> props = GroupKit.protocolProps(variant.equals("consumer") ? "consumer" : "classic",
                kafka.bootstrapServers(), group, "range", "enable.auto.commit", true,
                "auto.commit.interval.ms", 120_000);
        if (variant.equals("consumer")) {
            props = GroupKit.forVariant(GroupKit.CONSUMER_PROTOCOL, props); // skips below Kafka 4.0
        }
        ConsumerOptions<String, String> options = ConsumerOptions.create(props, Deserializers.string(),
                Deserializers.string());
        if (variant.equals("assignment")) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            return KafkaFluxConsumer.create(options.assignment(partitions));
        }
        return KafkaFluxConsumer.create(options.subscription(List.of(topic)));
    }

    /** Records the group's commits cover: below each committed offset, and the completed ones its metadata names. */
    private static long covered(EmbeddedKafkaCluster kafka, String group) throws Exception {
        long covered = 0;
        for (OffsetAndMetadata om : kafka.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get().values()) {
            covered += om.offset();
            long[] runs = ProgressMetadata.decode(om.metadata());
            for (int i = 0; i < runs.length; i += 2) {
                covered += runs[i + 1] - runs[i];
            }
        }
        return covered;
    }

    private static Set<String> process(KafkaFluxConsumer<String, String> consumer, int commitAfterRecords,
                                       List<Disposable> runs) throws InterruptedException {
        Set<String> completed = ConcurrentHashMap.newKeySet();
        runs.add(consumer.process(ProcessingOptions.<String, String>ordering(Ordering.UNORDERED)
                                .maxInFlight(IN_FLIGHT).commitAfterRecords(commitAfterRecords),
                        r -> Mono.delay(Duration.ofMillis(2)))
                .subscribe(p -> completed.add(p.record().topicPartition() + "@" + p.record().offset())));
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (completed.size() < RECORDS && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
        assertThat(completed).as("records completed").hasSize(RECORDS);
        return completed;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"classic", "consumer", "assignment"})
    void progressIsCommittedEverySoManyRecordsAndOnlyThenBeforeTheInterval(String variant, EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "commit-ahead-" + variant;
        kafka.createTopic(topic, PARTITIONS, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>(RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            records.add(new ProducerRecord<>(topic, "k-" + i, "v-" + i));
        }
        SampleData.produce(kafka.bootstrapServers(), records);
        List<Disposable> runs = new ArrayList<>();
        KafkaFluxConsumer<String, String> paced = consumer(variant, kafka, topic, "g-" + topic + "-paced");
        KafkaFluxConsumer<String, String> unpaced = consumer(variant, kafka, topic, "g-" + topic + "-unpaced");
        try {
            process(paced, EVERY, runs);
            // every commit ahead covers what completed when it took its offsets; the last one came at most EVERY
            // acknowledgements (plus those completing meanwhile, at most IN_FLIGHT at a time) before the end
            long deadline = System.nanoTime() + WAIT.toNanos();
            long covered = covered(kafka, "g-" + topic + "-paced");
            while (covered < RECORDS - EVERY - IN_FLIGHT && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(50);
                covered = covered(kafka, "g-" + topic + "-paced");
            }
            System.out.println("commitAfterRecords(" + EVERY + "), " + variant + ": " + covered + " of " + RECORDS
                    + " records covered by the commits before the 2-minute interval");
            assertThat(covered).as("records the commits cover while the consumer runs")
                    .isGreaterThanOrEqualTo(RECORDS - EVERY - IN_FLIGHT);

            process(unpaced, 0, runs);
            TimeUnit.SECONDS.sleep(2);
            assertThat(covered(kafka, "g-" + topic + "-unpaced"))
                    .as("with commitAfterRecords(0), nothing committed before the interval").isZero();
        } finally {
            runs.forEach(Disposable::dispose);
            paced.close().block(WAIT);
            unpaced.close().block(WAIT);
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        kafka.admin().listConsumerGroupOffsets("g-" + topic + "-unpaced").partitionsToOffsetAndMetadata().get()
                .forEach((tp, om) -> ends.put(new TopicPartition(tp.topic(), tp.partition()), om.offset()));
        assertThat(ends.values().stream().mapToLong(Long::longValue).sum())
                .as("the unpaced consumer's close() committed everything").isEqualTo(RECORDS);
    }
}
