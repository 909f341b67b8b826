package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.network.BrokerConnection;
import io.kflux.network.NetworkOptions;
import io.kflux.network.NodeConnections;
import io.kflux.network.RequestTimeoutException;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.message.ApiVersionsRequest;
import io.kflux.protocol.message.ApiVersionsResponse;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;

/** The network layer against a real broker: ApiVersions negotiation, pipelining, a frozen broker. */
@KafkaTest(nodes = 1, isolated = true) // pauses its broker
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NetworkCompatTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static InetSocketAddress address(EmbeddedKafkaCluster kafka, int nodeId) {
        String[] hostPort = kafka.address(nodeId).split(":");
        return new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
    }

    @Test
    void negotiatesApiVersionsAndPipelinesRequests(EmbeddedKafkaCluster kafka) {
        BrokerConnection c = BrokerConnection.connect(address(kafka, 1), io.kflux.internal.ClientSettings.of(java.util.Map.of("bootstrap.servers", "localhost:9092", "client.id", "kflux")).network()).block(WAIT);
        try {
            // the version used: the broker may offer more (4.4 offers ApiVersions v5), kflux speaks up to its own highest
            assertThat(c.version(ApiVersionsRequest.SPEC)).isEqualTo(ApiVersionsRequest.SPEC.highestVersion());
            for (ApiKey key : List.of(ApiKey.METADATA, ApiKey.FETCH, ApiKey.JOIN_GROUP, ApiKey.HEARTBEAT,
                    ApiKey.OFFSET_COMMIT, ApiKey.FIND_COORDINATOR)) {
                assertThat(c.version(key)).as("%s", key).isPositive();
            }

            List<ApiVersionsResponse> answers = Flux.range(0, 20)
                    .flatMap(i -> c.exchange(new ApiVersionsRequest("kflux", "compat-" + i)), 20)
                    .collectList()
                    .block(WAIT);

            assertThat(answers).hasSize(20).allSatisfy(r -> {
                assertThat(r.errorCode()).isZero();
                assertThat(r.find(ApiKey.FETCH)).isNotNull();
            });
            assertThat(c.isOpen()).isTrue();
        } finally {
            c.close().block(WAIT);
        }
    }

    @Test
    void aFrozenBrokerTimesRequestsOutAndANewConnectionWorksOnceItThaws(EmbeddedKafkaCluster kafka) {
        NodeConnections connections = new NodeConnections(io.kflux.internal.ClientSettings.of(java.util.Map.of("bootstrap.servers", "localhost:9092", "client.id", "kflux")).network()
                .withRequestTimeoutMs(1_000).withReconnectBackoff(50, 200));
        InetSocketAddress address = address(kafka, 1);
        try {
            BrokerConnection c = connections.connection(1, address.getHostString(), address.getPort()).block(WAIT);
            kafka.pause(1);
            Throwable error;
            try {
                c.exchange(new ApiVersionsRequest("kflux", "frozen")).block(WAIT);
                throw new AssertionError("expected a timeout");
            } catch (RuntimeException e) {
                error = Exceptions.unwrap(e);
            } finally {
                kafka.resume(1);
            }

            assertThat(error).isInstanceOf(RequestTimeoutException.class);
            c.onClose().block(WAIT);
            BrokerConnection again = connections.connection(1, address.getHostString(), address.getPort()).block(WAIT);
            assertThat(again).isNotSameAs(c);
            assertThat(again.exchange(new ApiVersionsRequest("kflux", "thawed")).block(WAIT).errorCode()).isZero();
        } finally {
            connections.closeAll().block(WAIT);
        }
    }
}
