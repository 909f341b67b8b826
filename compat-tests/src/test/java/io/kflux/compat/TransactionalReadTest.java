package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import io.kflux.internal.DefaultKafkaFluxConsumer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transaction markers are control records: they take offsets but are never emitted, and the
 * position moves past them. read_uncommitted (the default) emits committed and aborted data.
 */
@KafkaTest(nodes = 1)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactionalReadTest {
    private static final String TOPIC = "transactions";
    private static final List<TopicPartition> PARTITIONS = Kflux.partitions(TOPIC, 2);
    private static final Duration WAIT = Duration.ofSeconds(20);

    /** The official consumer's view (read_uncommitted): offset -> value, per partition. */
    private static Map<TopicPartition, List<Long>> officialOffsets;
    private static Map<TopicPartition, List<String>> officialValues;
    private static Map<TopicPartition, Long> endOffsets;

    @BeforeAll
    static void produceTransactions(EmbeddedKafkaCluster kafka) {
        kafka.createTopic(TOPIC, 2, 1);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "kflux-txn-test");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            transaction(producer, "committed-a", 5, true);
            transaction(producer, "aborted-b", 4, false);
            transaction(producer, "committed-c", 3, true);
            transaction(producer, "aborted-d", 2, false);
            transaction(producer, "committed-e", 2, true);
        }
        officialOffsets = new HashMap<>();
        officialValues = new HashMap<>();
        try (KafkaConsumer<String, String> official = official(kafka, "read_uncommitted")) {
            org.apache.kafka.common.TopicPartition p0 = new org.apache.kafka.common.TopicPartition(TOPIC, 0);
            org.apache.kafka.common.TopicPartition p1 = new org.apache.kafka.common.TopicPartition(TOPIC, 1);
            official.assign(List.of(p0, p1));
            official.seekToBeginning(List.of(p0, p1));
            int read = 0;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (read < 32 && System.nanoTime() < deadline) {
                for (var r : official.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    officialOffsets.computeIfAbsent(tp, k -> new ArrayList<>()).add(r.offset());
                    officialValues.computeIfAbsent(tp, k -> new ArrayList<>()).add(r.value());
                    read++;
                }
            }
            assertThat(read).as("records the official consumer read").isEqualTo(32);
            endOffsets = new HashMap<>();
            official.endOffsets(List.of(p0, p1)).forEach((tp, end) -> endOffsets.put(new TopicPartition(tp.topic(), tp.partition()), end));
        }
        // 5 transactions, each ending with a marker per partition: 16 data records + 5 markers each
        assertThat(endOffsets).containsEntry(PARTITIONS.get(0), 21L).containsEntry(PARTITIONS.get(1), 21L);
    }

    private static void transaction(KafkaProducer<String, String> producer, String name, int perPartition, boolean commit) {
        producer.beginTransaction();
        for (int i = 0; i < perPartition; i++) {
            for (int p = 0; p < 2; p++) {
                producer.send(new ProducerRecord<>(TOPIC, p, name + "-" + p, name + "-" + p + "-" + i));
            }
        }
        producer.flush();
        if (commit) {
            producer.commitTransaction();
        } else {
            producer.abortTransaction();
        }
    }

    private static KafkaConsumer<String, String> official(EmbeddedKafkaCluster kafka, String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    @Test
    void readUncommittedEmitsAllDataRecordsInOrderAndNoMarkers(EmbeddedKafkaCluster kafka) throws Exception {
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()), PARTITIONS);
        RecordQueue<String, String> q = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        try {
            List<ConsumerRecord<String, String>> emitted = q.take(32, WAIT);
            assertThat(q.drainFor(Duration.ofSeconds(1))).as("records after the 32 data records").isEmpty();

            Map<TopicPartition, List<Long>> offsets = Kflux.offsetsByPartition(emitted);
            Map<TopicPartition, List<String>> values = new HashMap<>();
            emitted.forEach(r -> values.computeIfAbsent(r.topicPartition(), k -> new ArrayList<>()).add(r.value()));
            assertThat(offsets).isEqualTo(officialOffsets);
            assertThat(values).isEqualTo(officialValues);
            // markers: one offset after each transaction's data, never emitted
            assertThat(offsets.get(PARTITIONS.get(0))).containsExactly(0L, 1L, 2L, 3L, 4L, 6L, 7L, 8L, 9L, 11L, 12L,
                    13L, 15L, 16L, 18L, 19L);
            assertThat(values.get(PARTITIONS.get(0))).contains("aborted-b-0-0", "aborted-d-0-1");

            // after draining, the position is past the last commit marker: the log end
            DefaultKafkaFluxConsumer<?, ?> impl = (DefaultKafkaFluxConsumer<?, ?>) consumer;
            for (TopicPartition tp : PARTITIONS) {
                awaitPosition(impl, tp, endOffsets.get(tp));
            }
            consumer.seekToEnd(PARTITIONS).block(WAIT);
            for (TopicPartition tp : PARTITIONS) {
                assertThat(impl.currentPosition(tp)).as("position of %s after seekToEnd", tp).isEqualTo(endOffsets.get(tp));
            }

            SampleData.produce(kafka.bootstrapServers(), List.of(new ProducerRecord<>(TOPIC, 1, "after", "after-markers")));
            ConsumerRecord<String, String> next = q.take(1, WAIT).get(0);
            assertThat(next.value()).isEqualTo("after-markers");
            assertThat(next.topicPartition()).isEqualTo(PARTITIONS.get(1));
            assertThat(next.offset()).isEqualTo(endOffsets.get(PARTITIONS.get(1)));
        } finally {
            q.dispose();
        }
    }

    @Test
    void readCommittedEmitsOnlyCommittedRecords(EmbeddedKafkaCluster kafka) throws Exception {
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(
                Kflux.props(kafka.bootstrapServers(), "isolation.level", "read_committed"), PARTITIONS);
        List<ConsumerRecord<String, String>> emitted = Kflux.collectUntilIdle(consumer.receive(), WAIT,
                Duration.ofSeconds(2));
        Map<TopicPartition, List<Long>> expected = new HashMap<>();
        for (TopicPartition tp : PARTITIONS) {
            List<Long> committed = new ArrayList<>();
            List<Long> offsets = officialOffsets.get(tp);
            List<String> values = officialValues.get(tp);
            for (int i = 0; i < offsets.size(); i++) {
                if (values.get(i).startsWith("committed")) {
                    committed.add(offsets.get(i));
                }
            }
            expected.put(tp, committed);
        }
        // the "after-markers" record of the other test may or may not be there, depending on order
        emitted.removeIf(r -> r.value().equals("after-markers"));
        assertThat(emitted).extracting(ConsumerRecord::value).allMatch(v -> v.startsWith("committed"));
        assertThat(Kflux.offsetsByPartition(emitted)).isEqualTo(expected);
    }

    private static void awaitPosition(DefaultKafkaFluxConsumer<?, ?> consumer, TopicPartition tp, long expected)
            throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (consumer.currentPosition(tp) != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(consumer.currentPosition(tp)).as("position of %s", tp).isEqualTo(expected);
    }
}
