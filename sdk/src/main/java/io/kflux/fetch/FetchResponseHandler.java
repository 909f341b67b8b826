package io.kflux.fetch;

import io.kflux.CorruptRecordException;
import io.kflux.TopicPartition;
import io.kflux.fetch.FetchOutcome.PartitionOutcome;
import io.kflux.metadata.BrokerErrors;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.Node;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.FetchResponse;
import io.kflux.protocol.message.FetchResponse.FetchableTopicResponse;
import io.kflux.protocol.message.FetchResponse.PartitionData;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Reads one Fetch answer into a {@link FetchOutcome}: the broker's fetch session takes the answer or drops it
 * (KIP-227), then each partition asked for and still current gets an outcome (records to hand on, none, a diverging
 * epoch, an error by kind). It changes no partition state and calls nothing: the fetcher applies the outcome. It
 * does own the answer's buffers: records it hands on travel in the outcome, all others are released here.
 */
final class FetchResponseHandler {
    private final FetchConfig config;

    FetchResponseHandler(FetchConfig config) {
        this.config = config;
    }

    /**
     * What {@code response}, from {@code node} to {@code sessionRequest} of {@code session}, means for
     * {@code targets} (every partition of the session, by name); advances the session.
     *
     * @param cluster the metadata snapshot, to name topics a v13+ answer names by id only
     */
    FetchOutcome handle(Node node, FetchSession session, FetchSession.Request sessionRequest,
                        Map<TopicPartition, FetchTarget> targets, FetchResponse response, Cluster cluster) {
        Map<UUID, String> sessionTopics = new HashMap<>();
        sessionRequest.session().values().forEach(p -> sessionTopics.putIfAbsent(p.topicId(), p.partition().topic()));
        Set<TopicPartition> responded = new HashSet<>();
        for (FetchableTopicResponse topic : response.responses()) {
            String name = topicName(topic, sessionTopics, cluster);
            for (PartitionData pd : topic.partitions()) {
                // An id nobody asked for must still count as answered-but-not-requested; '<' can be in no real name.
                responded.add(new TopicPartition(name == null ? "<unknown topic id " + topic.topicId() + ">" : name,
                        pd.partitionIndex()));
            }
        }
        if (!session.onResponse(sessionRequest, response.errorCode(), response.sessionId(), responded,
                response.throttleTimeMs())) {
            response.release();
            Errors topLevel = Errors.forCode(response.errorCode());
            return new FetchOutcome(new FetchOutcome.SessionError(response.errorCode(),
                    topLevel == Errors.FETCH_SESSION_TOPIC_ID_ERROR,
                    !sessionRequest.full() && (topLevel == Errors.FETCH_SESSION_ID_NOT_FOUND
                            || topLevel == Errors.INVALID_FETCH_SESSION_EPOCH)), List.of());
        }
        List<PartitionOutcome> outcomes = new ArrayList<>();
        Set<TopicPartition> answered = new HashSet<>();
        for (FetchableTopicResponse topic : response.responses()) {
            String name = topicName(topic, sessionTopics, cluster);
            for (PartitionData pd : topic.partitions()) {
                ByteBuf records = pd.records();
                TopicPartition tp = name == null ? null : new TopicPartition(name, pd.partitionIndex());
                FetchTarget target = tp == null ? null : targets.get(tp);
                // a partition named twice is taken once: a second answer would be read against the same position
                if (target == null || !target.isCurrent() || !answered.add(tp)) {
                    release(records);
                    continue;
                }
                outcomes.add(outcome(node, target, pd, records));
            }
        }
        return new FetchOutcome(null, outcomes);
    }

    private PartitionOutcome outcome(Node node, FetchTarget target, PartitionData pd, ByteBuf records) {
        PartitionState ps = target.partition();
        Errors error = Errors.forCode(pd.errorCode());
        if (error.isNone() && pd.divergingEpoch().epoch() >= 0) {
            // KIP-320 via Fetch: the log diverges from what was fetched before
            release(records);
            return new FetchOutcome.Diverged(target, pd.divergingEpoch().epoch(), pd.divergingEpoch().endOffset());
        }
        if (error.isNone()) {
            return records(target, pd, records);
        }
        release(records);
        if (ReadReplicas.isFetchedFrom(ps, node)) {
            // A follower out of range or not (yet) in sync is no verdict on the position: the leader is.
            return new FetchOutcome.ReadReplicaFailed(target, error);
        }
        if (error == Errors.OFFSET_OUT_OF_RANGE) {
            return new FetchOutcome.OutOfRange(target);
        }
        if (OffsetLookup.isLeaderError(error)) {
            return new FetchOutcome.LeaderError(target, error);
        }
        if (error == Errors.CORRUPT_MESSAGE) {
            return new FetchOutcome.Failed(target, new CorruptRecordException(ps.topicPartition(), target.fetchOffset(),
                    "the broker reported corrupt data for " + ps.topicPartition(), null));
        }
        return new FetchOutcome.Failed(target, BrokerErrors.of(pd.errorCode(), "Fetch of " + ps.topicPartition()
                + " at offset " + target.fetchOffset() + " failed: " + Errors.nameOf(pd.errorCode()),
                ps.topicPartition().topic(), null));
    }

    /** An answer without error: the complete batches past the fetch offset, or none. */
    private PartitionOutcome records(FetchTarget target, PartitionData pd, ByteBuf records) {
        if (records == null || !records.isReadable()) {
            release(records);
            return new FetchOutcome.NoRecords(target, pd, true, 0);
        }
        BatchScan.Result scan = BatchScan.scan(records, target.fetchOffset(), target.lastFetchedEpoch());
        long next = scan.nextOffset();
        if (next <= target.fetchOffset()) {
            // Only a partial batch: the broker returns at least one whole batch first (KIP-74), so
            // this is a partition behind others in a full response; it is fetched again.
            release(records);
            return new FetchOutcome.NoRecords(target, pd, false, scan.records());
        }
        List<FetchResponse.AbortedTransaction> aborted = config.readCommitted() && pd.abortedTransactions() != null
                ? pd.abortedTransactions() : List.of();
        CompletedFetch fetch = new CompletedFetch(target.partition(), target.seekEpoch(), target.fetchOffset(), next,
                records, records.readableBytes(), pd.highWatermark(), aborted);
        return new FetchOutcome.Fetched(target, pd, fetch, scan.lastEpoch(), scan.records());
    }

    /** The topic's name: v13+ responses name topics by id (those of the session first, then metadata). */
    private static String topicName(FetchableTopicResponse topic, Map<UUID, String> sessionTopics, Cluster cluster) {
        if (topic.topic() != null && !topic.topic().isEmpty()) {
            return topic.topic();
        }
        String name = topic.topicId() == null ? null : sessionTopics.get(topic.topicId());
        return name != null ? name : cluster.topicName(topic.topicId());
    }

    static void release(ByteBuf records) {
        if (records != null && records.refCnt() > 0) {
            records.release();
        }
    }
}
