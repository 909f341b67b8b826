package io.kflux.group;

import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code retry.backoff.ms} doubling per consecutive failure up to {@code retry.backoff.max.ms}, with +/-20% jitter
 * so that the members of a group that all lost their coordinator at once do not retry in lock step. A maximum
 * below the base means a fixed base delay, as with the official client.
 */
final class RetryBackoff {
    static final double JITTER = 0.2;

    private final long baseMs;
    private final long maxMs;

    RetryBackoff(long baseMs, long maxMs) {
        this.baseMs = baseMs;
        this.maxMs = Math.max(baseMs, maxMs);
    }

    /** The delay before retry number {@code attempt} (0 for the first retry), in ms. */
    long delayMs(int attempt) {
        if (baseMs == 0) {
            return 0;
        }
        double exp = baseMs * Math.pow(2, Math.min(attempt, 62));
        double capped = Math.min(exp, maxMs);
        double factor = 1 + ThreadLocalRandom.current().nextDouble(-JITTER, JITTER);
        return Math.max(0, Math.round(capped * factor));
    }

    /** The longest delay {@link #delayMs} can return, in ms. */
    long maxDelayMs() {
        return Math.round(maxMs * (1 + JITTER));
    }
}
