package io.kflux.compat;

import static io.kflux.compat.support.SecuredKafka.ALICE_PASSWORD;
import static io.kflux.compat.support.SecuredKafka.plainJaas;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.LogCapture;
import io.kflux.compat.support.SecuredKafka;
import io.kflux.compat.support.SharedSecuredKafka;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * KIP-368: a listener with {@code connections.max.reauth.ms} of {@value SecuredKafka#REAUTH_MS} ms. A consumer
 * that runs for several session lifetimes re-authenticates on its connections, never reconnects, and reads the
 * log exactly (every offset once).
 */
@ExtendWith(SharedSecuredKafka.class)
class ReauthenticationTest {
    private static final String TOPIC = SecuredKafka.ALLOWED + "reauth";
    private static SecuredKafka kafka;

    @BeforeAll
    static void start(SecuredKafka shared) {
        kafka = shared; // the run's one secured broker: SharedSecuredKafka stops it at the end
        kafka.cluster().createTopic(TOPIC, 3, 1);
    }


    @Test
    void severalSessionLifetimesPassWithoutReconnectingLosingOrDuplicating() throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", kafka.cluster().bootstrapServers("REAUTH"));
        props.put("security.protocol", "SASL_PLAINTEXT");
        props.put("sasl.mechanism", "PLAIN");
        props.put("sasl.jaas.config", plainJaas("alice", ALICE_PASSWORD));
        props.put("group.id", SecuredKafka.ALLOWED + "reauth");
        props.put("auto.offset.reset", "earliest");
        String listener = kafka.cluster().bootstrapServers("REAUTH");
        Configurator.setLevel("io.kflux.network", Level.DEBUG);
        ConcurrentLinkedQueue<ConsumerRecord<String, String>> received = new ConcurrentLinkedQueue<>();
        try (LogCapture logs = new LogCapture("io.kflux.network", Level.DEBUG);
             ContinuousProducer producer = new ContinuousProducer(kafka.cluster().bootstrapServers(), TOPIC, 3, 200, "r-")) {
            KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                    ConsumerOptions.create(props, Deserializers.string(), Deserializers.string()).subscription(List.of(TOPIC)));
            Disposable running = consumer.receive().doOnNext(ConsumerRecord::acknowledge).subscribe(received::add);
            waitFor(() -> !received.isEmpty(), 30);
            int connectionsAtStart = connections(logs, listener);
            Thread.sleep(4 * SecuredKafka.REAUTH_MS);
            producer.stop();
            Map<TopicPartition, Long> ends = endOffsets();
            waitFor(() -> caughtUp(received, ends), 30);
            int connectionsAtEnd = connections(logs, listener);
            long reauthentications = logs.matching(m -> m.startsWith("re-authenticated to " + listener)).size();
            running.dispose();
            consumer.close().block(Duration.ofSeconds(30));

            assertThat(connectionsAtStart).as("connections opened before the first record").isPositive();
            assertThat(connectionsAtEnd).as("connections opened by the end (none reopened)").isEqualTo(connectionsAtStart);
            // each connection re-authenticates about every 0.9 * REAUTH_MS
            assertThat(reauthentications).as("re-authentications").isGreaterThanOrEqualTo(3);
            Map<TopicPartition, List<Long>> offsets = Kflux.offsetsByPartition(List.copyOf(received));
            ends.forEach((tp, end) -> assertThat(offsets.get(tp)).as(tp.toString())
                    .containsExactlyElementsOf(LongStream.range(0, end).boxed().toList()));
        } finally {
            Configurator.setLevel("io.kflux.network", Level.INFO);
        }
    }

    private static int connections(LogCapture logs, String listener) {
        return logs.matching(m -> m.startsWith("connected to " + listener)).size();
    }

    private static boolean caughtUp(ConcurrentLinkedQueue<ConsumerRecord<String, String>> received,
                                    Map<TopicPartition, Long> ends) {
        Map<TopicPartition, Long> seen = received.stream().collect(Collectors.groupingBy(ConsumerRecord::topicPartition,
                Collectors.counting()));
        return ends.entrySet().stream().allMatch(e -> seen.getOrDefault(e.getKey(), 0L) >= e.getValue());
    }

    private static Map<TopicPartition, Long> endOffsets() throws Exception {
        Map<org.apache.kafka.common.TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            request.put(new org.apache.kafka.common.TopicPartition(TOPIC, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        kafka.cluster().admin().listOffsets(request).all().get(30, TimeUnit.SECONDS)
                .forEach((tp, info) -> out.put(new TopicPartition(tp.topic(), tp.partition()), info.offset()));
        return out;
    }

    private static void waitFor(java.util.function.BooleanSupplier condition, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + seconds + " s");
            }
            Thread.sleep(50);
        }
    }

}
