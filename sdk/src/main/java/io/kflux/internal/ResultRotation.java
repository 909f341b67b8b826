package io.kflux.internal;

import io.kflux.fetch.CompletedFetch;
import io.kflux.fetch.PartitionState;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The order in which {@code process()}'s emitter takes fetched results: partitions take turns, and a result gives way
 * to another partition's waiting result once a slice of it was emitted (between two records, inside a record batch of
 * the log too: producers write batches of thousands of small records).
 * Without it, one partition's whole result (up to {@code max.partition.fetch.bytes}, thousands of small records) fills
 * the records {@code process()} holds, so its keys alone can run (issue #27).
 *
 * <p>Within a partition, results keep their fetch order: a result that gave way goes back to the head of its
 * partition's results (before a newer one fetched meanwhile), with its {@link BatchWalk} where it stopped, so nothing
 * is read twice. Nothing here holds more than the fetcher buffered already: at most
 * {@code FetchPlanner.MAX_PENDING_FETCHES} results per partition, as bytes, under the consumer's buffered bytes bound.
 *
 * <p>Drain loop only (not thread-safe). {@code receive()} and the other calls have no rotation (the emitter's field
 * is null): their results go out one after another as before, at the cost of a null check per result and per record
 * (as for tracing).
 */
final class ResultRotation {
    /** A result waiting for its turn, with its walk where it stopped, or null when it has not started. */
    record Turn(CompletedFetch result, BatchWalk walk) {
    }

    private final int sliceRecords;
    /** Each partition's waiting results, oldest first; a partition without any has no entry. */
    private final Map<PartitionState, ArrayDeque<Turn>> waiting = new IdentityHashMap<>();
    /** Partitions with a waiting result, in turn order; never the partition of {@link #taken}. */
    private final ArrayDeque<PartitionState> turns = new ArrayDeque<>();
    /** The result {@link #next()} handed out last, until the emitter asks for the next or it gives way. */
    private CompletedFetch taken;

    /** @param sliceRecords records (offsets) a result emits in a turn before it gives way to a waiting one, at least 1 */
    ResultRotation(int sliceRecords) {
        if (sliceRecords < 1) {
            throw new IllegalArgumentException("sliceRecords must be at least 1, was " + sliceRecords);
        }
        this.sliceRecords = sliceRecords;
    }

    int sliceRecords() {
        return sliceRecords;
    }

    /** A fetched result, in the order the fetcher delivered it. */
    void add(CompletedFetch result) {
        PartitionState ps = result.partition();
        ArrayDeque<Turn> queued = waiting.get(ps);
        if (queued == null) {
            queued = new ArrayDeque<>(2);
            waiting.put(ps, queued);
            if (taken == null || taken.partition() != ps) {
                turns.add(ps);
            }
        }
        queued.add(new Turn(result, null));
    }

    /**
     * The result whose turn it is, or null when none waits. The result handed out before (if it did not give way) is
     * done: its partition's next result, if any, queues for a turn behind the others.
     */
    Turn next() {
        if (taken != null) {
            PartitionState previous = taken.partition();
            taken = null;
            if (waiting.containsKey(previous)) {
                turns.add(previous);
            }
        }
        PartitionState ps = turns.poll();
        if (ps == null) {
            return null;
        }
        ArrayDeque<Turn> queued = waiting.get(ps);
        Turn turn = queued.poll();
        if (queued.isEmpty()) {
            waiting.remove(ps);
        }
        taken = turn.result();
        return turn;
    }

    /** Whether {@code result} is the one {@link #next()} handed out last (only such a result may give way). */
    boolean isTaken(CompletedFetch result) {
        return taken == result;
    }

    /** Whether a result of another partition than the taken one waits for a turn. */
    boolean othersWaiting() {
        return !turns.isEmpty();
    }

    /**
     * The taken result stops for now, {@code walk} where it stopped: it goes back before its partition's other
     * results, and its partition behind the others in turn order.
     */
    void giveWay(CompletedFetch result, BatchWalk walk) {
        if (taken != result) {
            throw new IllegalStateException("only the result handed out last gives way");
        }
        taken = null;
        PartitionState ps = result.partition();
        waiting.computeIfAbsent(ps, p -> new ArrayDeque<>(2)).addFirst(new Turn(result, walk));
        turns.add(ps);
    }

    /** Hands every waiting result to {@code finish} (the subscription ended) and forgets them. */
    void clear(Consumer<CompletedFetch> finish) {
        taken = null;
        turns.clear();
        for (ArrayDeque<Turn> queued : waiting.values()) {
            for (Turn turn : queued) {
                finish.accept(turn.result());
            }
        }
        waiting.clear();
    }
}
