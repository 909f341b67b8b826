package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.KafkaTest;
import io.kflux.test.KafkaTestCluster;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Where a consumer stands: position, beginningOffsets / endOffsets, currentLag and the records.lag meter on a real
 * broker, while a producer writes and after it paused, while records wait and once they are consumed, and after
 * receive() ended; under a manual assignment and under both group protocols (API.md, "Where a consumer stands").
 */
@KafkaTest(topics = "standing:2") // the user-facing test kit, on the broker version under test (BrokerVersionSession)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ConsumerStandingTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void positionEndOffsetsAndLagWhileAProducerRunsAndAfterItPaused(KafkaTestCluster kafka) throws Exception {
        List<TopicPartition> tps = Kflux.partitions("standing", 2);
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "fetch.max.wait.ms", 100), tps);
        ContinuousProducer producer = new ContinuousProducer(kafka.bootstrapServers(), "standing", 2, 400, "v");
        RecordQueue<String, String> q = RecordQueue.subscribe(consumer.receive(), 0);
        try {
            // Right after subscribing the start is being decided (auto.offset.reset=earliest): position waits for it.
            for (TopicPartition tp : tps) {
                assertThat(consumer.position(tp).block(WAIT)).as("start of %s", tp).isZero();
            }
            q.request(60);
            List<ConsumerRecord<String, String>> first = q.take(60, WAIT);
            // No more demand: nothing else is emitted, so the position is one past the last record emitted.
            Map<TopicPartition, Long> emitted = new HashMap<>();
            first.forEach(r -> emitted.put(r.topicPartition(), r.offset() + 1));
            for (TopicPartition tp : tps) {
                assertThat(consumer.position(tp).block(WAIT)).as("position of %s", tp)
                        .isEqualTo(emitted.getOrDefault(tp, 0L));
            }
            assertThat(consumer.beginningOffsets(tps).block(WAIT)).containsOnly(Map.entry(tps.get(0), 0L),
                    Map.entry(tps.get(1), 0L));

            // The producer goes on: the log's end moves away from the position, and so does the lag.
            Thread.sleep(500);
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps).block(WAIT);
            for (TopicPartition tp : tps) {
                long position = consumer.position(tp).block(WAIT);
                assertThat(ends.get(tp)).as("end of %s while producing", tp).isGreaterThan(position);
                OptionalLong lag = consumer.currentLag(tp);
                assertThat(lag).as("lag of %s from the last Fetch answer", tp).isPresent();
                // the last Fetch answer is older than the ListOffsets answer: its end can only be lower. It may be
                // the answer that brought the last records emitted: a partition at its end whose result waits for
                // demand is not fetched again until that result is emitted (FetchPlanner.isHeldBack), so this lag
                // may still be 0 while endOffsets shows the end moved on (the official client, not polled, is the same)
                assertThat(lag.getAsLong()).isNotNegative().isLessThanOrEqualTo(ends.get(tp) - position);
            }

            // Paused producer: once everything is read, the position is the end and the lag is 0.
            producer.stop();
            Map<TopicPartition, Long> finalEnds = consumer.endOffsets(tps).block(WAIT);
            q.request(Long.MAX_VALUE);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline && !caughtUp(consumer, tps, finalEnds)) {
                q.drainFor(Duration.ofMillis(100));
            }
            for (TopicPartition tp : tps) {
                assertThat(consumer.position(tp).block(WAIT)).as("position of %s after the pause", tp)
                        .isEqualTo(finalEnds.get(tp));
                assertThat(consumer.currentLag(tp)).as("lag of %s after the pause", tp).hasValue(0L);
            }
            assertThat(consumer.endOffsets(tps).block(WAIT)).isEqualTo(finalEnds);

            TopicPartition other = new TopicPartition("standing", 7);
            assertThat(consumer.currentLag(other)).as("not assigned").isEmpty();
            assertThatThrownBy(() -> consumer.position(other).block(WAIT)).isInstanceOf(IllegalStateException.class);
        } finally {
            producer.close();
            q.dispose();
            consumer.close().block(WAIT);
        }
        assertThat(consumer.currentLag(tps.get(0))).as("after close").isEmpty();
        assertThatThrownBy(() -> consumer.position(tps.get(0)).block(WAIT)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> consumer.endOffsets(tps).block(WAIT)).isInstanceOf(IllegalStateException.class);
    }

    /** Records written to each partition before consuming: far more than one Fetch brings (see lagProps). */
    private static final int PER_PARTITION = 2_000;
    private static final String LAG_METER = "kafka.consumer.fetch.manager.records.lag";

    /**
     * While records wait (few requested, many written, fetched a little at a time), currentLag and the records.lag
     * meter are above 0 and agree with endOffsets minus position; once all are consumed both are 0. Under a group
     * subscription currentLag stayed empty and position never completed before issue #25's fix (the group's
     * partition states were never published to the lookups), so the "classic" and "consumer" runs failed then.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"assignment", "classic", "consumer"})
    void lagIsAboveZeroWhileRecordsWaitAndZeroOnceConsumed(String mode, KafkaTestCluster kafka) throws Exception {
        String topic = "waiting-" + mode;
        List<TopicPartition> tps = writtenTopic(kafka, mode, topic);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        KafkaFluxConsumer<String, String> consumer = create(kafka, mode, topic, tps, registry);
        RecordQueue<String, String> q = RecordQueue.subscribe(consumer.receive(), 0);
        try {
            awaitAssigned(consumer, tps);
            for (TopicPartition tp : tps) {
                assertThat(consumer.position(tp).block(WAIT)).as("start of %s", tp).isZero();
            }
            assertThat(consumer.beginningOffsets(tps).block(WAIT)).containsOnly(Map.entry(tps.get(0), 0L),
                    Map.entry(tps.get(1), 0L));
            assertThat(consumer.endOffsets(tps).block(WAIT)).containsOnly(
                    Map.entry(tps.get(0), (long) PER_PARTITION), Map.entry(tps.get(1), (long) PER_PARTITION));

            q.request(30);
            List<ConsumerRecord<String, String>> first = q.take(30, WAIT);
            Map<TopicPartition, Long> emitted = new HashMap<>();
            first.forEach(r -> emitted.merge(r.topicPartition(), r.offset() + 1, Math::max));
            // Both partitions were fetched while demand lasted; one may have been answered after the last record
            // was taken: wait for each to have a Fetch answer (no record is emitted meanwhile: no demand).
            GroupKit.await("a Fetch answer for every partition", WAIT,
                    () -> tps.stream().allMatch(tp -> consumer.currentLag(tp).isPresent()));
            assertThat(q.drainFor(Duration.ofMillis(200))).as("nothing past the demand").isEmpty();
            for (TopicPartition tp : tps) {
                long position = consumer.position(tp).block(WAIT);
                assertThat(position).as("position of %s", tp).isEqualTo(emitted.getOrDefault(tp, 0L));
                // every record was written before the first Fetch, so the last answer's end is the end
                long expected = PER_PARTITION - position;
                assertThat(consumer.currentLag(tp)).as("lag of %s while records wait", tp).hasValue(expected);
                assertThat(expected).isPositive();
                assertThat(lagMeter(registry, tp)).as("records.lag of %s while records wait", tp)
                        .isEqualTo((double) expected);
            }

            q.request(Long.MAX_VALUE);
            List<ConsumerRecord<String, String>> rest = q.take(2 * PER_PARTITION - first.size(), WAIT);
            List<ConsumerRecord<String, String>> all = new ArrayList<>(first);
            all.addAll(rest);
            assertThat(Kflux.offsetsByPartition(all).values()).allMatch(offsets -> offsets.size() == PER_PARTITION);
            for (TopicPartition tp : tps) {
                assertThat(consumer.position(tp).block(WAIT)).as("position of %s once consumed", tp)
                        .isEqualTo(PER_PARTITION);
                assertThat(consumer.currentLag(tp)).as("lag of %s once consumed", tp).hasValue(0L);
                assertThat(lagMeter(registry, tp)).as("records.lag of %s once consumed", tp).isZero();
            }
            assertThat(consumer.endOffsets(tps).block(WAIT)).containsOnly(
                    Map.entry(tps.get(0), (long) PER_PARTITION), Map.entry(tps.get(1), (long) PER_PARTITION));

            TopicPartition other = new TopicPartition(topic, 7);
            assertThat(consumer.currentLag(other)).as("not assigned").isEmpty();
            assertThatThrownBy(() -> consumer.position(other).block(WAIT)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("No current assignment for partition");
        } finally {
            q.dispose();
            consumer.close().block(WAIT);
        }
    }

    /**
     * After receive() ended (cancelled here, as take(n) does), assignment(), position and currentLag say the same
     * thing (KafkaFluxConsumer's description): under a group nothing is owned, and position fails with
     * IllegalStateException saying why; under a manual assignment the partitions stay assigned, position is where the
     * next receive() starts and the lag is the last known end minus it. Before issue #25's fix a group consumer kept
     * listing partitions while position completed empty (position(tp).block() threw NullPointerException).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"assignment", "classic", "consumer"})
    void afterReceiveEndedAssignmentPositionAndLagAgree(String mode, KafkaTestCluster kafka) throws Exception {
        String topic = "ended-" + mode;
        List<TopicPartition> tps = writtenTopic(kafka, mode, topic);
        KafkaFluxConsumer<String, String> consumer = create(kafka, mode, topic, tps, null);
        try {
            List<ConsumerRecord<String, String>> taken = consumer.receive().take(50).collectList().block(WAIT);
            Map<TopicPartition, Long> emitted = new HashMap<>();
            taken.forEach(r -> emitted.merge(r.topicPartition(), r.offset() + 1, Math::max));
            TopicPartition tp = taken.get(0).topicPartition();
            if (mode.equals("assignment")) {
                // the same answers while the ended receive() shuts down and after
                long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
                do {
                    assertThat(consumer.assignment()).containsExactlyInAnyOrderElementsOf(tps);
                    assertThat(consumer.position(tp).block(WAIT)).isEqualTo(emitted.get(tp));
                    assertThat(consumer.currentLag(tp)).hasValue(PER_PARTITION - emitted.get(tp));
                } while (System.nanoTime() < deadline);
                consumer.seek(tp, 5).block(WAIT);
                assertThat(consumer.position(tp).block(WAIT)).as("where the next receive() starts").isEqualTo(5L);
                assertThat(consumer.currentLag(tp)).hasValue(PER_PARTITION - 5L);
                assertThat(consumer.receive().take(1).blockFirst(WAIT).offset()).isEqualTo(5L);
            } else {
                GroupKit.await("the member gave its partitions up", WAIT, () -> consumer.assignment().isEmpty());
                assertThat(consumer.currentLag(tp)).isEmpty();
                assertThatThrownBy(() -> consumer.position(tp).block(WAIT)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("receive() is not running");
            }
        } finally {
            consumer.close().block(WAIT);
        }
    }

    /** A topic of 2 partitions with {@value #PER_PARTITION} records each; skips {@code consumer} on brokers before 4.0. */
    private static List<TopicPartition> writtenTopic(KafkaTestCluster kafka, String mode, String topic) {
        assumeTrue(!mode.equals("consumer") || BrokerVersion.current().atLeast(4, 0),
                "group.protocol=consumer needs a 4.0+ broker");
        List<TopicPartition> tps = kafka.createTopic(topic, 2);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (TopicPartition tp : tps) {
            for (int i = 0; i < PER_PARTITION; i++) {
                records.add(new ProducerRecord<>(topic, tp.partition(), "k", "value-" + i));
            }
        }
        kafka.produce(records);
        return tps;
    }

    /**
     * A manual assignment, or a group subscription under {@code mode} as group.protocol. A Fetch brings at most 2 KiB
     * per partition, so records wait in the log as well as in the buffer while the subscriber requests few.
     */
    private static KafkaFluxConsumer<String, String> create(KafkaTestCluster kafka, String mode, String topic,
                                                            List<TopicPartition> tps, SimpleMeterRegistry registry) {
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "fetch.max.wait.ms", 100,
                "max.partition.fetch.bytes", 2048);
        if (!mode.equals("assignment")) {
            props.put("group.id", "standing-" + topic);
            props.put("group.protocol", mode);
        }
        ConsumerOptions<String, String> options = ConsumerOptions.create(props, Deserializers.string(),
                Deserializers.string());
        if (registry != null) {
            options = options.withMeterRegistry(registry);
        }
        options = mode.equals("assignment") ? options.assignment(tps) : options.subscription(List.of(topic));
        return KafkaFluxConsumer.create(options);
    }

    private static void awaitAssigned(KafkaFluxConsumer<?, ?> consumer, List<TopicPartition> tps) {
        GroupKit.await("every partition assigned", WAIT, () -> consumer.assignment().containsAll(tps));
    }

    private static double lagMeter(SimpleMeterRegistry registry, TopicPartition tp) {
        Gauge gauge = registry.find(LAG_METER).tag("topic", tp.topic())
                .tag("partition", Integer.toString(tp.partition())).gauge();
        assertThat(gauge).as("%s of %s", LAG_METER, tp).isNotNull();
        return gauge.value();
    }

    private static boolean caughtUp(KafkaFluxConsumer<?, ?> consumer, List<TopicPartition> tps,
                                    Map<TopicPartition, Long> ends) {
        return tps.stream().allMatch(tp -> consumer.currentLag(tp).equals(OptionalLong.of(0L))
                && consumer.position(tp).block(WAIT).equals(ends.get(tp)));
    }
}
