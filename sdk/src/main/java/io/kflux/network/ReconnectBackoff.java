package io.kflux.network;

import io.github.resilience4j.core.IntervalFunction;

/**
 * The delay before the next connection attempt to a node: {@code reconnect.backoff.ms} after the
 * first failure, doubling with each further one up to {@code reconnect.backoff.max.ms}, each value
 * jittered by +/-20% so that many clients that lost the same broker do not come back in lockstep.
 * The official client computes the same curve (and also caps the jittered value at the maximum).
 */
final class ReconnectBackoff {
    private static final double MULTIPLIER = 2.0;
    private static final double JITTER = 0.2;

    private final long maxMs;
    private final IntervalFunction intervals;

    ReconnectBackoff(long initialMs, long maxMs) {
        this.maxMs = maxMs;
        // resilience4j refuses a zero interval; zero means "no backoff" here.
        this.intervals = initialMs <= 0 ? null
                : maxMs > initialMs ? IntervalFunction.ofExponentialRandomBackoff(initialMs, MULTIPLIER, JITTER, maxMs)
                : IntervalFunction.ofRandomized(initialMs, JITTER);
    }

    /** The delay in milliseconds after {@code failures} consecutive failures (1 or more). */
    long delayMs(int failures) {
        if (intervals == null || failures <= 0) {
            return 0;
        }
        return Math.min(intervals.apply(failures), maxMs);
    }
}
