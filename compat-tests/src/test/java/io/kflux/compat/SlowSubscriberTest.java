package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializer;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.internal.DefaultKafkaFluxConsumer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A slow subscriber bounds what the consumer buffers: fetched-but-unemitted bytes stay at or
 * below maxBufferedBytes plus one Fetch response, however much is waiting in the topic.
 */
@KafkaTest(nodes = 1)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SlowSubscriberTest {
    private static final String TOPIC = "slow";
    private static final int PARTITIONS = 4;
    private static final int RECORDS = 100_000;
    private static final int VALUE_BYTES = 1024;
    private static final long MAX_BUFFERED = 1024 * 1024;
    private static final int FETCH_MAX_BYTES = 512 * 1024;

    @Test
    void bufferedBytesStayBoundedWhileTheSubscriberIsSlowThenEverythingArrivesInOrder(EmbeddedKafkaCluster kafka)
            throws Exception {
        kafka.createTopic(TOPIC, PARTITIONS, 1);
        produce(kafka);

        // the value deserializer keeps only the size: 100 MB of values need not sit in the test's heap
        Deserializer<Integer> size = (topic, headers, data) -> data == null ? -1 : data.remaining();
        KafkaFluxConsumer<String, Integer> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "fetch.max.bytes", FETCH_MAX_BYTES),
                        Deserializers.string(), size)
                .assignment(Kflux.partitions(TOPIC, PARTITIONS))
                .withMaxBufferedBytes(MAX_BUFFERED));
        DefaultKafkaFluxConsumer<?, ?> impl = (DefaultKafkaFluxConsumer<?, ?>) consumer;
        long bound = MAX_BUFFERED + FETCH_MAX_BYTES;

        RecordQueue<String, Integer> q = RecordQueue.subscribe(consumer.receive(), 0);
        Map<TopicPartition, Long> next = new HashMap<>();
        List<Long> samples = new ArrayList<>();
        int received = 0;
        try {
            // no demand at all for a while: the consumer prefetches up to the bound and stops
            for (int i = 0; i < 50; i++) {
                Thread.sleep(20);
                samples.add(impl.bufferedBytes());
            }
            // one record at a time, slowly
            for (int i = 0; i < 3000; i++) {
                q.request(1);
                check(q.take(1, Duration.ofSeconds(10)).get(0), next);
                received++;
                samples.add(impl.bufferedBytes());
                if (i % 100 == 0) {
                    Thread.sleep(10);
                    samples.add(impl.bufferedBytes());
                }
            }
            long max = samples.stream().mapToLong(Long::longValue).max().orElseThrow();
            assertThat(samples).as("bufferedBytes samples").hasSizeGreaterThan(3000);
            assertThat(max).as("most bytes buffered while slow (bound %d)", bound).isLessThanOrEqualTo(bound);
            // and it did prefetch: a consumer that buffered nothing would pass the bound trivially
            assertThat(max).as("most bytes buffered while slow").isGreaterThanOrEqualTo(FETCH_MAX_BYTES / 2);

            // now unbounded: everything else arrives, in order per partition, gauge still bounded
            q.request(Long.MAX_VALUE);
            long maxFast = 0;
            while (received < RECORDS) {
                for (ConsumerRecord<String, Integer> r : q.take(Math.min(1000, RECORDS - received), Duration.ofSeconds(30))) {
                    check(r, next);
                    received++;
                }
                maxFast = Math.max(maxFast, impl.bufferedBytes());
            }
            System.out.printf("bufferedBytes: max while slow %d, max at full speed %d, bound %d, samples %d%n",
                    max, maxFast, bound, samples.size());
            assertThat(maxFast).as("most bytes buffered at full speed").isLessThanOrEqualTo(bound);
            assertThat(q.drainFor(Duration.ofMillis(500))).isEmpty();
            long total = next.values().stream().mapToLong(Long::longValue).sum();
            assertThat(total).isEqualTo(RECORDS);
        } finally {
            q.dispose();
        }
    }

    /** Each partition's records arrive at consecutive offsets from 0, values intact. */
    private static void check(ConsumerRecord<String, Integer> r, Map<TopicPartition, Long> next) {
        long expected = next.getOrDefault(r.topicPartition(), 0L);
        assertThat(r.offset()).as("offset in %s", r.topicPartition()).isEqualTo(expected);
        assertThat(r.value()).isEqualTo(VALUE_BYTES);
        assertThat(r.key()).startsWith("k" + r.partition() + "-");
        next.put(r.topicPartition(), expected + 1);
    }

    private static void produce(EmbeddedKafkaCluster kafka) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(64 * 1024));
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        byte[] value = new byte[VALUE_BYTES];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (i * 7);
        }
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props, new StringSerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                int p = i % PARTITIONS;
                producer.send(new ProducerRecord<>(TOPIC, p, "k" + p + "-" + i, value));
            }
            producer.flush();
        }
    }
}
