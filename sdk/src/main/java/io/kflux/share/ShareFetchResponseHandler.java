package io.kflux.share;

import io.kflux.KafkaFluxException;
import io.kflux.TopicPartition;
import io.kflux.metadata.BrokerErrors;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.AcknowledgementBatch;
import io.kflux.protocol.message.ShareAcknowledgeResponse;
import io.kflux.protocol.message.ShareFetchResponse;
import io.kflux.share.ShareOutcome.PartitionOutcome;
import io.kflux.share.ShareOutcome.Result;
import io.kflux.share.ShareOutcome.Verdict;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Reads one ShareFetch or ShareAcknowledge answer, with what its request carried, into a {@link ShareOutcome}: the
 * top-level error's verdict (KIP-932: the session lost, authorization, retry), then per partition what its
 * acknowledgements' waiters hear, what was acquired and what else its error asks for. It changes no state and calls
 * nothing, has no clock and does no I/O: {@link ShareFetcher} applies the outcome. It does own the answer's record
 * buffers: those it hands on travel in the outcome ({@link ShareOutcome.Acquired}), all others are released here.
 */
final class ShareFetchResponseHandler {
    private final String groupId;

    /** @param groupId the share group, named in errors */
    ShareFetchResponseHandler(String groupId) {
        this.groupId = groupId;
    }

    /**
     * What a ShareFetch answer means.
     *
     * @param nodeId     the broker that answered
     * @param sent       the acknowledgements the request carried
     * @param assigned   the member's assignment now: records acquired for other partitions are released
     * @param topicNames topic names by id, for the assigned topics
     */
    ShareOutcome fetched(int nodeId, ShareBroker.Drained sent, ShareFetchResponse response,
                         Map<TopicPartition, UUID> assigned, Map<UUID, String> topicNames) {
        if (response.errorCode() != Errors.NONE.code()) {
            response.release();
            return refused(nodeId, sent, response.errorCode(), response.errorMessage(), response.throttleTimeMs());
        }
        List<PartitionOutcome> outcomes = new ArrayList<>();
        Set<SharePartition> answered = new HashSet<>();
        Set<SharePartition> failed = new HashSet<>();
        long bytes = 0;
        int records = 0;
        int lockMs = response.acquisitionLockTimeoutMs();
        for (ShareFetchResponse.ShareFetchableTopicResponse t : response.responses()) {
            for (ShareFetchResponse.PartitionData p : t.partitions()) {
                SharePartition sp = new SharePartition(t.topicId(), p.partitionIndex());
                answered.add(sp);
                if (p.acknowledgeErrorCode() != Errors.NONE.code()) {
                    failed.add(sp);
                }
                if (p.errorCode() == Errors.NONE.code() && p.acquiredRecords() != null) {
                    for (ShareFetchResponse.AcquiredRecords a : p.acquiredRecords()) {
                        records += (int) (a.lastOffset() - a.firstOffset() + 1);
                    }
                    bytes += p.records() == null ? 0 : p.records().readableBytes();
                }
                outcomes.add(new PartitionOutcome(sp, ackError(topicNames, t.topicId(), p.acknowledgeErrorCode(),
                        p.acknowledgeErrorMessage()), lockMs, fetchResult(nodeId, t.topicId(), p, assigned,
                        topicNames)));
            }
        }
        return answered(nodeId, sent, response.throttleTimeMs(), outcomes, answered, failed, bytes, records);
    }

    /**
     * What a ShareAcknowledge answer means.
     *
     * @param nodeId     the broker that answered
     * @param sent       the acknowledgements the request carried
     * @param topicNames topic names by id, for the assigned topics
     */
    ShareOutcome acknowledged(int nodeId, ShareBroker.Drained sent, ShareAcknowledgeResponse response,
                              Map<UUID, String> topicNames) {
        if (response.errorCode() != Errors.NONE.code()) {
            return refused(nodeId, sent, response.errorCode(), response.errorMessage(), response.throttleTimeMs());
        }
        List<PartitionOutcome> outcomes = new ArrayList<>();
        Set<SharePartition> answered = new HashSet<>();
        Set<SharePartition> failed = new HashSet<>();
        for (ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse t : response.responses()) {
            for (ShareAcknowledgeResponse.PartitionData p : t.partitions()) {
                SharePartition sp = new SharePartition(t.topicId(), p.partitionIndex());
                answered.add(sp);
                if (p.errorCode() != Errors.NONE.code()) {
                    failed.add(sp);
                }
                outcomes.add(new PartitionOutcome(sp, ackError(topicNames, t.topicId(), p.errorCode(),
                        p.errorMessage()), response.acquisitionLockTimeoutMs(),
                        isLeaderError(p.errorCode()) ? new ShareOutcome.LeaderError(Errors.forCode(p.errorCode()))
                                : null));
            }
        }
        return answered(nodeId, sent, response.throttleTimeMs(), outcomes, answered, failed, 0, 0);
    }

    /**
     * What a request without an answer means for the acknowledgements it carried and for the consumer.
     *
     * @param renew whether the request renewed locks (a ShareAcknowledge with {@code IsRenewAck})
     */
    ShareOutcome.NoAnswer noAnswer(int nodeId, Throwable e, boolean renew) {
        if (e instanceof UnsupportedVersionException u) {
            io.kflux.UnsupportedVersionException typed = new io.kflux.UnsupportedVersionException(u.getMessage()
                    + " (share groups need ShareFetch/ShareAcknowledge v1+: Kafka 4.1 or later, production-ready "
                    + "from 4.2)", u);
            return new ShareOutcome.NoAnswer(typed, !renew);
        }
        return new ShareOutcome.NoAnswer(e instanceof KafkaFluxException k ? k
                : new KafkaFluxException("share request to broker " + nodeId + " failed: " + e, e), false);
    }

    /** The verdict on a top-level error code (not NONE). */
    static Verdict verdict(short code) {
        if (code == Errors.GROUP_AUTHORIZATION_FAILED.code() || code == Errors.TOPIC_AUTHORIZATION_FAILED.code()) {
            return Verdict.FATAL;
        }
        return ShareSession.isSessionError(code) ? Verdict.SESSION_LOST : Verdict.RETRY;
    }

    /** An answer with a top-level error: every acknowledgement the request carried fails with it. */
    private ShareOutcome refused(int nodeId, ShareBroker.Drained sent, short code, String message, int throttleMs) {
        KafkaFluxException error = BrokerErrors.of(code, "share request to broker " + nodeId + " for group "
                + groupId + " answered " + Errors.nameOf(code) + (message == null ? "" : ": " + message), null,
                groupId);
        int all = acknowledgementCount(sent, null);
        return new ShareOutcome(verdict(code), code, error, throttleMs, List.of(), all, all, 0, 0);
    }

    /** The partitions the request carried acknowledgements for and the answer left out fail: nobody confirmed them. */
    private static ShareOutcome answered(int nodeId, ShareBroker.Drained sent, int throttleMs,
                                         List<PartitionOutcome> outcomes, Set<SharePartition> answered,
                                         Set<SharePartition> failed, long bytes, int records) {
        for (SharePartition sp : sent.batches().keySet()) {
            if (!answered.contains(sp)) {
                failed.add(sp);
                outcomes.add(new PartitionOutcome(sp, new KafkaFluxException("broker " + nodeId + " did not answer "
                        + "the acknowledgements of " + sp), 0, null));
            }
        }
        return new ShareOutcome(Verdict.ANSWERED, Errors.NONE.code(), null, throttleMs, outcomes,
                acknowledgementCount(sent, null), acknowledgementCount(sent, failed), bytes, records);
    }

    /** One ShareFetch partition's records or error; releases the records it does not hand on. */
    private Result fetchResult(int nodeId, UUID topicId, ShareFetchResponse.PartitionData p,
                               Map<TopicPartition, UUID> assigned, Map<UUID, String> topicNames) {
        String topic = topicNames.get(topicId);
        TopicPartition tp = topic == null ? null : new TopicPartition(topic, p.partitionIndex());
        if (p.errorCode() != Errors.NONE.code()) {
            release(p.records());
            if (p.errorCode() == Errors.TOPIC_AUTHORIZATION_FAILED.code()) {
                return new ShareOutcome.Fatal(BrokerErrors.of(p.errorCode(), "ShareFetch of "
                        + (tp == null ? topicId : tp) + " answered TOPIC_AUTHORIZATION_FAILED", topic, groupId));
            }
            if (isLeaderError(p.errorCode())) {
                return new ShareOutcome.LeaderError(Errors.forCode(p.errorCode()));
            }
            return new ShareOutcome.PartitionError(String.valueOf(tp == null ? topicId : tp),
                    p.errorCode(), p.errorMessage());
        }
        if (p.acquiredRecords() == null || p.acquiredRecords().isEmpty()) {
            release(p.records());
            return null;
        }
        if (tp == null || !assigned.containsKey(tp)) {
            release(p.records());
            return new ShareOutcome.NotAssigned(List.copyOf(p.acquiredRecords()));
        }
        return new ShareOutcome.Acquired(new AcquiredBatch(nodeId, tp, topicId, p.records(),
                List.copyOf(p.acquiredRecords())));
    }

    private KafkaFluxException ackError(Map<UUID, String> topicNames, UUID topicId, short code, String message) {
        if (code == Errors.NONE.code()) {
            return null;
        }
        return BrokerErrors.of(code, "acknowledgement not accepted by the broker: " + Errors.nameOf(code)
                + (message == null || message.isEmpty() ? "" : ": " + message)
                + (code == Errors.INVALID_RECORD_STATE.code()
                        ? " (the record's acquisition lock had expired or it was not acquired by this member)" : ""),
                topicNames.get(topicId), groupId);
    }

    /** A partition error that means the metadata is stale: the partition moved, or its topic is not known. */
    static boolean isLeaderError(short code) {
        return code == Errors.NOT_LEADER_OR_FOLLOWER.code() || code == Errors.UNKNOWN_TOPIC_OR_PARTITION.code()
                || code == Errors.UNKNOWN_TOPIC_ID.code() || code == Errors.FENCED_LEADER_EPOCH.code();
    }

    /** The offsets {@code sent} acknowledges, of the partitions in {@code only} (null: all). */
    static int acknowledgementCount(ShareBroker.Drained sent, Set<SharePartition> only) {
        int n = 0;
        for (Map.Entry<SharePartition, List<AcknowledgementBatch>> e : sent.batches().entrySet()) {
            if (only == null || only.contains(e.getKey())) {
                for (AcknowledgementBatch batch : e.getValue()) {
                    n += (int) (batch.lastOffset() - batch.firstOffset() + 1);
                }
            }
        }
        return n;
    }

    private static void release(ByteBuf records) {
        if (records != null) {
            records.release();
        }
    }
}
