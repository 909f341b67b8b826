package io.kflux.util;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter, as the official client computes it for reconnects
 * ({@code reconnect.backoff.ms} .. {@code reconnect.backoff.max.ms}) and retries
 * ({@code retry.backoff.ms} .. {@code retry.backoff.max.ms}): the initial delay after the first
 * failure, doubling with each further one up to the maximum, each value jittered by +/-20% so that
 * many clients that lost the same broker do not come back in lockstep (the official client's
 * {@code ExponentialBackoff} with multiplier 2 and jitter 0.2). A few lines of arithmetic, so kflux computes
 * them itself rather than depending on a resilience library for them.
 */
public final class Backoff {
    private static final double MULTIPLIER = 2.0;
    private static final double JITTER = 0.2;

    private final long initialMs;
    private final long maxMs;

    public Backoff(long initialMs, long maxMs) {
        // A maximum below the initial delay means a fixed delay, as the official client reads these pairs.
        maxMs = Math.max(initialMs, maxMs);
        this.initialMs = initialMs;
        this.maxMs = maxMs;
    }

    /** The delay in milliseconds after {@code failures} consecutive failures (1 or more). */
    public long delayMs(int failures) {
        if (initialMs <= 0 || failures <= 0) {
            return 0;
        }
        // in doubles a huge exponent gives infinity, which the maximum caps, never an overflowed long
        double base = Math.min(maxMs, initialMs * Math.pow(MULTIPLIER, failures - 1));
        double jittered = base * (1 + JITTER * (2 * ThreadLocalRandom.current().nextDouble() - 1));
        return Math.min(Math.round(jittered), maxMs);
    }

    /**
     * A Reactor retry that waits {@link #delayMs} between attempts, for errors {@code retriable}
     * accepts; others end the sequence at once. Callers bound the total time with {@code timeout}.
     *
     * @param timer where the waits run (kflux's timers, or virtual time in tests)
     */
    public reactor.util.retry.Retry retry(java.util.function.Predicate<Throwable> retriable,
                                          reactor.core.scheduler.Scheduler timer) {
        return reactor.util.retry.Retry.from(signals -> signals.concatMap(signal -> retriable.test(signal.failure())
                ? reactor.core.publisher.Mono.delay(java.time.Duration.ofMillis(delayMs((int) Math.min(Integer.MAX_VALUE,
                        signal.totalRetries() + 1))), timer)
                : reactor.core.publisher.Mono.error(signal.failure())));
    }
}
