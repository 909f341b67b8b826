package io.kflux.fetch;

import io.kflux.KafkaProtocolException;
import io.kflux.OffsetOutOfRangeException;
import io.kflux.TopicPartition;
import io.kflux.metadata.Cluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Positions by {@code auto.offset.reset}: partitions without one ({@link FetchState#AWAITING_RESET}) get the offset
 * ListOffsets finds for the policy's timestamp (earliest, latest, or now less {@code by_duration}, KIP-1106), and an
 * out-of-range fetch position is reset the same way. With {@code none} the consumer fails instead. Loop only.
 */
final class PositionReset {
    /** The fetcher's log category, kept for these lines (log configurations name it). */
    private static final Logger log = LoggerFactory.getLogger(Fetcher.class);

    private final FetchIo io;
    private final FetchLoop loop;
    private final FetchSink sink;
    private final OffsetResetStrategy strategy;
    private final long resetDurationMs;
    /** The fetcher's assigned partitions (a live view: answers check a partition is still the one asked for). */
    private final Map<TopicPartition, PartitionState> partitions;
    private final Runnable plan;
    private final Runnable retryLater;
    private boolean inFlight;

    /**
     * @param plan       plans the next fetches (after an answer)
     * @param retryLater plans again after {@code retry.backoff.ms} (after a retriable failure)
     */
    PositionReset(FetchIo io, FetchLoop loop, FetchSink sink, OffsetResetStrategy strategy, long resetDurationMs,
                  Map<TopicPartition, PartitionState> partitions, Runnable plan, Runnable retryLater) {
        this.io = io;
        this.loop = loop;
        this.sink = sink;
        this.strategy = strategy;
        this.resetDurationMs = resetDurationMs;
        this.partitions = partitions;
        this.plan = plan;
        this.retryLater = retryLater;
    }

    /**
     * Resets the partitions awaiting {@code auto.offset.reset} whose leader is known, with one ListOffsets round at a
     * time; with {@code none} the consumer fails with {@link OffsetOutOfRangeException} instead.
     */
    void resetPositions() {
        if (inFlight) {
            return;
        }
        Map<TopicPartition, Long> timestamps = new HashMap<>();
        // The states asked for, not just their partitions: one revoked and assigned again meanwhile has a new
        // state whose seek epoch counts from 0 too, and could match the old one's by chance.
        Map<TopicPartition, ResetAsked> asked = new HashMap<>();
        // a timestamp for the broker: the wall clock (the scheduler's clock is for deadlines, and monotonic)
        long timestamp = strategy == OffsetResetStrategy.BY_DURATION
                ? System.currentTimeMillis() - resetDurationMs : strategy.listOffsetsTimestamp;
        Cluster cluster = io.cluster();
        List<PartitionState> toReset = new ArrayList<>();
        for (PartitionState ps : partitions.values()) {
            // one without a leader (or missing from metadata) would keep ListOffsets, and so the reset of every other
            // partition, waiting for it
            if (ps.state() == FetchState.AWAITING_RESET && cluster.leader(ps.topicPartition()) != null) {
                timestamps.put(ps.topicPartition(), timestamp);
                toReset.add(ps);
            }
        }
        if (timestamps.isEmpty()) {
            return;
        }
        if (strategy == OffsetResetStrategy.NONE) {
            Map<TopicPartition, Long> noPosition = new HashMap<>();
            timestamps.keySet().forEach(tp -> noPosition.put(tp, -1L));
            sink.fail(new OffsetOutOfRangeException(noPosition));
            return;
        }
        toReset.forEach(ps -> asked.put(ps.topicPartition(), ResetAsked.entering(ps)));
        inFlight = true;
        io.listOffsets(timestamps, Duration.ofDays(3650))
                .flatMap(this::endWhereNoRecordMatched)
                .subscribe(result -> loop.execute(() -> {
                    inFlight = false;
                    asked.forEach((tp, a) -> {
                        ListedOffset listed = result.get(tp);
                        if (!a.isStill(partitions.get(tp))) {
                            return; // seeked, reset again or revoked meanwhile
                        }
                        if (listed == null) {
                            a.state().transitionTo(FetchState.AWAITING_RESET); // asked again by the next plan()
                        } else {
                            a.state().seek(Math.max(0L, listed.offset()));
                            log.debug("{} reset to offset {}", tp, a.state().fetchOffset());
                        }
                    });
                    plan.run();
                }), error -> loop.execute(() -> {
                    inFlight = false;
                    asked.forEach((tp, a) -> {
                        if (a.isStill(partitions.get(tp))) {
                            a.state().transitionTo(FetchState.AWAITING_RESET);
                        }
                    });
                    if (error instanceof KafkaProtocolException kpe && !kpe.isRetriable()) {
                        sink.fail(kpe);
                    } else {
                        retryLater.run();
                    }
                }));
    }

    /** A partition state a reset asked ListOffsets for, and its {@link PartitionState#transitions()} then. */
    private record ResetAsked(PartitionState state, int transitions) {
        static ResetAsked entering(PartitionState ps) {
            ps.transitionTo(FetchState.RESETTING);
            return new ResetAsked(ps, ps.transitions());
        }

        /** True while {@code current} is that state, still RESETTING as this ask left it (not seeked since). */
        boolean isStill(PartitionState current) {
            return current == state && current.state() == FetchState.RESETTING && current.transitions() == transitions;
        }
    }

    /** By-duration lookups find no offset when every record is older: those start at the end. */
    private Mono<Map<TopicPartition, ListedOffset>> endWhereNoRecordMatched(Map<TopicPartition, ListedOffset> found) {
        Map<TopicPartition, Long> missing = new HashMap<>();
        found.forEach((tp, listed) -> {
            if (listed.offset() < 0) {
                missing.put(tp, OffsetResetStrategy.LATEST.listOffsetsTimestamp);
            }
        });
        if (missing.isEmpty()) {
            return Mono.just(found);
        }
        return io.listOffsets(missing, Duration.ofDays(3650)).map(ends -> {
            Map<TopicPartition, ListedOffset> merged = new HashMap<>(found);
            merged.putAll(ends);
            return merged;
        });
    }

    /**
     * The Fetch answered OFFSET_OUT_OF_RANGE for these partitions (to the fetch offset asked): each is reset by
     * {@code auto.offset.reset}; with {@code none} the consumer fails with {@link OffsetOutOfRangeException}.
     */
    void outOfRange(Map<TopicPartition, Long> outOfRange) {
        if (strategy == OffsetResetStrategy.NONE) {
            sink.fail(new OffsetOutOfRangeException(outOfRange));
            return;
        }
        for (TopicPartition tp : outOfRange.keySet()) {
            PartitionState ps = partitions.get(tp);
            log.info("Fetch position {} of {} is out of range; resetting to {}", outOfRange.get(tp), tp, strategy);
            ps.requireReset();
        }
    }
}
