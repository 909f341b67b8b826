package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.internal.ClientSettings;
import io.kflux.metadata.MetadataManager;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.message.MetadataResponse;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseBroker;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fake brokers for the metadata layer's recovery tests ({@code RebootstrapTest}, {@code ClusterCheckTest}): a
 * bootstrap server that names node 1 of cluster-a the first time and node 2 of cluster-b every later time, node 1 (its
 * answers are the test's) and node 2 (answers as node 2 of cluster-b); plus the one {@link MetadataManager} a test
 * builds on them.
 */
final class FakeMetadataCluster implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(20);

    final FakeBroker bootstrapServer;
    final FakeBroker node1;
    final FakeBroker node2 = broker(5);
    private NodeConnections connections;

    /** @param node1ApiVersionsMax the highest ApiVersions version node 1 announces (5: Kafka 4.4) */
    FakeMetadataCluster(int node1ApiVersionsMax) {
        this(5, node1ApiVersionsMax);
    }

    /** As {@link #FakeMetadataCluster(int)}, the bootstrap server announcing {@code bootstrapApiVersionsMax}. */
    FakeMetadataCluster(int bootstrapApiVersionsMax, int node1ApiVersionsMax) {
        bootstrapServer = broker(bootstrapApiVersionsMax);
        node1 = broker(node1ApiVersionsMax);
        bootstrapServer.on(ApiKey.METADATA, ex -> {
            boolean first = bootstrapServer.received(ApiKey.METADATA).size() == 1;
            answer(ex, (short) 0, first ? "cluster-a" : "cluster-b", first ? 1 : 2, first ? node1.port() : node2.port());
        });
        node2.on(ApiKey.METADATA, ex -> answer(ex, (short) 0, "cluster-b", 2, node2.port()));
    }

    private static FakeBroker broker(int apiVersionsMax) {
        return new FakeBroker().range(ApiKey.API_VERSIONS, 0, apiVersionsMax).range(ApiKey.METADATA, 0, 13);
    }

    /** Answers a Metadata request naming one broker, {@code nodeId} at {@code port}, of {@code cluster}. */
    static void answer(FakeBroker.Exchange ex, short error, String cluster, int nodeId, int port) {
        ex.respond(MetadataResponse.SPEC, new MetadataResponse(0, List.of(new MetadataResponseBroker(nodeId,
                "127.0.0.1", port, null)), cluster, nodeId, List.of(), MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED,
                error));
    }

    /**
     * A manager bootstrapping from {@link #bootstrapServer}, with {@code keyValues} as further properties, after its
     * first refresh (which names node 1).
     */
    MetadataManager manager(Object... keyValues) {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", "127.0.0.1:" + bootstrapServer.port(),
                "client.id", "kflux"));
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        connections = new NodeConnections(ClientSettings.of(props).network());
        MetadataManager manager = new MetadataManager(connections,
                List.of(InetSocketAddress.createUnresolved("127.0.0.1", bootstrapServer.port())), false);
        assertThat(manager.refresh().block(WAIT).nodes()).containsOnlyKeys(1);
        return manager;
    }

    @Override
    public void close() {
        if (connections != null) {
            connections.closeAll().block(WAIT);
        }
        bootstrapServer.close();
        node1.close();
        node2.close();
    }
}
