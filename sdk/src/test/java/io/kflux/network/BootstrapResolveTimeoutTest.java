package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConfigException;
import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import io.kflux.KafkaFluxException;
import io.kflux.TopicPartition;
import io.kflux.internal.ClientSettings;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;

/**
 * {@code bootstrap.resolve.timeout.ms} (KIP-909, Kafka 4.4): how long the first bootstrap goes on while no name of
 * {@code bootstrap.servers} resolves. The names here end in {@code .invalid}, which never resolves (RFC 2606).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BootstrapResolveTimeoutTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String UNRESOLVABLE = "nonexistent.invalid:9092";

    private static NodeConnections connections(Object... keyValues) {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", UNRESOLVABLE,
                "reconnect.backoff.ms", 20L, "reconnect.backoff.max.ms", 50L));
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        return new NodeConnections(ClientSettings.of(props).network());
    }

    private static Throwable errorOf(Mono<?> mono) {
        try {
            mono.block(WAIT);
        } catch (RuntimeException e) {
            return Exceptions.unwrap(e);
        }
        throw new AssertionError("expected an error");
    }

    private static List<InetSocketAddress> addresses(String... hostPorts) {
        return java.util.Arrays.stream(hostPorts).map(s -> InetSocketAddress.createUnresolved(
                s.substring(0, s.lastIndexOf(':')), Integer.parseInt(s.substring(s.lastIndexOf(':') + 1)))).toList();
    }

    @Test
    void retriesUntilTheTimeoutThenFailsForGoodNamingTheProperty() {
        NodeConnections connections = connections("bootstrap.resolve.timeout.ms", 400L);
        List<KafkaFluxException> fatal = new CopyOnWriteArrayList<>();
        connections.onFatalFailure(fatal::add);
        try {
            long start = System.nanoTime();
            Throwable error = errorOf(connections.bootstrap(addresses(UNRESOLVABLE)));
            // before the timeout a failed resolution is one failed attempt among others, retried by the caller
            assertThat(error).isInstanceOf(ConnectionFailedException.class);
            while (error instanceof ConnectionFailedException) {
                error = errorOf(connections.bootstrap(addresses(UNRESOLVABLE)));
            }
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(elapsedMs).isBetween(400L, 5_000L);
            assertThat(error).isInstanceOfSatisfying(ConfigException.class, e -> {
                assertThat(e.key()).isEqualTo("bootstrap.servers");
                assertThat(e.value()).isEqualTo(UNRESOLVABLE);
                assertThat(e.getMessage()).contains("bootstrap.resolve.timeout.ms (400 ms)");
                assertThat(e.getSuppressed()).isNotEmpty();
            });
            assertThat(fatal).containsExactly((ConfigException) error);
            // for good, as the official client's BootstrapResolutionException: the next bootstrap fails at once
            assertThat(errorOf(connections.bootstrap(addresses(UNRESOLVABLE)))).isSameAs(error);
        } finally {
            connections.closeAll().block(WAIT);
        }
    }

    @Test
    void byDefaultTheFirstAttemptInWhichNoNameResolvesFails() {
        NodeConnections connections = connections();
        try {
            assertThat(errorOf(connections.bootstrap(addresses(UNRESOLVABLE))))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("bootstrap.resolve.timeout.ms (0 ms)");
        } finally {
            connections.closeAll().block(WAIT);
        }
    }

    @Test
    void aNameThatResolvesKeepsTheBootstrapRetrying() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        NodeConnections connections = connections();
        try {
            Throwable error = errorOf(connections.bootstrap(addresses(UNRESOLVABLE, "127.0.0.1:" + closedPort)));
            assertThat(error).isInstanceOf(ConnectionFailedException.class);
        } finally {
            connections.closeAll().block(WAIT);
        }
    }

    @Test
    void aConsumerWhoseBootstrapNeverResolvesEndsWithTheTypedErrorInsteadOfRetrying() {
        KafkaFluxConsumer<byte[], byte[]> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(Map.of(
                        "bootstrap.servers", UNRESOLVABLE, "bootstrap.resolve.timeout.ms", 300L,
                        "reconnect.backoff.max.ms", 100L, "default.api.timeout.ms", 30_000))
                .assignment(List.of(new TopicPartition("t", 0))));
        long start = System.nanoTime();
        Throwable error = consumer.receive().then(Mono.<Throwable>empty()).onErrorResume(Mono::just)
                .block(Duration.ofSeconds(20));
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        consumer.close().block(WAIT);
        assertThat(error).isInstanceOf(ConfigException.class)
                .hasMessageContaining("bootstrap.resolve.timeout.ms (300 ms)");
        // not default.api.timeout.ms (30 s), which bounded the retries before
        assertThat(elapsedMs).isBetween(300L, 10_000L);
    }
}
