package io.kflux.internal;

import io.kflux.fetch.OffsetLookup;
import io.kflux.metadata.MetadataManager;
import io.kflux.network.NodeConnections;
import reactor.core.publisher.Mono;

/** The connections and metadata one consumer shares between its subscription and its one-off calls. */
record ClientResources(NodeConnections connections, MetadataManager metadata, OffsetLookup offsets) {

    static ClientResources create(ClientSettings settings) {
        NodeConnections connections = new NodeConnections(settings.network());
        MetadataManager metadata = new MetadataManager(connections, settings.bootstrapServers(),
                settings.allowAutoTopicCreation());
        OffsetLookup offsets = new OffsetLookup(connections, metadata, settings.fetch().isolationLevel(),
                settings.retryBackoffMs(), settings.requestTimeoutMs());
        return new ClientResources(connections, metadata, offsets);
    }

    Mono<Void> close() {
        return connections.closeAll();
    }
}
