package io.kflux.fetch;

import io.kflux.TopicPartition;
import io.kflux.metadata.Cluster;
import io.kflux.protocol.Types;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FetchRequest.FetchPartition;
import io.kflux.protocol.message.FetchRequest.FetchTopic;
import io.kflux.protocol.message.FetchRequest.ForgottenTopic;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The Fetch request to one broker: from the partitions planned for it and its fetch session (KIP-227), which decides
 * what the request lists and forgets. Builds requests only: sending and the partitions' states are the fetcher's.
 */
final class FetchRequestBuilder {
    private final FetchConfig config;

    FetchRequestBuilder(FetchConfig config) {
        this.config = config;
    }

    /** A request and the session's view of it (what it lists, forgets, and the session epoch it carries). */
    record Built(FetchSession.Request session, FetchRequest request) {
    }

    /**
     * The next Fetch of {@code session} for {@code targets}, every partition at {@code max.partition.fetch.bytes};
     * advances the session ({@link FetchSession#build}). With {@code heldBack} (some of the broker's partitions are
     * held back, {@code FetchPlanner.isHeldBack}) the broker is asked not to wait ({@code maxWaitMs} 0).
     */
    Built build(FetchSession session, List<FetchTarget> targets, boolean heldBack, Cluster cluster) {
        List<FetchSession.PartitionFetch> wanted = new ArrayList<>(targets.size());
        for (FetchTarget planned : targets) {
            TopicPartition tp = planned.partition().topicPartition();
            wanted.add(new FetchSession.PartitionFetch(tp, topicId(cluster, tp.topic()), planned.fetchOffset(),
                    planned.leaderEpoch(), planned.lastFetchedEpoch(), config.partitionMaxBytes()));
        }
        FetchSession.Request sessionRequest = session.build(wanted);
        Map<String, List<FetchPartition>> byTopic = new LinkedHashMap<>();
        Map<String, UUID> topicIds = new HashMap<>();
        for (FetchSession.PartitionFetch p : sessionRequest.toSend()) {
            TopicPartition tp = p.partition();
            topicIds.putIfAbsent(tp.topic(), p.topicId());
            byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(new FetchPartition(tp.partition(),
                    p.currentLeaderEpoch(), p.fetchOffset(), p.lastFetchedEpoch(), -1L, p.maxBytes(), Types.ZERO_UUID,
                    FetchRequest.HIGH_WATERMARK_UNSUPPORTED));
        }
        List<FetchTopic> topics = new ArrayList<>(byTopic.size());
        byTopic.forEach((topic, ps) -> topics.add(new FetchTopic(topic, topicIds.get(topic), ps)));
        Map<String, List<Integer>> forgottenByTopic = new LinkedHashMap<>();
        Map<String, UUID> forgottenIds = new HashMap<>();
        for (FetchSession.PartitionFetch p : sessionRequest.toForget()) {
            forgottenIds.putIfAbsent(p.partition().topic(), p.topicId());
            forgottenByTopic.computeIfAbsent(p.partition().topic(), k -> new ArrayList<>()).add(p.partition().partition());
        }
        List<ForgottenTopic> forgotten = new ArrayList<>(forgottenByTopic.size());
        forgottenByTopic.forEach((topic, ps) -> forgotten.add(new ForgottenTopic(topic, forgottenIds.get(topic), ps)));
        FetchRequest request = new FetchRequest(null, FetchRequest.CONSUMER_REPLICA_ID, FetchRequest.ReplicaState.CONSUMER,
                heldBack ? 0 : config.maxWaitMs(), config.minBytes(), config.maxBytes(), config.isolationLevel(),
                sessionRequest.sessionId(), sessionRequest.epoch(), topics, forgotten, config.rackId());
        return new Built(sessionRequest, request);
    }

    /**
     * The Fetch that closes {@code session} (KIP-227): its id with epoch {@value FetchRequest#FINAL_SESSION_EPOCH}
     * and no partitions, so the broker frees the session's slot at once.
     */
    FetchRequest closing(FetchSession session) {
        return new FetchRequest(null, FetchRequest.CONSUMER_REPLICA_ID, FetchRequest.ReplicaState.CONSUMER, 0,
                config.minBytes(), config.maxBytes(), config.isolationLevel(), session.sessionId(),
                FetchRequest.FINAL_SESSION_EPOCH, List.of(), List.of(), config.rackId());
    }

    /** What a {@link FetchRequestListener} is told of {@code built}, sent to {@code nodeId}. */
    static FetchRequestListener.Request describe(int nodeId, FetchSession.Request built) {
        return new FetchRequestListener.Request(nodeId, built.sessionId(), built.epoch(), built.full(),
                built.toSend().stream().map(FetchSession.PartitionFetch::partition).toList(),
                built.toForget().stream().map(FetchSession.PartitionFetch::partition).toList(),
                built.session().size());
    }

    /** The topic's id in {@code cluster}, the zero UUID when unknown. */
    static UUID topicId(Cluster cluster, String topic) {
        var info = cluster.topic(topic);
        return info == null ? Types.ZERO_UUID : info.topicId();
    }
}
