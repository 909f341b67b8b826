package io.kflux.bench;

import java.util.Arrays;

/**
 * When one consumer went without records: every gap of at least {@link #RESOLUTION_NANOS} between two consecutive
 * records it received (across all its partitions), kept so that the longest silence within a window chosen afterwards
 * can be read ({@link #longestSilence}). Times are {@link System#nanoTime()} values, given in non-decreasing order.
 * Not thread-safe: its owner serializes the calls.
 */
final class RecordGaps {

    /** Gaps shorter than this (0.5 ms) are not kept, which bounds the memory to one gap per 0.5 ms of records. */
    static final long RESOLUTION_NANOS = 500_000;

    private long[] from = new long[64];
    private long[] to = new long[64];
    private int size;
    private long last;

    /** @param sinceNanos when the consumer started: the first silence runs from there to its first record */
    RecordGaps(long sinceNanos) {
        last = sinceNanos;
    }

    /** A record arrived at {@code nanos}. */
    void record(long nanos) {
        if (nanos - last >= RESOLUTION_NANOS) {
            if (size == from.length) {
                from = Arrays.copyOf(from, size * 2);
                to = Arrays.copyOf(to, size * 2);
            }
            from[size] = last;
            to[size] = nanos;
            size++;
        }
        last = Math.max(last, nanos);
    }

    /**
     * The longest sub-interval of {@code [windowFrom, windowTo]} in which no record arrived, in ns: a gap that began
     * before the window counts from its start, one still open (no record since the last) up to its end. Silences
     * shorter than {@link #RESOLUTION_NANOS} may read as 0.
     */
    long longestSilence(long windowFrom, long windowTo) {
        long longest = Math.max(0, windowTo - Math.max(last, windowFrom)); // the open gap since the last record
        for (int i = 0; i < size; i++) {
            longest = Math.max(longest, Math.min(to[i], windowTo) - Math.max(from[i], windowFrom));
        }
        return longest;
    }
}
