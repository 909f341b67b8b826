package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.metadata.MetadataManager;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ApiVersionsRequest;
import io.kflux.protocol.message.ApiVersionsResponse;
import io.kflux.protocol.message.ApiVersionsResponse.ApiVersion;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code metadata.cluster.check.enable} (KIP-1242, Kafka 4.4) against fake brokers on loopback: the bootstrap server
 * names node 1 of cluster-a first and node 2 of cluster-b once asked again; the broker at node 1's address belongs to
 * another cluster and refuses any ApiVersions v5 that names cluster-a, as a 4.4 broker does.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterCheckTest {
    private static final Duration WAIT = FakeMetadataCluster.WAIT;
    private FakeMetadataCluster fakes;
    private FakeBroker bootstrapServer;
    private FakeBroker node1;
    private FakeBroker node2;

    @AfterEach
    void close() {
        if (fakes != null) {
            fakes.close();
        }
    }

    /** Node 1's broker belongs to cluster-z: it refuses a v5 ApiVersions naming another cluster. */
    private MetadataManager manager(int node1ApiVersionsMax, Object... keyValues) {
        return managerWithBootstrapAt(5, node1ApiVersionsMax, keyValues);
    }

    private MetadataManager managerWithBootstrapAt(int bootstrapApiVersionsMax, int node1ApiVersionsMax,
                                                   Object... keyValues) {
        fakes = new FakeMetadataCluster(bootstrapApiVersionsMax, node1ApiVersionsMax);
        bootstrapServer = fakes.bootstrapServer;
        node1 = fakes.node1;
        node2 = fakes.node2;
        node1.on(ApiKey.API_VERSIONS, ex -> {
            ApiVersionsRequest request = (ApiVersionsRequest) ex.body;
            if (request == null) { // a version it does not know: UNSUPPORTED_VERSION with its range, at v0
                ex.respond(ApiVersionsResponse.SPEC, FakeBroker.apiVersions((short) 35, List.of(new ApiVersion(
                        (short) 18, (short) 0, (short) node1ApiVersionsMax))), (short) 0, ex.correlationId);
                return;
            }
            boolean misrouted = ex.version >= 5 && request.clusterId() != null && !request.clusterId().equals("cluster-z");
            ex.respond(ApiVersionsResponse.SPEC, FakeBroker.apiVersions(misrouted ? Errors.REBOOTSTRAP_REQUIRED.code()
                    : 0, List.of(new ApiVersion((short) 18, (short) 0, (short) node1ApiVersionsMax),
                    new ApiVersion((short) 3, (short) 0, (short) 13))));
        });
        node1.on(ApiKey.METADATA, ex -> FakeMetadataCluster.answer(ex, (short) 0, "cluster-z", 1, node1.port()));
        Object[] props = java.util.Arrays.copyOf(keyValues, keyValues.length + 2);
        props[keyValues.length] = "request.timeout.ms";
        props[keyValues.length + 1] = 2000L;
        return fakes.manager(props);
    }

    private static ApiVersionsRequest lastApiVersions(FakeBroker broker) {
        List<FakeBroker.Exchange> all = broker.received(ApiKey.API_VERSIONS);
        return (ApiVersionsRequest) all.get(all.size() - 1).body;
    }

    @Test
    void aBrokerOfAnotherClusterRefusesAndTheBootstrapServersAreAskedAgain() {
        MetadataManager manager = manager(5);

        assertThat(manager.refresh().block(WAIT).nodes()).containsOnlyKeys(2);

        assertThat(node1.received(ApiKey.API_VERSIONS)).hasSize(1);
        assertThat(node1.received(ApiKey.API_VERSIONS).get(0).version).isEqualTo((short) 5);
        assertThat(lastApiVersions(node1).clusterId()).isEqualTo("cluster-a");
        assertThat(lastApiVersions(node1).nodeId()).isEqualTo(1);
        assertThat(node1.received(ApiKey.METADATA)).isEmpty();
        assertThat(manager.current().clusterId()).isEqualTo("cluster-b");
        assertThat(manager.refresh().block(WAIT).clusterId()).isEqualTo("cluster-b"); // now from node 2 itself
        // node 2 is checked as node 2 of cluster-b; the bootstrap connection never is
        assertThat(lastApiVersions(node2).clusterId()).isEqualTo("cluster-b");
        assertThat(lastApiVersions(node2).nodeId()).isEqualTo(2);
        assertThat(bootstrapServer.received(ApiKey.API_VERSIONS)).allSatisfy(ex -> {
            assertThat(ex.version).isEqualTo((short) 4);
            assertThat(((ApiVersionsRequest) ex.body).clusterId()).isNull();
        });
    }

    @Test
    void disabledTheConnectionIsNotCheckedAndServed() {
        MetadataManager manager = manager(5, "metadata.cluster.check.enable", false);

        assertThat(manager.refresh().block(WAIT).clusterId()).isEqualTo("cluster-z");
        assertThat(node1.received(ApiKey.API_VERSIONS).get(0).version).isEqualTo((short) 4);
    }

    @Test
    void underRecoveryStrategyNoneTheConnectionIsNotChecked() {
        MetadataManager manager = manager(5, "metadata.recovery.strategy", "none");

        assertThat(manager.refresh().block(WAIT).clusterId()).isEqualTo("cluster-z");
        assertThat(lastApiVersions(node1).clusterId()).isNull();
    }

    @Test
    void aBrokerBefore44IsAskedAgainAtItsVersionUnchecked() {
        MetadataManager manager = manager(4);

        assertThat(manager.refresh().block(WAIT).clusterId()).isEqualTo("cluster-z");
        List<FakeBroker.Exchange> asked = node1.received(ApiKey.API_VERSIONS);
        assertThat(asked).extracting(ex -> ex.version).containsExactly((short) 5, (short) 4);
    }

    @Test
    void whenTheLastBrokerConnectedPredates44TheNextIsAskedOnceUnchecked() {
        MetadataManager manager = managerWithBootstrapAt(4, 4); // the bootstrap server and node 1 both before Kafka 4.4

        assertThat(manager.refresh().block(WAIT).clusterId()).isEqualTo("cluster-z");
        assertThat(node1.received(ApiKey.API_VERSIONS)).extracting(ex -> ex.version).containsExactly((short) 4);
        assertThat(lastApiVersions(node1).clusterId()).isNull();
    }

    @Test
    void theCheckIsAskedForWhileTheLastBrokerConnectedOfferedIt() {
        java.util.Map<String, Object> props = java.util.Map.of("bootstrap.servers", "127.0.0.1:1", "client.id", "kflux");
        NodeConnections connections = new NodeConnections(io.kflux.internal.ClientSettings.of(props).network());
        FakeBroker old1 = new FakeBroker().range(ApiKey.API_VERSIONS, 0, 4);
        FakeBroker old2 = new FakeBroker().range(ApiKey.API_VERSIONS, 0, 4);
        FakeBroker upgraded3 = new FakeBroker().range(ApiKey.API_VERSIONS, 0, 5);
        FakeBroker upgraded4 = new FakeBroker().range(ApiKey.API_VERSIONS, 0, 5);
        try {
            connections.clusterId("cluster-a");
            for (FakeBroker b : List.of(old1, old2, upgraded3, upgraded4)) {
                int node = List.of(old1, old2, upgraded3, upgraded4).indexOf(b) + 1;
                assertThat(connections.connection(node, "127.0.0.1", b.port()).block(WAIT)).isNotNull();
            }
            // nothing known yet: checked, refused as too new, asked again unchecked (a round trip more)
            assertThat(old1.received(ApiKey.API_VERSIONS)).extracting(ex -> ex.version).containsExactly((short) 5, (short) 4);
            // the last broker connected predates the check: asked once, unchecked
            assertThat(old2.received(ApiKey.API_VERSIONS)).extracting(ex -> ex.version).containsExactly((short) 4);
            assertThat(upgraded3.received(ApiKey.API_VERSIONS)).extracting(ex -> ex.version).containsExactly((short) 4);
            // the last one connected offered it: checked again
            assertThat(upgraded4.received(ApiKey.API_VERSIONS)).extracting(ex -> ex.version).containsExactly((short) 5);
            assertThat(((ApiVersionsRequest) upgraded4.received(ApiKey.API_VERSIONS).get(0).body).clusterId())
                    .isEqualTo("cluster-a");
        } finally {
            connections.closeAll().block(WAIT);
            List.of(old1, old2, upgraded3, upgraded4).forEach(FakeBroker::close);
        }
    }
}
