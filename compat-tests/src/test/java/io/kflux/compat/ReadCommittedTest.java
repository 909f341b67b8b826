package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** isolation.level with the official transactional producer: committed and aborted transactions interleaved. */
@Tag("smoke")
@KafkaTest(nodes = 1) // a single node's transaction log has replication factor and min ISR 1 (BrokerProperties)
class ReadCommittedTest {

    /** Writes to partition 0: plain records, then transactions t0..t9, odd ones aborted; returns the committed values in order. */
    private static List<String> produceInterleaved(String bootstrap, String topic) {
        List<String> expectedCommitted = new ArrayList<>();
        Properties plain = new Properties();
        plain.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, String> p = new KafkaProducer<>(plain, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 5; i++) {
                p.send(new ProducerRecord<>(topic, 0, "k", "plain-" + i));
                expectedCommitted.add("plain-" + i);
            }
            p.flush();
        }
        Properties tx = new Properties();
        tx.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        tx.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-" + topic);
        Properties tx2 = new Properties();
        tx2.putAll(tx);
        tx2.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx2-" + topic);
        try (KafkaProducer<String, String> a = new KafkaProducer<>(tx, new StringSerializer(), new StringSerializer());
             KafkaProducer<String, String> b = new KafkaProducer<>(tx2, new StringSerializer(), new StringSerializer())) {
            a.initTransactions();
            b.initTransactions();
            for (int t = 0; t < 10; t++) {
                // Two producers' transactions overlap on one partition: aborted data sits between committed data.
                a.beginTransaction();
                b.beginTransaction();
                for (int i = 0; i < 3; i++) {
                    a.send(new ProducerRecord<>(topic, 0, "k", "a" + t + "-" + i));
                    b.send(new ProducerRecord<>(topic, 0, "k", "b" + t + "-" + i));
                }
                a.flush();
                b.flush();
                if (t % 2 == 0) {
                    a.commitTransaction();
                    b.abortTransaction();
                    for (int i = 0; i < 3; i++) {
                        expectedCommitted.add("a" + t + "-" + i);
                    }
                } else {
                    a.abortTransaction();
                    b.commitTransaction();
                    for (int i = 0; i < 3; i++) {
                        expectedCommitted.add("b" + t + "-" + i);
                    }
                }
            }
        }
        return expectedCommitted;
    }

    @Test
    void readCommittedEmitsExactlyTheCommittedRecordsInOrderAndReadUncommittedEmitsAllData(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("tx", 1, 1);
        List<String> committed = produceInterleaved(kafka.bootstrapServers(), "tx");
        TopicPartition tp = new TopicPartition("tx", 0);

        KafkaFluxConsumer<String, String> rc = Kflux.strings(
                Kflux.props(kafka.bootstrapServers(), "isolation.level", "read_committed"), List.of(tp));
        List<ConsumerRecord<String, String>> got = Kflux.collectUntilIdle(rc.receive(), Duration.ofSeconds(20), Duration.ofSeconds(3));
        List<String> values = got.stream().map(ConsumerRecord::value).toList();
        // Committed transactions' records may interleave by producer, so compare per producer order and as a set.
        assertThat(values).containsExactlyInAnyOrderElementsOf(committed);
        assertThat(values.stream().filter(v -> v.startsWith("a")).toList())
                .isEqualTo(committed.stream().filter(v -> v.startsWith("a")).toList());
        assertThat(values.stream().filter(v -> v.startsWith("b")).toList())
                .isEqualTo(committed.stream().filter(v -> v.startsWith("b")).toList());
        assertThat(got).extracting(ConsumerRecord::offset).isSorted();

        KafkaFluxConsumer<String, String> ru = Kflux.strings(Kflux.props(kafka.bootstrapServers()), List.of(tp));
        List<ConsumerRecord<String, String>> all = Kflux.collectUntilIdle(ru.receive(), Duration.ofSeconds(20), Duration.ofSeconds(3));
        // 5 plain + 10 transactions x 2 producers x 3 records, no control records.
        assertThat(all).hasSize(5 + 60);
        assertThat(all).extracting(ConsumerRecord::offset).isSorted();
    }
}
