package io.kflux.commit;

import io.kflux.metadata.BrokerErrors;
import io.kflux.KafkaProtocolException;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.Node;
import io.kflux.network.BrokerConnection;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.FindCoordinatorRequest;
import io.kflux.protocol.message.FindCoordinatorResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;

/**
 * Finds a group's coordinator (FindCoordinator, single-key or batched form by version) and keeps
 * its connection until told it moved. Concurrent callers share one lookup. Used for commits
 * without group membership (manual assignment with a {@code group.id}).
 */
public final class CoordinatorLookup {
    private final String groupId;
    private final NodeConnections connections;
    private final MetadataManager metadata;
    private final AtomicReference<Mono<BrokerConnection>> current = new AtomicReference<>();

    public CoordinatorLookup(String groupId, NodeConnections connections, MetadataManager metadata) {
        this.groupId = groupId;
        this.connections = connections;
        this.metadata = metadata;
    }

    /** The coordinator's connection; a failed lookup is forgotten so the next call asks again. */
    public Mono<BrokerConnection> coordinator() {
        for (;;) {
            Mono<BrokerConnection> existing = current.get();
            if (existing != null) {
                return existing;
            }
            Mono<BrokerConnection> fresh = Mono.defer(this::find).cache();
            if (current.compareAndSet(null, fresh)) {
                return fresh.doOnError(e -> current.compareAndSet(fresh, null))
                        .flatMap(c -> {
                            if (!c.isOpen()) {
                                current.compareAndSet(fresh, null);
                                return coordinator();
                            }
                            return Mono.just(c);
                        });
            }
        }
    }

    /** Forget the coordinator (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, disconnect). */
    public void invalidate() {
        current.set(null);
    }

    private Mono<BrokerConnection> find() {
        return anyBroker().flatMap(c -> c.exchange(FindCoordinatorRequest.forGroup(groupId))
                .flatMap(response -> {
                    FindCoordinatorResponse.Coordinator coordinator =
                            response.coordinatorFor(groupId, c.version(FindCoordinatorRequest.SPEC));
                    Errors error = Errors.forCode(coordinator.errorCode());
                    if (!error.isNone()) {
                        return Mono.error(error == Errors.COORDINATOR_NOT_AVAILABLE || error == Errors.COORDINATOR_LOAD_IN_PROGRESS
                                || error == Errors.NOT_COORDINATOR
                                ? new OffsetCommitter.RetriableCommitException("no coordinator for group " + groupId + ": " + error, false)
                                : BrokerErrors.of(coordinator.errorCode(), "FindCoordinator for group " + groupId + " failed: "
                                + error, null, groupId));
                    }
                    return connections.connection(coordinator.nodeId(), coordinator.host(), coordinator.port());
                }));
    }

    private Mono<BrokerConnection> anyBroker() {
        List<Node> nodes = new ArrayList<>(metadata.current().nodes().values());
        if (nodes.isEmpty()) {
            return metadata.refresh().flatMap(c -> anyBroker());
        }
        Node node = nodes.get(ThreadLocalRandom.current().nextInt(nodes.size()));
        return connections.connection(node.id(), node.host(), node.port());
    }
}
