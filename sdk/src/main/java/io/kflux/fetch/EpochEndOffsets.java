package io.kflux.fetch;

import io.kflux.TopicPartition;
import io.kflux.metadata.Node;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.message.OffsetForLeaderEpochRequest;
import io.kflux.protocol.message.OffsetForLeaderEpochRequest.OffsetForLeaderPartition;
import io.kflux.protocol.message.OffsetForLeaderEpochRequest.OffsetForLeaderTopic;
import io.kflux.protocol.message.OffsetForLeaderEpochResponse;
import io.kflux.protocol.message.OffsetForLeaderEpochResponse.EpochEndOffset;
import io.kflux.protocol.message.OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * OffsetForLeaderEpoch (KIP-320) as a consumer asks it: for each partition, the end offset of the
 * leader epoch it last fetched, asked of the current leader with the current leader epoch. One
 * request per leader; per-partition errors are returned, not raised (the fetcher decides).
 */
final class EpochEndOffsets {
    private final NodeConnections connections;

    EpochEndOffsets(NodeConnections connections) {
        this.connections = connections;
    }

    /** A partition to check: the leader epoch known now and the epoch of the last fetched batch. */
    record Query(int currentLeaderEpoch, int lastFetchedEpoch) {
    }

    Mono<Map<TopicPartition, EpochEndOffset>> ask(Node leader, Map<TopicPartition, Query> queries) {
        Map<String, List<OffsetForLeaderPartition>> byTopic = new LinkedHashMap<>();
        queries.forEach((tp, q) -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                .add(new OffsetForLeaderPartition(tp.partition(), q.currentLeaderEpoch(), q.lastFetchedEpoch())));
        List<OffsetForLeaderTopic> topics = new ArrayList<>(byTopic.size());
        byTopic.forEach((topic, ps) -> topics.add(new OffsetForLeaderTopic(topic, ps)));
        OffsetForLeaderEpochRequest request = new OffsetForLeaderEpochRequest(
                OffsetForLeaderEpochRequest.CONSUMER_REPLICA_ID, topics);
        return connections.connection(leader.id(), leader.host(), leader.port())
                .flatMap(c -> c.exchange(request))
                .map(EpochEndOffsets::byPartition);
    }

    private static Map<TopicPartition, EpochEndOffset> byPartition(OffsetForLeaderEpochResponse response) {
        Map<TopicPartition, EpochEndOffset> out = new HashMap<>();
        for (OffsetForLeaderTopicResult topic : response.topics()) {
            for (EpochEndOffset p : topic.partitions()) {
                out.put(new TopicPartition(topic.topic(), p.partition()), p);
            }
        }
        return out;
    }
}
