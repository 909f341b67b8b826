package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TimeoutException;
import io.kflux.TopicPartition;
import io.kflux.network.FakeKafkaBroker;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

/**
 * No broker at the bootstrap address, and a topic a (fake) broker does not know yet. The real-broker half, a topic
 * created after the consumer started, is compat-tests' {@code BrokerAvailabilityTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrokerAvailabilityTest {

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void unreachableBrokerFailsReceiveWithTimeoutExceptionAfterDefaultApiTimeout() throws Exception {
        KafkaFluxConsumer<String, String> consumer = FakeKafkaBroker.consumer(Map.of("bootstrap.servers",
                "127.0.0.1:" + closedPort(), "auto.offset.reset", "earliest",
                "default.api.timeout.ms", 2000, "request.timeout.ms", 1000, "reconnect.backoff.ms", 50,
                "reconnect.backoff.max.ms", 200), List.of(new TopicPartition("anything", 0)));

        Duration took = StepVerifier.create(consumer.receive())
                .expectSubscription()
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(TimeoutException.class)
                        .hasMessageContaining("default.api.timeout.ms"))
                .verify(Duration.ofSeconds(8));
        assertThat(took).isBetween(Duration.ofMillis(1900), Duration.ofMillis(5000));

        // the failed subscription released the consumer: a new one fails the same way, not with IllegalStateException
        StepVerifier.create(consumer.receive())
                .expectError(TimeoutException.class)
                .verify(Duration.ofSeconds(8));
    }

    /**
     * A partition with a position (a seek) whose topic the cluster does not know: metadata is asked
     * again with retry.backoff.ms between attempts, not in a tight loop.
     */
    @Test
    void unknownTopicWithAPositionIsRetriedWithBackoff() throws Exception {
        try (FakeKafkaBroker broker = new FakeKafkaBroker()) {
            TopicPartition tp = new TopicPartition("not-there", 0);
            KafkaFluxConsumer<String, String> consumer = FakeKafkaBroker.consumer(broker.properties(
                    "retry.backoff.ms", 100), List.of(tp));
            consumer.seek(tp, 5).block(Duration.ofSeconds(5));
            List<ConsumerRecord<String, String>> received = new CopyOnWriteArrayList<>();
            AtomicReference<Throwable> error = new AtomicReference<>();
            Disposable subscription = consumer.receive().subscribe(received::add, error::set);
            try {
                Thread.sleep(500);
                int before = broker.metadataRequests.get();
                Thread.sleep(2000);
                int during = broker.metadataRequests.get() - before;
                assertThat(during).as("Metadata requests in 2 s with retry.backoff.ms=100").isBetween(5, 30);
                assertThat(error.get()).isNull();
                // and once the topic exists, it is found and read from the seeked position
                broker.topic("not-there", 1).logRange(0, 10).onFetch(ex -> {
                    if (ex.fetchOffset() == 5) {
                        ex.respond((short) 0, MalformedResponseTest.concat(MalformedResponseTest.batch(5, 2)));
                    } else {
                        ex.respondEmptyAfterMaxWait();
                    }
                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (received.size() < 2 && error.get() == null && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(received.subList(0, Math.min(2, received.size()))).as("the first two records (error: %s)",
                        error.get()).extracting(ConsumerRecord::offset).containsExactly(5L, 6L);
            } finally {
                subscription.dispose();
            }
        }
    }
}
