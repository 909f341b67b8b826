package io.kflux.group;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where a {@link CoordinatorManager} is in finding its group's coordinator.
 *
 * <pre>
 * UNKNOWN -> DISCOVERING -> KNOWN -> UNKNOWN   (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, dropped connection, ...)
 * DISCOVERING -> UNKNOWN                       (a FindCoordinator answer no retry can change: the waiters fail)
 * any -> CLOSED
 * </pre>
 */
public enum CoordinatorState implements StateTransitions<CoordinatorState> {
    /** No coordinator known and no lookup under way; the next {@link CoordinatorManager#connection()} starts one. */
    UNKNOWN,
    /** FindCoordinator (retried with {@code retry.backoff.ms} .. {@code retry.backoff.max.ms}) and the connection. */
    DISCOVERING,
    /** A coordinator connection is open and answers for the group. */
    KNOWN,
    /** Closed with the consumer's resources: every call fails. */
    CLOSED;

    private Set<CoordinatorState> previous;

    static {
        UNKNOWN.previous = EnumSet.of(DISCOVERING, KNOWN);
        DISCOVERING.previous = EnumSet.of(UNKNOWN);
        KNOWN.previous = EnumSet.of(DISCOVERING);
        CLOSED.previous = EnumSet.of(UNKNOWN, DISCOVERING, KNOWN);
    }

    @Override
    public Set<CoordinatorState> previousValidStates() {
        return previous;
    }
}
