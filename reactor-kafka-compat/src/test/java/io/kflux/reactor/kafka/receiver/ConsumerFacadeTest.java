package io.kflux.reactor.kafka.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The facade's own rules without a broker; what it answers from a broker is in compat-tests' side-by-side test. */
class ConsumerFacadeTest {

    private static ConsumerFacade<String, String> facade(KafkaFluxConsumer<String, String> consumer) {
        return new ConsumerFacade<>(consumer, ReceiverOptions.<String, String>create(Map.of("group.id", "g"))
                .subscription(List.of("t")));
    }

    private static KafkaFluxConsumer<String, String> unreachable() {
        // nothing listens on port 1: every lookup waits for a broker that never answers
        return KafkaFluxConsumer.create(ConsumerOptions.create(Map.of("bootstrap.servers", "127.0.0.1:1",
                                                                      "group.id", "g"),
                                                               Deserializers.string(), Deserializers.string())
                                                       .subscription(List.of("t")));
    }

    @Test
    void aCallWithoutAnAnswerWithinItsTimeoutThrowsKafkaClientsTimeoutException() {
        KafkaFluxConsumer<String, String> consumer = unreachable();
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> facade(consumer).committed(Set.of(new TopicPartition("t", 0)),
                                                                Duration.ofMillis(300)))
                    .isInstanceOf(org.apache.kafka.common.errors.TimeoutException.class)
                    .hasMessageContaining("300 ms");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        } finally {
            consumer.close(Duration.ofSeconds(5)).block();
        }
    }

    @Test
    void whatTheReceiverOwnsIsRefusedByName() {
        KafkaFluxConsumer<String, String> consumer = unreachable();
        try {
            ConsumerFacade<String, String> c = facade(consumer);
            assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("Consumer.poll").hasMessageContaining("receive flux");
            assertThatThrownBy(c::close).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("Consumer.close");
            assertThatThrownBy(c::metrics).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("Micrometer");
            assertThat(c.subscription()).containsExactly("t");
        } finally {
            consumer.close(Duration.ofSeconds(5)).block();
        }
    }
}
