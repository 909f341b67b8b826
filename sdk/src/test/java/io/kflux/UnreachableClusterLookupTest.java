package io.kflux;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

/**
 * The offset lookups' documented error when no bootstrap broker answers: {@link TimeoutException} after
 * {@code default.api.timeout.ms} (KafkaFluxConsumer's Javadoc, the guide's Errors table). Broker-free: nothing
 * listens on port 1 of the loopback address.
 */
@Timeout(60)
class UnreachableClusterLookupTest {

    @Test
    void lookupsEndWithTimeoutExceptionAfterTheApiTimeout() {
        TopicPartition tp = new TopicPartition("lookup-unreachable", 0);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                Map.of("bootstrap.servers", "127.0.0.1:1", "default.api.timeout.ms", 2000),
                Deserializers.string(), Deserializers.string()).assignment(List.of(tp)));
        try {
            List<Supplier<Mono<?>>> lookups = List.of(
                    () -> consumer.beginningOffsets(List.of(tp)),
                    () -> consumer.endOffsets(List.of(tp)),
                    () -> consumer.offsetsForTimes(Map.of(tp, 0L)),
                    () -> consumer.seekToEnd(List.of(tp)));
            for (Supplier<Mono<?>> lookup : lookups) {
                assertThatThrownBy(() -> lookup.get().block(Duration.ofSeconds(30)))
                        .isInstanceOf(TimeoutException.class);
            }
        } finally {
            consumer.close().block(Duration.ofSeconds(10));
        }
    }
}
