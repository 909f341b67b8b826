package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.compat.support.KafkaCluster;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.RecordQueue;
import io.kflux.examples.broker.EmbeddedKafkaCluster;
import io.kflux.examples.broker.SampleData;
import io.kflux.fetch.FetchRequestListener;
import io.kflux.internal.DefaultKafkaFluxConsumer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Incremental fetch sessions (KIP-227) against a real broker: on a 200-partition topic where only a
 * few partitions get new data, after the first full Fetch each request lists only the partitions
 * whose fetch state changed; a broker restart (sessions lost) falls back to a full Fetch.
 */
@KafkaCluster(nodes = 1)
class FetchSessionTest {
    private static final int PARTITIONS = 200;
    private static final List<Integer> HOT = List.of(7, 42, 199);

    @Test
    void afterTheFirstFullFetchRequestsListOnlyPartitionsWithNewData(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "sessions";
        kafka.createTopic(topic, PARTITIONS, 1);
        produceToAll(kafka, topic, "first-");
        List<FetchRequestListener.Request> requests = new CopyOnWriteArrayList<>();
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(
                Kflux.props(kafka.bootstrapServers(), "fetch.max.wait.ms", "200"), Kflux.partitions(topic, PARTITIONS));
        ((DefaultKafkaFluxConsumer<?, ?>) consumer).fetchRequestListener(requests::add);
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        try {
            List<ConsumerRecord<String, String>> first = queue.take(PARTITIONS, Duration.ofSeconds(60));
            assertThat(first).extracting(ConsumerRecord::value).containsExactlyInAnyOrderElementsOf(
                    Kflux.partitions(topic, PARTITIONS).stream().map(tp -> "first-" + tp.partition()).toList());

            FetchRequestListener.Request opening = requests.get(0);
            assertThat(opening.full()).isTrue();
            assertThat(opening.sessionId()).isZero();
            assertThat(opening.sessionEpoch()).isZero();
            assertThat(opening.partitions()).hasSize(PARTITIONS);

            int mark = awaitQuiet(requests);
            List<String> expected = produceTo(kafka, topic, HOT, "hot-", 5);
            List<ConsumerRecord<String, String>> hot = queue.take(expected.size(), Duration.ofSeconds(30));
            assertInOrder(hot, expected);
            int end = awaitQuiet(requests);

            List<FetchRequestListener.Request> all = List.copyOf(requests); // a COW list's subList breaks on writes
            List<FetchRequestListener.Request> after = all.subList(mark, end);
            assertThat(after).hasSizeGreaterThanOrEqualTo(2);
            assertThat(all.subList(1, end)).as("requests after the first").noneMatch(FetchRequestListener.Request::full);
            Set<Integer> listed = new HashSet<>();
            Set<Integer> forgotten = new HashSet<>();
            for (FetchRequestListener.Request r : after) {
                assertThat(r.sessionId()).isEqualTo(after.get(0).sessionId()).isNotZero();
                r.partitions().forEach(tp -> listed.add(tp.partition()));
                r.forgotten().forEach(tp -> forgotten.add(tp.partition()));
                assertThat(r.partitions().size()).as("partitions listed in %s", r).isLessThanOrEqualTo(HOT.size());
            }
            assertThat(listed).as("partitions listed after the hot ones got data").containsExactlyInAnyOrderElementsOf(HOT);
            assertThat(HOT).containsAll(forgotten);
            assertThat(queue.drainFor(Duration.ofMillis(500))).isEmpty();
        } finally {
            queue.dispose();
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    @Test
    void aBrokerRestartLosesTheSessionAndTheConsumerGoesOnWithAFullFetch(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "sessions-restart";
        kafka.createTopic(topic, PARTITIONS, 1);
        produceToAll(kafka, topic, "before-");
        List<FetchRequestListener.Request> requests = new CopyOnWriteArrayList<>();
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(
                Kflux.props(kafka.bootstrapServers(), "fetch.max.wait.ms", "200"), Kflux.partitions(topic, PARTITIONS));
        ((DefaultKafkaFluxConsumer<?, ?>) consumer).fetchRequestListener(requests::add);
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        try {
            queue.take(PARTITIONS, Duration.ofSeconds(60));
            awaitQuiet(requests);
            int node = kafka.nodeIds().get(0);
            kafka.stop(node);
            int mark = requests.size();
            kafka.start(node);
            await(Duration.ofSeconds(60), () -> {
                List<FetchRequestListener.Request> all = List.copyOf(requests);
                // Right after the restart some partitions still answer with leader errors and wait
                // out retry.backoff.ms, so the first full fetch may list fewer than all of them.
                return all.subList(mark, all.size()).stream().anyMatch(FetchRequestListener.Request::full);
            });
            List<String> expected = produceTo(kafka, topic, HOT, "after-", 3);
            List<ConsumerRecord<String, String>> hot = queue.take(expected.size(), Duration.ofSeconds(60));
            assertInOrder(hot, expected);
            int quiet = awaitQuiet(requests);
            FetchRequestListener.Request last = List.copyOf(requests).get(quiet - 1);
            assertThat(last.full()).isFalse();
            assertThat(last.sessionId()).isNotZero();
            assertThat(queue.drainFor(Duration.ofMillis(500))).as("nothing read twice").isEmpty();
        } finally {
            queue.dispose();
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    private static void produceToAll(EmbeddedKafkaCluster kafka, String topic, String prefix) {
        try (KafkaProducer<String, String> producer = SampleData.producer(kafka.bootstrapServers())) {
            for (int p = 0; p < PARTITIONS; p++) {
                producer.send(new ProducerRecord<>(topic, p, "k", prefix + p));
            }
            producer.flush();
        }
    }

    /** {@code rounds} records to each of {@code partitions}, a flush between rounds; returns the values in order. */
    private static List<String> produceTo(EmbeddedKafkaCluster kafka, String topic, List<Integer> partitions,
                                          String prefix, int rounds) {
        List<String> values = new ArrayList<>();
        try (KafkaProducer<String, String> producer = SampleData.producer(kafka.bootstrapServers())) {
            for (int i = 0; i < rounds; i++) {
                for (int p : partitions) {
                    String value = prefix + p + "-" + i;
                    producer.send(new ProducerRecord<>(topic, p, "k", value));
                    values.add(value);
                }
                producer.flush();
            }
        }
        return values;
    }

    /** Same values, and per partition in the order produced. */
    private static void assertInOrder(List<ConsumerRecord<String, String>> records, List<String> expected) {
        assertThat(records).extracting(ConsumerRecord::value).containsExactlyInAnyOrderElementsOf(expected);
        Map<TopicPartition, List<String>> byPartition = records.stream().collect(Collectors.groupingBy(
                ConsumerRecord::topicPartition, Collectors.mapping(ConsumerRecord::value, Collectors.toList())));
        byPartition.forEach((tp, values) -> assertThat(values).isSortedAccordingTo(
                (a, b) -> Integer.compare(round(a), round(b))));
    }

    private static int round(String value) {
        return Integer.parseInt(value.substring(value.lastIndexOf('-') + 1));
    }

    /** Waits until the last three requests listed nothing (the consumer is idle); returns the request count then. */
    private static int awaitQuiet(List<FetchRequestListener.Request> requests) throws InterruptedException {
        await(Duration.ofSeconds(30), () -> {
            List<FetchRequestListener.Request> all = List.copyOf(requests);
            int n = all.size();
            return n >= 3 && all.subList(n - 3, n).stream()
                    .allMatch(r -> !r.full() && r.partitions().isEmpty() && r.forgotten().isEmpty());
        });
        return requests.size();
    }

    private static void await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout);
            }
            Thread.sleep(20);
        }
    }
}
