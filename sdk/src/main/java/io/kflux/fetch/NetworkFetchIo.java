package io.kflux.fetch;

import io.kflux.TopicPartition;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.Node;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.OffsetForLeaderEpochResponse.EpochEndOffset;
import java.time.Duration;
import java.util.Map;
import reactor.core.publisher.Mono;

/** {@link FetchIo} over the consumer's {@link NodeConnections}, {@link MetadataManager} and {@link OffsetLookup}. */
final class NetworkFetchIo implements FetchIo {
    private final NodeConnections connections;
    private final MetadataManager metadata;
    private final OffsetLookup offsets;
    private final EpochEndOffsets epochEndOffsets;

    NetworkFetchIo(NodeConnections connections, MetadataManager metadata, OffsetLookup offsets) {
        this.connections = connections;
        this.metadata = metadata;
        this.offsets = offsets;
        this.epochEndOffsets = new EpochEndOffsets(connections);
    }

    @Override
    public Cluster cluster() {
        return metadata.current();
    }

    @Override
    public Mono<Cluster> refreshMetadata() {
        return metadata.refresh();
    }

    @Override
    public Mono<Fetched> fetch(Node node, FetchRequest request) {
        return connections.connection(node.id(), node.host(), node.port())
                .flatMap(c -> {
                    short version = c.version(FetchRequest.SPEC);
                    return c.exchange(request).map(response -> new Fetched(response, version));
                });
    }

    @Override
    public Mono<Map<TopicPartition, EpochEndOffset>> offsetsForLeaderEpoch(
            Node leader, Map<TopicPartition, EpochEndOffsets.Query> queries) {
        return epochEndOffsets.ask(leader, queries);
    }

    @Override
    public Mono<Map<TopicPartition, ListedOffset>> listOffsets(Map<TopicPartition, Long> timestamps, Duration timeout) {
        return offsets.list(timestamps, timeout);
    }
}
