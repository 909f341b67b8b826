package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TimeoutException;
import io.kflux.TopicPartition;
import io.kflux.compat.support.FakeKafkaBroker;
import io.kflux.compat.support.KafkaCluster;
import io.kflux.compat.support.RecordQueue;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;

/** No broker at the bootstrap address, and a topic that does not exist (yet). */
@KafkaCluster(nodes = 1)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrokerAvailabilityTest {

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void unreachableBrokerFailsReceiveWithTimeoutExceptionAfterDefaultApiTimeout() throws Exception {
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props("127.0.0.1:" + closedPort(),
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
            KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(broker.bootstrapServers(),
                    "retry.backoff.ms", 100), List.of(tp));
            consumer.seek(tp, 5).block(Duration.ofSeconds(5));
            RecordQueue<String, String> q = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
            try {
                Thread.sleep(500);
                int before = broker.metadataRequests.get();
                Thread.sleep(2000);
                int during = broker.metadataRequests.get() - before;
                assertThat(during).as("Metadata requests in 2 s with retry.backoff.ms=100").isBetween(5, 30);
                assertThat(q.error()).isNull();
                // and once the topic exists, it is found and read from the seeked position
                broker.topic("not-there", 1).logRange(0, 10).onFetch(ex -> {
                    if (ex.fetchOffset() == 5) {
                        ex.respond((short) 0, MalformedResponseTest.concat(MalformedResponseTest.batch(5, 2)));
                    } else {
                        ex.respondEmptyAfterMaxWait();
                    }
                });
                assertThat(q.take(2, Duration.ofSeconds(10))).extracting(ConsumerRecord::offset).containsExactly(5L, 6L);
            } finally {
                q.dispose();
            }
        }
    }

    /**
     * Decided behaviour: an assigned partition of a topic that does not exist is not an error. The
     * consumer logs it and keeps asking for metadata (ListOffsets for the reset retries with
     * retry.backoff.ms); once the topic is created, its records are emitted.
     */
    @Test
    void missingTopicIsWaitedForNotAnError(EmbeddedKafkaCluster kafka) {
        String topic = "created-later";
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "default.api.timeout.ms", 2000), List.of(new TopicPartition(topic, 0)));

        StepVerifier.create(consumer.receive().map(ConsumerRecord::value))
                .expectSubscription()
                .expectNoEvent(Duration.ofSeconds(4)) // twice default.api.timeout.ms: still no error
                .then(() -> {
                    kafka.createTopic(topic, 1, 1);
                    SampleData.produce(kafka.bootstrapServers(), List.of(new ProducerRecord<>(topic, 0, "k", "first")));
                })
                .expectNext("first")
                .thenCancel()
                .verify(Duration.ofSeconds(30));
    }
}
