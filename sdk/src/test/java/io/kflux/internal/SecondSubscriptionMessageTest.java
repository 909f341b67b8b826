package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.Ordering;
import io.kflux.ProcessingOptions;
import io.kflux.TopicPartition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** A second subscription is refused with an error naming the call whose subscription is active (issue #27). */
class SecondSubscriptionMessageTest {

    private static KafkaFluxConsumer<String, String> consumer() {
        // nothing listens there: the subscription stays active, connecting, and sends nothing
        return KafkaFluxConsumer.create(ConsumerOptions
                .create(Map.of("bootstrap.servers", "127.0.0.1:1"), Deserializers.string(), Deserializers.string())
                .assignment(List.of(new TopicPartition("t", 0))));
    }

    /** While {@code subscribe}'s subscription is active, receive() is refused with an error naming {@code call}. */
    private static void refusedNaming(java.util.function.Function<KafkaFluxConsumer<String, String>, Disposable> subscribe,
                                      String call) {
        KafkaFluxConsumer<String, String> consumer = consumer();
        Disposable running = subscribe.apply(consumer);
        try {
            StepVerifier.create(consumer.receive())
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("already has an active " + call + " subscription"))
                    .verify(Duration.ofSeconds(10));
        } finally {
            running.dispose();
            consumer.close(Duration.ofSeconds(1)).block(Duration.ofSeconds(10));
        }
    }

    @Test
    void duringProcessTheErrorNamesProcess() {
        refusedNaming(c -> c.process(ProcessingOptions.ordering(Ordering.KEY), r -> Mono.empty()).subscribe(),
                "process()");
    }

    @Test
    void duringReceivePartitionedAndReceiveTheErrorNamesThem() {
        refusedNaming(c -> c.receivePartitioned().subscribe(), "receivePartitioned()");
        refusedNaming(c -> c.receive().subscribe(), "receive()");
    }

    @Test
    void duringReceiveBatchesTheErrorNamesIt() {
        refusedNaming(c -> c.receiveBatches().subscribe(), "receiveBatches()");
    }
}
