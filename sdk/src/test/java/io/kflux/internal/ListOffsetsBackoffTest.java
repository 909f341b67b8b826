package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.network.FakeKafkaBroker;
import io.kflux.protocol.Errors;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

/**
 * ListOffsets answered with a leader error: the position lookup retries after a wait that doubles from
 * {@code retry.backoff.ms} up to {@code retry.backoff.max.ms} (KIP-580, as the official client), refreshing metadata
 * before each retry, and finds its position once the leader answers. At a fixed {@code retry.backoff.ms} a consumer
 * sent about ten ListOffsets and ten Metadata requests a second for as long as the error lasted (issue #28's scale
 * case: 1,000 consumers starting while their partitions' leaders were elected).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ListOffsetsBackoffTest {
    private static final TopicPartition TP = new TopicPartition("backoff", 0);

    @Test
    void leaderErrorsAreRetriedWithADoublingBackoffAndThePositionIsFoundOnceTheLeaderAnswers() throws Exception {
        try (FakeKafkaBroker broker = new FakeKafkaBroker().topic(TP.topic(), 1).logRange(0, 42)) {
            broker.listOffsetsError = Errors.NOT_LEADER_OR_FOLLOWER.code();
            KafkaFluxConsumer<String, String> consumer = FakeKafkaBroker.consumer(broker.properties(
                    "auto.offset.reset", "latest", "retry.backoff.ms", 100, "retry.backoff.max.ms", 800), List.of(TP));
            Disposable subscription = consumer.receive().subscribe();
            try {
                waitFor(Duration.ofSeconds(20), () -> broker.listOffsetsRequests.get() >= 2);
                long start = System.nanoTime();
                int asked = broker.listOffsetsRequests.get();
                int metadata = broker.metadataRequests.get();
                // 3 s of leader errors: waits of 100, 200, 400, 800, 800... ms (+/-20 %) allow about 5 more lookups
                // from the second; a fixed 100 ms allowed about 30
                Thread.sleep(3_000); // a stretch of errors to count retries in, not a wait for a condition
                double seconds = (System.nanoTime() - start) / 1e9;
                int retries = broker.listOffsetsRequests.get() - asked;
                assertThat(retries).as("ListOffsets retries in %.1f s of leader errors", seconds)
                        .isBetween(1, (int) Math.ceil(seconds / 0.64) + 2);
                assertThat(broker.metadataRequests.get() - metadata).as("Metadata refreshes, one per retry at most")
                        .isLessThanOrEqualTo(retries + 2);

                broker.listOffsetsError = 0;
                // the next retry is at most retry.backoff.max.ms (+20 %) away
                waitFor(Duration.ofSeconds(10),
                        () -> ((DefaultKafkaFluxConsumer<?, ?>) consumer).currentPosition(TP) == 42L);
            } finally {
                subscription.dispose();
                consumer.close().block(Duration.ofSeconds(30));
            }
        }
    }

    private static void waitFor(Duration atMost, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waited %s for the condition", atMost).isNegative();
            Thread.sleep(20);
        }
    }
}
