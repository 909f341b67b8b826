package io.kflux.group;

import io.kflux.metadata.Cluster;
import io.kflux.metadata.MetadataManager;
import io.kflux.network.BrokerConnection;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.message.FindCoordinatorRequest;
import io.kflux.protocol.message.FindCoordinatorResponse;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** {@link GroupIo} over the consumer's {@link NodeConnections} and {@link MetadataManager}. */
final class NetworkGroupIo implements GroupIo {
    private final NodeConnections connections;
    private final MetadataManager metadata;

    NetworkGroupIo(NodeConnections connections, MetadataManager metadata) {
        this.connections = connections;
        this.metadata = metadata;
    }

    @Override
    public Mono<FindCoordinatorResponse.Coordinator> findCoordinator(String groupId) {
        return metadata.anyBroker().flatMap(conn -> conn.exchange(FindCoordinatorRequest.forGroup(groupId))
                .flatMap(response -> {
                    FindCoordinatorResponse.Coordinator answer =
                            response.coordinatorFor(groupId, conn.version(FindCoordinatorRequest.SPEC));
                    return answer != null ? Mono.just(answer) : Mono.error(new MalformedMessageException(
                            "FindCoordinator response from " + io.kflux.util.HostPort.of(conn.address()) + " has no entry for group " + groupId));
                }));
    }

    @Override
    public Mono<CoordinatorChannel> connectCoordinator(int nodeId, String host, int port) {
        return connections.coordinatorConnection(nodeId, host, port).map(c -> new Channel(c, nodeId));
    }

    @Override
    public Cluster cluster() {
        return metadata.current();
    }

    @Override
    public void interest(Set<String> topics, boolean all) {
        metadata.interest(topics, all);
    }

    @Override
    public Mono<Cluster> refreshMetadata() {
        return metadata.refresh();
    }

    @Override
    public Flux<Cluster> metadataUpdates() {
        return metadata.updates();
    }

    private record Channel(BrokerConnection connection, int nodeId) implements CoordinatorChannel {
        @Override
        public <R> Mono<R> send(ApiRequest<R> request, long timeoutMs) {
            return connection.exchange(request, timeoutMs);
        }

        @Override
        public Mono<Void> onClose() {
            return connection.onClose();
        }
    }
}
