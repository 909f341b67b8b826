package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.KafkaTest;
import io.kflux.test.KafkaTestCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where a consumer stands: position, beginningOffsets / endOffsets and currentLag on a real broker, while a producer
 * writes and after it paused.
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

    private static boolean caughtUp(KafkaFluxConsumer<?, ?> consumer, List<TopicPartition> tps,
                                    Map<TopicPartition, Long> ends) {
        return tps.stream().allMatch(tp -> consumer.currentLag(tp).equals(OptionalLong.of(0L))
                && consumer.position(tp).block(WAIT).equals(ends.get(tp)));
    }
}
