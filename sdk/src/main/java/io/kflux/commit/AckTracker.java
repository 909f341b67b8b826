package io.kflux.commit;

import java.util.Map;
import java.util.TreeMap;

/**
 * Acknowledgements of one partition. The committable offset is one past the highest offset whose
 * every predecessor since the start position was acknowledged or skipped (control markers,
 * compaction gaps): acknowledgements may arrive in any order (parallel processing), and only the
 * contiguous prefix counts.
 *
 * <p>Acknowledged offsets beyond the prefix are kept as merged intervals, so memory grows with how
 * fragmented the out-of-order acknowledgements are, not with the number of records: in-order
 * acknowledgement stores nothing. An acknowledgement costs O(1) when it extends the prefix
 * (amortized over the intervals it absorbs) and O(log n) otherwise, n being the number of
 * intervals. Thread-safe: the emitter reports gaps and any thread may acknowledge.
 */
public final class AckTracker {
    private long committable;
    /** Acknowledged intervals [start, end) above {@link #committable}, keyed by start, never adjacent. */
    private final TreeMap<Long, Long> ahead = new TreeMap<>();

    /** @param startOffset the position the partition starts at (nothing before it counts) */
    public AckTracker(long startOffset) {
        this.committable = startOffset;
    }

    /** The next offset to commit: every record before it was acknowledged or skipped. */
    public synchronized long committable() {
        return committable;
    }

    /** Marks the record at {@code offset} as processed. Acknowledging twice, or below the prefix, is harmless. */
    public void acknowledge(long offset) {
        mark(offset, offset + 1);
    }

    /** Offsets {@code [from, to)} hold nothing to emit (control batches, compaction): they count as done. */
    public void skip(long from, long to) {
        if (to > from) {
            mark(from, to);
        }
    }

    private synchronized void mark(long from, long to) {
        if (to <= committable) {
            return;
        }
        if (from <= committable) {
            committable = to;
            absorb();
            return;
        }
        long start = from;
        long end = to;
        Map.Entry<Long, Long> before = ahead.floorEntry(start);
        if (before != null && before.getValue() >= start) {
            start = before.getKey();
            end = Math.max(end, before.getValue());
        }
        for (Map.Entry<Long, Long> next = ahead.ceilingEntry(start); next != null && next.getKey() <= end;
                next = ahead.ceilingEntry(start)) {
            end = Math.max(end, next.getValue());
            ahead.remove(next.getKey());
        }
        ahead.put(start, end);
    }

    private void absorb() {
        for (Map.Entry<Long, Long> first = ahead.firstEntry(); first != null && first.getKey() <= committable;
                first = ahead.firstEntry()) {
            committable = Math.max(committable, first.getValue());
            ahead.pollFirstEntry();
        }
    }

    /** Intervals waiting above the prefix (for tests and metrics). */
    public synchronized int pendingIntervals() {
        return ahead.size();
    }
}
