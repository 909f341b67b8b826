package io.kflux.internal.processing;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * A record's life in {@code process()}. Every change goes through {@link StateTransitions#check}; a late signal
 * (a handler completing after its record was abandoned or the stream ended) finds the record in a state it cannot
 * leave and changes nothing, in particular acknowledges nothing.
 *
 * <pre>
 * HELD -> RUNNING (started) -> DONE (acknowledged and reported)
 *                           -> HANDLING_FAILURE (last attempt failed, failure handler runs) -> DONE
 *                           -> FAILED (ends the stream: not acknowledged)
 * HELD -> DROPPED (partition revoked or lost, or the consumer stopped, before it started)
 * RUNNING | HANDLING_FAILURE -> ABANDONED (revocation timeout) | CANCELLED (the stream ended)
 * HELD -> CANCELLED (the stream ended)
 * </pre>
 */
enum JobState implements StateTransitions<JobState> {
    HELD,
    RUNNING,
    HANDLING_FAILURE,
    DONE,
    FAILED,
    DROPPED,
    ABANDONED,
    CANCELLED;

    @Override
    public Set<JobState> previousValidStates() {
        return switch (this) {
            case HELD -> EnumSet.noneOf(JobState.class);
            case RUNNING -> EnumSet.of(HELD);
            case HANDLING_FAILURE -> EnumSet.of(RUNNING);
            case DONE, FAILED, ABANDONED -> EnumSet.of(RUNNING, HANDLING_FAILURE);
            case DROPPED -> EnumSet.of(HELD);
            case CANCELLED -> EnumSet.of(HELD, RUNNING, HANDLING_FAILURE);
        };
    }

    /** Started and not ended: the handler or the failure handler may still signal. */
    boolean active() {
        return this == RUNNING || this == HANDLING_FAILURE;
    }
}
