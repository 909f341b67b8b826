package io.kflux.internal;

import io.kflux.commit.CoordinatorLookup;
import io.kflux.fetch.OffsetLookup;
import io.kflux.metadata.MetadataManager;
import io.kflux.network.NodeConnections;
import reactor.core.publisher.Mono;

/**
 * The connections and metadata one consumer shares between its subscription and its one-off
 * calls; with a {@code group.id} also the coordinator lookup ({@code coordinator} is null without one).
 * Released when the consumer is idle; acknowledgements and commits outlive it (see
 * {@link DefaultKafkaFluxConsumer}).
 */
record ClientResources(NodeConnections connections, MetadataManager metadata, OffsetLookup offsets,
                       CoordinatorLookup coordinator) {

    static ClientResources create(ClientSettings settings) {
        NodeConnections connections = new NodeConnections(settings.network(), settings.logContext());
        MetadataManager metadata = new MetadataManager(connections, settings.bootstrapServers(),
                settings.allowAutoTopicCreation());
        OffsetLookup offsets = new OffsetLookup(connections, metadata, settings.fetch().isolationLevel(),
                settings.retryBackoffMs(), settings.requestTimeoutMs());
        CoordinatorLookup coordinator = settings.groupId() == null ? null
                : new CoordinatorLookup(settings.groupId(), connections, metadata);
        return new ClientResources(connections, metadata, offsets, coordinator);
    }

    Mono<Void> close() {
        return connections.closeAll();
    }
}
