package io.kflux.telemetry;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The client telemetry states KIP-714 names. SUBSCRIPTION_NEEDED -> SUBSCRIPTION_IN_PROGRESS -> PUSH_NEEDED (metrics
 * subscribed) or SUBSCRIPTION_NEEDED (none subscribed, an error: asked again later); PUSH_NEEDED -> PUSH_IN_PROGRESS
 * -> PUSH_NEEDED (pushed) or SUBSCRIPTION_NEEDED (the subscription changed); on close PUSH_NEEDED / PUSH_IN_PROGRESS
 * -> TERMINATING_PUSH_NEEDED -> TERMINATING_PUSH_IN_PROGRESS -> TERMINATED. Any state may end in TERMINATED (close
 * with nothing to push, a broker that refuses telemetry for good).
 */
public enum TelemetryState implements StateTransitions<TelemetryState> {
    SUBSCRIPTION_NEEDED,
    SUBSCRIPTION_IN_PROGRESS,
    PUSH_NEEDED,
    PUSH_IN_PROGRESS,
    TERMINATING_PUSH_NEEDED,
    TERMINATING_PUSH_IN_PROGRESS,
    TERMINATED;

    private Set<TelemetryState> previous;

    static {
        SUBSCRIPTION_NEEDED.previous = EnumSet.of(SUBSCRIPTION_IN_PROGRESS, PUSH_IN_PROGRESS);
        SUBSCRIPTION_IN_PROGRESS.previous = EnumSet.of(SUBSCRIPTION_NEEDED);
        PUSH_NEEDED.previous = EnumSet.of(SUBSCRIPTION_IN_PROGRESS, PUSH_IN_PROGRESS);
        PUSH_IN_PROGRESS.previous = EnumSet.of(PUSH_NEEDED);
        TERMINATING_PUSH_NEEDED.previous = EnumSet.of(PUSH_NEEDED, PUSH_IN_PROGRESS);
        TERMINATING_PUSH_IN_PROGRESS.previous = EnumSet.of(TERMINATING_PUSH_NEEDED);
        TERMINATED.previous = EnumSet.complementOf(EnumSet.of(TERMINATED));
    }

    @Override
    public Set<TelemetryState> previousValidStates() {
        return previous;
    }
}
