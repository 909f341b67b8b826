package io.kflux.group;

import io.kflux.util.Backoff;

/**
 * How long a member of a broker-driven group waits before its next heartbeat, for both protocols whose coordinator
 * names the interval in each answer: KIP-848 consumer groups ({@link ConsumerMembership}) and KIP-932 share groups
 * ({@link ShareMemberCore}). After an answer without error: the interval the coordinator gave
 * ({@code heartbeatIntervalMs}; its default, {@value #DEFAULT_INTERVAL_MS} ms, until it first answers, the broker's
 * default {@code group.consumer.heartbeat.interval.ms} and {@code group.share.heartbeat.interval.ms}). After a
 * retriable failure: {@code retry.backoff.ms}, growing with each failure in a row to {@code retry.backoff.max.ms}
 * ({@link Backoff}); an answer or a newly found coordinator starts the backoff again. Pure: no timers, no clock; the
 * member schedules with the delays it returns. (The classic protocol's interval is the client's own
 * {@code heartbeat.interval.ms}: {@link ClassicHeartbeat}.)
 */
final class HeartbeatCadence {
    /** Until the coordinator says otherwise (ms). */
    static final int DEFAULT_INTERVAL_MS = 5_000;

    private final Backoff backoff;
    private int intervalMs = DEFAULT_INTERVAL_MS;
    private int failures;

    HeartbeatCadence(Backoff backoff) {
        this.backoff = backoff;
    }

    /** The interval the coordinator last named, ms (the default until it answers). */
    int intervalMs() {
        return intervalMs;
    }

    /**
     * An answer without error came.
     *
     * @param brokerIntervalMs the answer's {@code heartbeatIntervalMs}; 0 or less keeps the interval known so far
     * @return the delay before the next heartbeat, ms
     */
    long answered(int brokerIntervalMs) {
        failures = 0;
        if (brokerIntervalMs > 0) {
            intervalMs = brokerIntervalMs;
        }
        return intervalMs;
    }

    /** A heartbeat failed retriably. @return how many failed in a row */
    int failed() {
        return ++failures;
    }

    /** The delay before the next heartbeat after the failures in a row so far, ms ({@link Backoff}, jittered). */
    long retryDelayMs() {
        return backoff.delayMs(failures);
    }

    /** A coordinator was found, or answered something the member acted on: the backoff starts again. */
    void reset() {
        failures = 0;
    }
}
