package io.kflux.internal.metrics;

/**
 * Average, maximum and rate of recorded values over the last two 30-second windows, as the official client's
 * sampled stats compute them with its default {@code metrics.sample.window.ms=30000} and {@code metrics.num.samples=2}
 * (a window older than both is forgotten, so a figure describes the last 30 to 60 seconds). Also the all-time count
 * and sum, for the {@code -total} meters.
 *
 * <p>Thread-safe: recording and reading take this object's lock, held for a few arithmetic operations only.
 */
final class WindowedStat {
    static final long WINDOW_NANOS = 30_000_000_000L;

    private final long[] windowStart = new long[2];
    private final long[] count = new long[2];
    private final double[] sum = new double[2];
    private final double[] max = {Double.NaN, Double.NaN};
    private final double[] min = {Double.NaN, Double.NaN};
    private final long createdNanos;
    private int current;
    private long totalCount;
    private double totalSum;

    WindowedStat() {
        this(System.nanoTime());
    }

    WindowedStat(long nowNanos) {
        createdNanos = nowNanos;
        windowStart[0] = nowNanos;
        windowStart[1] = nowNanos - WINDOW_NANOS; // the other window starts out expired
    }

    synchronized void record(double value, long nowNanos) {
        roll(nowNanos);
        count[current]++;
        sum[current] += value;
        max[current] = Double.isNaN(max[current]) ? value : Math.max(max[current], value);
        min[current] = Double.isNaN(min[current]) ? value : Math.min(min[current], value);
        totalCount++;
        totalSum += value;
    }

    private void roll(long nowNanos) {
        if (nowNanos - windowStart[current] >= WINDOW_NANOS) {
            current = 1 - current;
            windowStart[current] = nowNanos;
            count[current] = 0;
            sum[current] = 0;
            max[current] = Double.NaN;
            min[current] = Double.NaN;
        }
    }

    private boolean live(int i, long nowNanos) {
        return nowNanos - windowStart[i] < 2 * WINDOW_NANOS;
    }

    /** Mean of the values recorded in the live windows, NaN when none was (the official client's avg). */
    synchronized double avg(long nowNanos) {
        roll(nowNanos);
        long n = 0;
        double s = 0;
        for (int i = 0; i < 2; i++) {
            if (live(i, nowNanos)) {
                n += count[i];
                s += sum[i];
            }
        }
        return n == 0 ? Double.NaN : s / n;
    }

    /** Largest value recorded in the live windows, NaN when none was. */
    synchronized double max(long nowNanos) {
        return extreme(max, nowNanos, true);
    }

    /** Smallest value recorded in the live windows, NaN when none was (the official {@code Min}). */
    synchronized double min(long nowNanos) {
        return extreme(min, nowNanos, false);
    }

    private double extreme(double[] perWindow, long nowNanos, boolean largest) {
        roll(nowNanos);
        double m = Double.NaN;
        for (int i = 0; i < 2; i++) {
            if (live(i, nowNanos) && !Double.isNaN(perWindow[i])) {
                m = Double.isNaN(m) ? perWindow[i] : largest ? Math.max(m, perWindow[i]) : Math.min(m, perWindow[i]);
            }
        }
        return m;
    }

    /**
     * Recordings (or, with {@code ofValues}, the sum of the values) per second over the live windows: the elapsed
     * time counts from the older live window's start, but at least one full window, as the official {@code Rate}.
     */
    synchronized double rate(long nowNanos, boolean ofValues) {
        roll(nowNanos);
        double amount = 0;
        long oldest = nowNanos;
        for (int i = 0; i < 2; i++) {
            if (live(i, nowNanos)) {
                amount += ofValues ? sum[i] : count[i];
                oldest = Math.min(oldest, Math.max(windowStart[i], createdNanos));
            }
        }
        long elapsed = Math.max(nowNanos - oldest, WINDOW_NANOS);
        return amount / (elapsed / 1e9);
    }

    synchronized long totalCount() {
        return totalCount;
    }

    synchronized double totalSum() {
        return totalSum;
    }
}
