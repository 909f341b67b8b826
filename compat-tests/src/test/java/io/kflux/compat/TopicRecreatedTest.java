package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.LogCapture;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

/**
 * A subscribed topic deleted and created again under the same name gets a new topic id. Kafka 4.2+ brokers name
 * topics by id in OffsetCommit/OffsetFetch (v10), so commits sent with the old id are answered UNKNOWN_TOPIC_ID;
 * kflux looks the id up again and goes on. The fetcher notices the new id in metadata and resets the partitions
 * by {@code auto.offset.reset} (the official consumer gets there once its old position is out of range): every
 * record of the new topic is consumed and its offsets are committed under the new topic, and no record of the old
 * topic comes again.
 */
@Tag("smoke")
@KafkaTest(nodes = 1)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TopicRecreatedTest {
    private static final String TOPIC = "again";
    private static final String GROUP = "recreated";

    @Test
    void aTopicCreatedAgainIsConsumedFromItsStartAndCommittedUnderItsNewId(EmbeddedKafkaCluster kafka) throws Exception {
        Admin admin = kafka.admin();
        kafka.createTopic(TOPIC, 2, 1);
        Uuid firstId = topicId(admin);
        SampleData.produce(kafka.bootstrapServers(), TOPIC, 100);

        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "group.id", GROUP,
                "auto.offset.reset", "earliest", "auto.commit.interval.ms", "200");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.create(props, Deserializers.string(), Deserializers.string()).subscription(List.of(TOPIC)));
        List<String> received = new CopyOnWriteArrayList<>();
        LogCapture log = new LogCapture("io.kflux");
        Disposable running = consumer.receive()
                .doOnNext(r -> received.add(r.value()))
                .doOnNext(ConsumerRecord::acknowledge)
                .subscribe();
        try {
            await(() -> received.size() >= 100, "the first topic's 100 records");
            await(() -> committed(admin) == 100, "offsets 100 committed for the first topic");

            admin.deleteTopics(List.of(TOPIC)).all().get(30, TimeUnit.SECONDS);
            await(() -> !topicExists(admin), "the topic deleted");
            kafka.createTopic(TOPIC, 2, 1);
            Uuid secondId = topicId(admin);
            assertThat(secondId).as("a topic created again has a new id").isNotEqualTo(firstId);
            int before = received.size();

            List<ProducerRecord<String, String>> after = new ArrayList<>();
            IntStream.range(0, 60).forEach(i -> after.add(new ProducerRecord<>(TOPIC, "k-" + i, "after-" + i)));
            SampleData.produce(kafka.bootstrapServers(), after);

            List<String> expected = IntStream.range(0, 60).mapToObj(i -> "after-" + i).toList();
            await(() -> received.containsAll(expected), "every record of the topic created again (broker "
                    + BrokerVersion.current() + ")");
            assertThat(received.subList(before, received.size())).as("nothing of the old topic again")
                    .allSatisfy(v -> assertThat(v).startsWith("after-"));
            await(() -> committed(admin) == 60, "offsets committed under the new topic add up to its 60 records");
            // Either the fetcher sees the new id while the partitions stay assigned (one WARN per partition, then a
            // reset), or the group first drops the deleted topic and assigns the new one afresh (no committed offset:
            // auto.offset.reset): both start the new topic from its beginning. Never a log truncation.
            assertThat(log.matching(m -> m.contains("deleted and created again"))).as("at most once per partition")
                    .hasSizeLessThanOrEqualTo(2);
            assertThat(log.matching(m -> m.contains("truncation"))).as("a new topic is not a truncated log").isEmpty();
        } finally {
            log.close();
            running.dispose();
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    private static Uuid topicId(Admin admin) throws Exception {
        return admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC).topicId();
    }

    private static boolean topicExists(Admin admin) {
        try {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(TOPIC);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static long committed(Admin admin) {
        try {
            Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(GROUP)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            return offsets.entrySet().stream().filter(e -> e.getKey().topic().equals(TOPIC) && e.getValue() != null)
                    .mapToLong(e -> e.getValue().offset()).sum();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 60 s: " + what);
            }
            Thread.sleep(100);
        }
    }
}
