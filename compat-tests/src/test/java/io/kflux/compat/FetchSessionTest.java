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
import io.kflux.network.BrokerConnection;
import io.kflux.network.NetworkOptions;
import io.kflux.protocol.Errors;
import io.kflux.protocol.Types;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FetchResponse;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Incremental fetch sessions (KIP-227) against a real broker: on a 200-partition topic where only a
 * few partitions get new data, after the first full Fetch each request lists only the partitions
 * whose fetch state changed; a broker restart (sessions lost) falls back to a full Fetch; closing the
 * consumer closes its session on the broker (epoch -1); a broker's throttle time (KIP-219) holds
 * back the next Fetch to it.
 */
@Tag("smoke")
@KafkaTest(nodes = 1, isolated = true) // stops and restarts its broker; sets client quotas
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

    @Test
    void closingTheConsumerClosesItsFetchSessionOnTheBroker(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "sessions-close";
        kafka.createTopic(topic, 1, 1);
        List<String> expected = produceTo(kafka, topic, List.of(0), "v-", 5);
        List<FetchRequestListener.Request> requests = new CopyOnWriteArrayList<>();
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(
                Kflux.props(kafka.bootstrapServers(), "fetch.max.wait.ms", "200"), Kflux.partitions(topic, 1));
        ((DefaultKafkaFluxConsumer<?, ?>) consumer).fetchRequestListener(requests::add);
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        try {
            assertInOrder(queue.take(expected.size(), Duration.ofSeconds(60)), expected);
            awaitQuiet(requests);
        } finally {
            queue.dispose();
            consumer.close().block(Duration.ofSeconds(30));
        }
        List<FetchRequestListener.Request> all = List.copyOf(requests);
        FetchRequestListener.Request last = all.stream().filter(r -> r.sessionEpoch() > 0).reduce((a, b) -> b)
                .orElseThrow();
        assertThat(all).as("a final Fetch closes the session").anyMatch(r -> r.sessionId() == last.sessionId()
                && r.sessionEpoch() == FetchRequest.FINAL_SESSION_EPOCH && r.partitions().isEmpty());

        UUID topicId = topicId(kafka, topic);
        BrokerConnection raw = BrokerConnection.connect(kafka.address(kafka.nodeIds().get(0)).split(":")[0],
                Integer.parseInt(kafka.address(kafka.nodeIds().get(0)).split(":")[1]), io.kflux.internal.ClientSettings.of(java.util.Map.of("bootstrap.servers", "localhost:9092", "client.id", "kflux")).network())
                .block(Duration.ofSeconds(30));
        try {
            // control: a session this test opens itself answers its next epoch
            FetchResponse opened = raw.exchange(rawFetch(0, 0, List.of(new FetchRequest.FetchTopic(topic, topicId,
                    List.of(new FetchRequest.FetchPartition(0, -1, 0L, -1, -1L, 1024, Types.ZERO_UUID,
                            FetchRequest.HIGH_WATERMARK_UNSUPPORTED))))))
                    .block(Duration.ofSeconds(30));
            opened.release();
            assertThat(opened.sessionId()).isNotZero();
            FetchResponse live = raw.exchange(rawFetch(opened.sessionId(), 1, List.of())).block(Duration.ofSeconds(30));
            live.release();
            assertThat(Errors.forCode(live.errorCode())).isEqualTo(Errors.NONE);

            FetchResponse closed = raw.exchange(rawFetch(last.sessionId(), last.sessionEpoch() + 1, List.of()))
                    .block(Duration.ofSeconds(30));
            closed.release();
            assertThat(Errors.forCode(closed.errorCode())).as("the consumer's session after close")
                    .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        } finally {
            raw.close().block(Duration.ofSeconds(10));
        }
    }

    @Test
    void aThrottledBrokerGetsNoFetchBeforeTheThrottleTimeHasPassed(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "throttled";
        String clientId = "kflux-throttled";
        kafka.createTopic(topic, 1, 1);
        kafka.admin().alterClientQuotas(List.of(new ClientQuotaAlteration(
                        new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, clientId)),
                        List.of(new ClientQuotaAlteration.Op("consumer_byte_rate", 8_192.0)))))
                .all().get(30, TimeUnit.SECONDS);
        List<String> expected = new ArrayList<>();
        try (KafkaProducer<String, String> producer = SampleData.producer(kafka.bootstrapServers())) {
            String pad = "x".repeat(1000);
            for (int i = 0; i < 120; i++) {
                String value = "t-0-" + i;
                producer.send(new ProducerRecord<>(topic, 0, pad, value));
                expected.add(value);
            }
            producer.flush();
        }
        Thread.sleep(1000); // quotas reach the broker through the metadata log
        record Sent(long nanos, FetchRequestListener.Request request) {
        }
        record Throttle(long nanos, int nodeId, int ms) {
        }
        List<Sent> sent = new CopyOnWriteArrayList<>();
        List<Throttle> throttles = new CopyOnWriteArrayList<>();
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "client.id", clientId, "fetch.max.wait.ms", "200", "max.partition.fetch.bytes", "4096"),
                Kflux.partitions(topic, 1));
        ((DefaultKafkaFluxConsumer<?, ?>) consumer).fetchRequestListener(new FetchRequestListener() {
            @Override
            public void onRequest(Request request) {
                sent.add(new Sent(System.nanoTime(), request));
            }

            @Override
            public void onThrottle(int nodeId, int throttleMs) {
                throttles.add(new Throttle(System.nanoTime(), nodeId, throttleMs));
            }
        });
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        try {
            assertInOrder(queue.take(expected.size(), Duration.ofSeconds(60)), expected);
        } finally {
            queue.dispose();
            consumer.close().block(Duration.ofSeconds(30));
        }
        // the broker measures the rate over at least 10 s: 120 KB is above 8 KB/s
        assertThat(throttles).as("the broker throttled the consumer").isNotEmpty();
        for (Throttle t : throttles) {
            long end = t.nanos() + t.ms() * 1_000_000L;
            assertThat(sent).as("Fetches to node %d within %d ms of a throttle seen at %d ns", t.nodeId(), t.ms(),
                            t.nanos())
                    .noneMatch(s -> s.request().nodeId() == t.nodeId() && s.nanos() > t.nanos() && s.nanos() < end
                            && s.request().sessionEpoch() != FetchRequest.FINAL_SESSION_EPOCH);
        }
    }

    private static FetchRequest rawFetch(int sessionId, int epoch, List<FetchRequest.FetchTopic> topics) {
        return new FetchRequest(null, FetchRequest.CONSUMER_REPLICA_ID, FetchRequest.ReplicaState.CONSUMER, 0, 1,
                1 << 20, (byte) 0, sessionId, epoch, topics, List.of(), "");
    }

    private static UUID topicId(EmbeddedKafkaCluster kafka, String topic) throws Exception {
        Uuid id = kafka.admin().describeTopics(Set.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .topicId();
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
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
