package io.kflux.internal;

import io.kflux.fetch.OffsetLookup;
import io.kflux.group.CoordinatorManager;
import io.kflux.metadata.MetadataManager;
import io.kflux.network.NodeConnections;
import io.kflux.util.ClientMetrics;
import reactor.core.publisher.Mono;

/**
 * The connections and metadata one consumer shares between its subscription and its one-off
 * calls; with a {@code group.id} also the group's one coordinator manager, shared by the group member and commits
 * ({@code coordinator} is null without a group id).
 * Released when the consumer is idle; acknowledgements and commits outlive it (see
 * {@link DefaultKafkaFluxConsumer}).
 */
record ClientResources(NodeConnections connections, MetadataManager metadata, OffsetLookup offsets,
                       CoordinatorManager coordinator) {

    static ClientResources create(ClientSettings settings, ClientMetrics metrics) {
        NodeConnections connections = new NodeConnections(settings.network(), settings.logContext(), metrics);
        MetadataManager metadata = new MetadataManager(connections, settings.bootstrapServers(),
                settings.allowAutoTopicCreation());
        OffsetLookup offsets = new OffsetLookup(connections, metadata, settings.fetch().isolationLevel(),
                settings.retryBackoffMs(), settings.retryBackoffMaxMs(), settings.requestTimeoutMs());
        CoordinatorManager coordinator = settings.groupId() == null ? null
                : CoordinatorManager.create(settings.groupId(), connections, metadata, settings.retryBackoffMs(),
                        settings.retryBackoffMaxMs(), settings.logContext());
        return new ClientResources(connections, metadata, offsets, coordinator);
    }

    Mono<Void> close() {
        if (coordinator != null) {
            coordinator.close();
        }
        return connections.closeAll();
    }
}
