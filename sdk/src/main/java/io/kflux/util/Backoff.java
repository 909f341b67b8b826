package io.kflux.util;

import io.github.resilience4j.core.IntervalFunction;

/**
 * Exponential backoff with jitter, as the official client computes it for reconnects
 * ({@code reconnect.backoff.ms} .. {@code reconnect.backoff.max.ms}) and retries
 * ({@code retry.backoff.ms} .. {@code retry.backoff.max.ms}): the initial delay after the first
 * failure, doubling with each further one up to the maximum, each value jittered by +/-20% so that
 * many clients that lost the same broker do not come back in lockstep.
 */
public final class Backoff {
    private static final double MULTIPLIER = 2.0;
    private static final double JITTER = 0.2;

    private final long maxMs;
    private final IntervalFunction intervals;

    public Backoff(long initialMs, long maxMs) {
        // A maximum below the initial delay means a fixed delay, as the official client reads these pairs.
        maxMs = Math.max(initialMs, maxMs);
        this.maxMs = maxMs;
        // resilience4j refuses a zero interval; zero means "no backoff" here.
        this.intervals = initialMs <= 0 ? null
                : maxMs > initialMs ? IntervalFunction.ofExponentialRandomBackoff(initialMs, MULTIPLIER, JITTER, maxMs)
                : IntervalFunction.ofRandomized(initialMs, JITTER);
    }

    /** The delay in milliseconds after {@code failures} consecutive failures (1 or more). */
    public long delayMs(int failures) {
        if (intervals == null || failures <= 0) {
            return 0;
        }
        return Math.min(intervals.apply(failures), maxMs);
    }

    /**
     * A Reactor retry that waits {@link #delayMs} between attempts, for errors {@code retriable}
     * accepts; others end the sequence at once. Callers bound the total time with {@code timeout}.
     */
    public reactor.util.retry.Retry retry(java.util.function.Predicate<Throwable> retriable) {
        return reactor.util.retry.Retry.from(signals -> signals.concatMap(signal -> retriable.test(signal.failure())
                ? reactor.core.publisher.Mono.delay(java.time.Duration.ofMillis(delayMs((int) Math.min(Integer.MAX_VALUE,
                        signal.totalRetries() + 1))))
                : reactor.core.publisher.Mono.error(signal.failure())));
    }
}
