package io.kflux.bench;

import java.util.Arrays;

/**
 * Durations of one kind in a contender JVM (kflux: an acknowledgement taken to its {@code Mono} completing; official:
 * one {@code poll}), kept whole and sorted at the end for percentiles. Any thread; a lock per add is cheap beside
 * what is timed (a broker round trip), and {@link ShareRunner} samples one record in {@value #EVERY} so the lock is
 * not on every record's path.
 */
final class LatencySample {
    /** kflux times one acknowledgement in this many (offset % EVERY == 0): the rest take no clock reading. */
    static final int EVERY = 16;

    private long[] nanos = new long[1 << 12];
    private int size;

    /** Whether the record at {@code offset} is one the sample times. */
    static boolean timed(long offset) {
        return offset % EVERY == 0;
    }

    synchronized void add(long durationNanos) {
        if (size == nanos.length) {
            nanos = Arrays.copyOf(nanos, size * 2);
        }
        nanos[size++] = durationNanos;
    }

    /** {@code n=.. p50Us=.. p99Us=.. maxUs=..} (microseconds; -1 for an empty sample), for a result line. */
    synchronized String summary(String prefix) {
        long[] sorted = Arrays.copyOf(nanos, size);
        Arrays.sort(sorted);
        long sum = 0;
        for (long n : sorted) {
            sum += n;
        }
        return String.format(java.util.Locale.ROOT, "%sMeanUs=%d %sN=%d %sP50Us=%d %sP99Us=%d %sMaxUs=%d", prefix,
                size == 0 ? -1 : sum / size / 1000, prefix, size, prefix,
                percentile(sorted, 0.50), prefix, percentile(sorted, 0.99), prefix,
                size == 0 ? -1 : sorted[size - 1] / 1000);
    }

    private static long percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return -1;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] / 1000;
    }
}
