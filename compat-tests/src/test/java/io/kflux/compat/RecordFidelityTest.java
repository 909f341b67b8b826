package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.Header;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TimestampType;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the official producer writes, kflux emits unchanged: every compression codec, headers
 * (duplicate keys, null values), null keys and values, explicit and log-append timestamps.
 */
@Tag("smoke")
@KafkaTest(nodes = 1)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RecordFidelityTest {
    private static final int PARTITIONS = 8;
    private static final int PER_TOPIC = 400;
    private static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");

    /** What one produced record must look like when emitted. */
    record Expected(TopicPartition tp, long offset, byte[] key, byte[] value, List<Header> headers, long timestamp,
                    TimestampType timestampType) {
    }

    @Test
    void emitsExactlyWhatTheOfficialProducerWroteWithEveryCodec(EmbeddedKafkaCluster kafka) throws Exception {
        long base = System.currentTimeMillis() - Duration.ofDays(1).toMillis();
        List<Expected> expected = new ArrayList<>();
        List<TopicPartition> assignment = new ArrayList<>();
        String logAppend = "fidelity-log-append-time";
        for (String codec : CODECS) {
            kafka.createTopic("fidelity-" + codec, PARTITIONS, 1);
        }
        kafka.createTopic(logAppend, PARTITIONS, 1, Map.of("message.timestamp.type", "LogAppendTime"));
        for (String codec : CODECS) {
            String topic = "fidelity-" + codec;
            assignment.addAll(Kflux.partitions(topic, PARTITIONS));
            expected.addAll(produce(kafka, topic, codec, base, false));
        }
        assignment.addAll(Kflux.partitions(logAppend, PARTITIONS));
        expected.addAll(produce(kafka, logAppend, "lz4", base, true));

        KafkaFluxConsumer<byte[], byte[]> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers()), Deserializers.byteArray(), Deserializers.byteArray())
                .assignment(assignment));
        List<ConsumerRecord<byte[], byte[]>> emitted = Kflux.collectUntilIdle(consumer.receive(),
                Duration.ofSeconds(30), Duration.ofSeconds(2));

        assertThat(emitted).hasSize(expected.size());
        Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> byPartition = new HashMap<>();
        emitted.forEach(r -> byPartition.computeIfAbsent(r.topicPartition(), tp -> new ArrayList<>()).add(r));
        Map<TopicPartition, List<Expected>> expectedByPartition = new HashMap<>();
        expected.forEach(e -> expectedByPartition.computeIfAbsent(e.tp(), tp -> new ArrayList<>()).add(e));
        expectedByPartition.values().forEach(l -> l.sort(Comparator.comparingLong(Expected::offset)));
        assertThat(byPartition.keySet()).containsExactlyInAnyOrderElementsOf(expectedByPartition.keySet());

        for (Map.Entry<TopicPartition, List<Expected>> e : expectedByPartition.entrySet()) {
            List<ConsumerRecord<byte[], byte[]>> got = byPartition.get(e.getKey());
            List<Expected> want = e.getValue();
            assertThat(got).as("records of %s", e.getKey()).hasSameSizeAs(want);
            for (int i = 0; i < want.size(); i++) {
                Expected w = want.get(i);
                ConsumerRecord<byte[], byte[]> r = got.get(i);
                String at = w.tp() + "@" + w.offset();
                assertThat(r.offset()).as("offset order of %s", at).isEqualTo(w.offset());
                assertThat(r.key()).as("key of %s", at).isEqualTo(w.key());
                assertThat(r.value()).as("value of %s", at).isEqualTo(w.value());
                assertThat(r.serializedKeySize()).as("key size of %s", at).isEqualTo(w.key() == null ? -1 : w.key().length);
                assertThat(r.serializedValueSize()).as("value size of %s", at)
                        .isEqualTo(w.value() == null ? -1 : w.value().length);
                assertThat(r.headers().toList()).as("headers of %s", at).containsExactlyElementsOf(w.headers());
                assertThat(r.timestamp()).as("timestamp of %s", at).isEqualTo(w.timestamp());
                assertThat(r.timestampType()).as("timestamp type of %s", at).isEqualTo(w.timestampType());
                assertThat(r.leaderEpoch()).as("leader epoch of %s", at).hasValueSatisfying(ep -> assertThat(ep).isNotNegative());
            }
        }
        // duplicate header keys: lastHeader and headers(key) see both, in order
        ConsumerRecord<byte[], byte[]> withDuplicates = emitted.stream()
                .filter(r -> r.headers().headers("dup").size() == 2).findFirst().orElseThrow();
        assertThat(withDuplicates.headers().lastHeader("dup").valueAsString()).isEqualTo("second");
        assertThat(withDuplicates.headers().lastHeader("null-value").value()).isNull();
        consumer.close().block(Duration.ofSeconds(10));
    }

    private static List<Expected> produce(EmbeddedKafkaCluster kafka, String topic, String codec, long base,
                                          boolean logAppendTime) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        // A fresh topic's leader can answer NOT_LEADER_OR_FOLLOWER for a moment; an idempotent
        // producer then sometimes gets stuck on OUT_OF_ORDER_SEQUENCE_NUMBER (broker-side quirk).
        // One request in flight keeps per-partition order across retries without idempotence.
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < PER_TOPIC; i++) {
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, i % PARTITIONS, base + i * 1000L,
                        key(i), value(i), headers(i));
                records.add(record);
                sent.add(producer.send(record));
            }
            producer.flush();
            List<Expected> out = new ArrayList<>();
            for (int i = 0; i < records.size(); i++) {
                ProducerRecord<byte[], byte[]> r = records.get(i);
                RecordMetadata md = sent.get(i).get(30, TimeUnit.SECONDS);
                List<Header> headers = new ArrayList<>();
                r.headers().forEach(h -> headers.add(new Header(h.key(), h.value())));
                // with LogAppendTime the producer's metadata carries the broker's timestamp
                long timestamp = logAppendTime ? md.timestamp() : r.timestamp();
                if (logAppendTime) {
                    assertThat(timestamp).isNotEqualTo(r.timestamp());
                }
                out.add(new Expected(new TopicPartition(topic, md.partition()), md.offset(), r.key(), r.value(), headers,
                        timestamp, logAppendTime ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME));
            }
            return out;
        }
    }

    private static byte[] key(int i) {
        return i % 7 == 0 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        if (i % 11 == 0) {
            return null;
        }
        if (i % 13 == 0) {
            return new byte[0];
        }
        byte[] v = new byte[(i * 37) % 700];
        for (int j = 0; j < v.length; j++) {
            v[j] = (byte) (j % 5 == 0 ? i * 31 + j : 'a' + (j % 26));
        }
        return v;
    }

    private static List<org.apache.kafka.common.header.Header> headers(int i) {
        return switch (i % 4) {
            case 0 -> List.of();
            case 1 -> List.of(new RecordHeader("dup", "first".getBytes(StandardCharsets.UTF_8)),
                    new RecordHeader("dup", "second".getBytes(StandardCharsets.UTF_8)),
                    new RecordHeader("null-value", null));
            case 2 -> List.of(new RecordHeader("trace-id", ("trace-" + i).getBytes(StandardCharsets.UTF_8)),
                    new RecordHeader("empty", new byte[0]));
            default -> List.of(new RecordHeader("ünïcødé-key", Arrays.copyOf(new byte[] {1, 2, 3}, 1 + i % 3)));
        };
    }
}
