package io.kflux.fetch;

import io.kflux.LogTruncationException;
import io.kflux.TopicPartition;
import io.kflux.metadata.BrokerErrors;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.Node;
import io.kflux.metadata.PartitionInfo;
import io.kflux.protocol.Errors;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.message.OffsetForLeaderEpochResponse.EpochEndOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Position validation after a leader change (KIP-320): partitions {@link FetchState#AWAITING_VALIDATION} ask their
 * leader for the end offset of the epoch they last fetched (OffsetForLeaderEpoch, one request per leader), and that
 * end offset, or a Fetch's {@code divergingEpoch}, confirms the position, moves it back after a truncation, or resets
 * it; with {@code auto.offset.reset=none} a truncation fails the consumer with {@link LogTruncationException}. Loop
 * only.
 */
final class PositionValidation {
    /** The fetcher's log category, kept for these lines (log configurations name it). */
    private static final Logger log = LoggerFactory.getLogger(Fetcher.class);

    private final FetchIo io;
    private final FetchLoop loop;
    private final FetchSink sink;
    private final OffsetResetStrategy strategy;
    private final long retryBackoffMs;
    /** The fetcher's assigned partitions (a live view). */
    private final Map<TopicPartition, PartitionState> partitions;
    private final Runnable plan;
    private final Runnable refreshMetadata;

    /**
     * @param plan            plans the next fetches (after an answer)
     * @param refreshMetadata asks for metadata (after a leader error), rate-limited by the fetcher
     */
    PositionValidation(FetchIo io, FetchLoop loop, FetchSink sink, OffsetResetStrategy strategy, long retryBackoffMs,
                       Map<TopicPartition, PartitionState> partitions, Runnable plan, Runnable refreshMetadata) {
        this.io = io;
        this.loop = loop;
        this.sink = sink;
        this.strategy = strategy;
        this.retryBackoffMs = retryBackoffMs;
        this.partitions = partitions;
        this.plan = plan;
        this.refreshMetadata = refreshMetadata;
    }

    /**
     * Checks the fetch positions of partitions whose leader changed (OffsetForLeaderEpoch, one
     * request per leader): the end offset of the last fetched epoch must not be below the fetch
     * offset. Until answered, those partitions are not fetched.
     */
    void validatePositions(Cluster cluster) {
        Map<Node, Map<TopicPartition, EpochEndOffsets.Query>> byLeader = new LinkedHashMap<>();
        Map<Node, Map<TopicPartition, FetchTarget>> targets = new HashMap<>();
        for (PartitionState ps : partitions.values()) {
            if (ps.state() != FetchState.AWAITING_VALIDATION || ps.isPaused()) {
                continue;
            }
            if (ps.lastFetchedEpoch() < 0) {
                ps.transitionTo(FetchState.FETCHABLE); // nothing fetched under a known epoch: nothing to check
                continue;
            }
            PartitionInfo info = cluster.partition(ps.topicPartition());
            Node leader = info == null || info.leaderId() < 0 ? null : cluster.node(info.leaderId());
            if (leader == null) {
                continue; // plan() has asked for metadata
            }
            byLeader.computeIfAbsent(leader, n -> new LinkedHashMap<>())
                    .put(ps.topicPartition(), new EpochEndOffsets.Query(info.leaderEpoch(), ps.lastFetchedEpoch()));
            targets.computeIfAbsent(leader, n -> new HashMap<>()).put(ps.topicPartition(),
                    FetchTarget.of(ps, info.leaderEpoch()).entering(FetchState.VALIDATING));
        }
        byLeader.forEach((leader, queries) -> {
            Map<TopicPartition, FetchTarget> sent = targets.get(leader);
            io.offsetsForLeaderEpoch(leader, queries).subscribe(
                    result -> loop.execute(() -> onValidated(leader, sent, result)),
                    error -> loop.execute(() -> onValidationFailed(leader, sent, error)));
        });
    }

    private void onValidated(Node leader, Map<TopicPartition, FetchTarget> sent, Map<TopicPartition, EpochEndOffset> result) {
        if (loop.isClosed()) {
            return;
        }
        Map<TopicPartition, Long> truncated = new HashMap<>();
        Map<TopicPartition, Long> divergent = new HashMap<>();
        List<FetchTarget> retry = new ArrayList<>();
        boolean refresh = false;
        for (FetchTarget target : sent.values()) {
            PartitionState ps = target.partition();
            if (!target.isCurrent()) {
                // fetched again from the position meanwhile: that one is asked for next; seeked, reset or revoked
                // (no longer VALIDATING): nothing to validate any more
                target.leave(FetchState.VALIDATING, FetchState.AWAITING_VALIDATION);
                continue;
            }
            if (!target.isStillIn(FetchState.VALIDATING)) {
                continue;
            }
            EpochEndOffset answer = result.get(ps.topicPartition());
            Errors error = answer == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(answer.errorCode());
            if (error.isNone()) {
                onEpochEndOffset(ps, target.fetchOffset(), target.lastFetchedEpoch(), answer.leaderEpoch(),
                        answer.endOffset(), truncated, divergent);
            } else if (error == Errors.UNSUPPORTED_VERSION) {
                ps.transitionTo(FetchState.FETCHABLE); // as the official client: no validation without the API
            } else if (OffsetLookup.isLeaderError(error) || error.retriable() || answer == null) {
                log.debug("OffsetForLeaderEpoch of {} from {}: {}; retrying", ps.topicPartition(), leader, error);
                refresh |= OffsetLookup.isLeaderError(error);
                retry.add(target);
            } else {
                sink.fail(BrokerErrors.of(answer.errorCode(), "OffsetForLeaderEpoch for " + ps.topicPartition() + " failed: "
                        + Errors.nameOf(answer.errorCode()), ps.topicPartition().topic(), null));
                return;
            }
        }
        if (!truncated.isEmpty()) {
            sink.fail(new LogTruncationException(truncated, divergent));
            return;
        }
        if (refresh) {
            refreshMetadata.run();
        }
        retryValidationLater(retry);
        plan.run();
    }

    private void onValidationFailed(Node leader, Map<TopicPartition, FetchTarget> sent, Throwable error) {
        if (loop.isClosed()) {
            return;
        }
        if (error instanceof MalformedMessageException malformed) {
            sink.fail(Fetcher.malformedResponse("OffsetForLeaderEpoch from " + leader, malformed));
            return;
        }
        if (error instanceof io.kflux.network.UnsupportedVersionException
                || error instanceof io.kflux.UnsupportedVersionException) {
            // the broker offers no OffsetForLeaderEpoch version kflux speaks: skip validation, as the official client
            log.debug("OffsetForLeaderEpoch not supported by {}; fetch positions are not validated", leader);
            sent.values().forEach(t -> t.leave(FetchState.VALIDATING, FetchState.FETCHABLE));
            plan.run();
            return;
        }
        log.debug("OffsetForLeaderEpoch from {} failed: {}", leader, error.toString());
        refreshMetadata.run();
        retryValidationLater(List.copyOf(sent.values()));
    }

    /** Keeps the partitions VALIDATING until the backoff passed, so plan() does not ask again at once. */
    private void retryValidationLater(List<FetchTarget> retry) {
        if (retry.isEmpty()) {
            return;
        }
        loop.schedule(retryBackoffMs, () -> {
            retry.forEach(t -> t.leave(FetchState.VALIDATING, FetchState.AWAITING_VALIDATION));
            plan.run();
        });
    }

    /**
     * The end offset of the leader epoch a partition was last fetched under, from OffsetForLeaderEpoch
     * or a Fetch's {@code divergingEpoch}; the official client's rules (SubscriptionState
     * maybeCompleteValidation): unknown -> reset by policy; below the fetch offset -> truncation,
     * resume at that end offset; otherwise the position is valid. With {@code none} the
     * partition goes into {@code truncated} (and {@code divergent} when the end offset is known)
     * for a {@link LogTruncationException}. The partition is {@link FetchState#VALIDATING} or, after a Fetch,
     * {@link FetchState#FETCHABLE}.
     */
    void onEpochEndOffset(PartitionState ps, long fetchOffset, int fetchedEpoch, int epoch, long endOffset,
                                  Map<TopicPartition, Long> truncated, Map<TopicPartition, Long> divergent) {
        TopicPartition tp = ps.topicPartition();
        if (epoch < 0 || endOffset < 0) {
            if (strategy == OffsetResetStrategy.NONE) {
                truncated.put(tp, fetchOffset);
                return;
            }
            log.warn("Log truncation detected for {} at fetch offset {}: the leader does not know leader epoch {}; "
                    + "resetting to {}", tp, fetchOffset, fetchedEpoch, strategy);
            ps.requireReset();
        } else if (endOffset < fetchOffset) {
            if (strategy == OffsetResetStrategy.NONE) {
                truncated.put(tp, fetchOffset);
                divergent.put(tp, endOffset);
                return;
            }
            log.warn("Log truncation detected for {}: leader epoch {} ends at offset {} in the leader's log, below the "
                    + "fetch offset {} (last fetched epoch {}); resuming at {} at most", tp, epoch, endOffset, fetchOffset,
                    fetchedEpoch, endOffset);
            ps.beginTruncation(endOffset, epoch);
        } else {
            if (epoch < ps.lastFetchedEpoch()) {
                // the leader has no epoch `fetchedEpoch`; its largest older one covers the fetch offset
                ps.lastFetchedEpoch(epoch);
            }
            ps.transitionTo(FetchState.FETCHABLE); // the position is valid
        }
    }
}
