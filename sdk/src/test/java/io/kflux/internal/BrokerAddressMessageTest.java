package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TimeoutException;
import io.kflux.TopicPartition;
import io.kflux.util.HostPort;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Broker addresses in exception messages read as the user configured them ({@code host:port}), not as
 * {@code InetSocketAddress} prints an unresolved one ({@code 127.0.0.1/<unresolved>:1}). No broker: the bootstrap
 * address refuses connections.
 */
class BrokerAddressMessageTest {

    @Test
    void theBootstrapTimeoutNamesTheServersAsConfigured() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        String servers = "127.0.0.1:" + closedPort + ",localhost:" + closedPort;
        KafkaFluxConsumer<byte[], byte[]> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(Map.of(
                        "bootstrap.servers", servers, "default.api.timeout.ms", 500, "reconnect.backoff.max.ms", 100))
                .assignment(List.of(new TopicPartition("t", 0))));
        Throwable error = consumer.receive().then(Mono.<Throwable>empty()).onErrorResume(Mono::just)
                .block(Duration.ofSeconds(30));
        consumer.close().block(Duration.ofSeconds(10));
        assertThat(error).isInstanceOf(TimeoutException.class);
        assertThat(error.getMessage()).contains(servers).doesNotContain("<unresolved>").doesNotContain("/");
    }

    @Test
    void hostPortKeepsTheHostAsWritten() {
        assertThat(HostPort.of(InetSocketAddress.createUnresolved("127.0.0.1", 1))).isEqualTo("127.0.0.1:1");
        assertThat(HostPort.of(List.of(InetSocketAddress.createUnresolved("b1.example", 9092),
                InetSocketAddress.createUnresolved("b2.example", 9093)))).isEqualTo("b1.example:9092,b2.example:9093");
        assertThat(InetSocketAddress.createUnresolved("127.0.0.1", 1).toString()).contains("<unresolved>");
    }
}
