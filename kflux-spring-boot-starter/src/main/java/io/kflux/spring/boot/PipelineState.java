package io.kflux.spring.boot;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a consumer's pipeline stands, as its health indicator reports it. Transitions are checked: {@link #canMoveTo}
 * lists the legal ones.
 */
public enum PipelineState {
    /** Declared, not subscribed yet (the context has not finished starting). */
    NEW,
    /** Subscribed and running. */
    RUNNING,
    /** Failed; waiting for its backoff before it is subscribed to again ({@code on-failure=restart}). */
    BACKING_OFF,
    /** Failed and left stopped ({@code on-failure=down}): health DOWN. */
    FAILED,
    /** Its publisher completed: nothing runs any more, but nothing failed. */
    COMPLETED,
    /** The context is shutting down: the consumer is closing (final commit, LeaveGroup). */
    STOPPING,
    /** Closed. */
    STOPPED;

    private Set<PipelineState> next() {
        return switch (this) {
            case NEW -> EnumSet.of(RUNNING, STOPPING);
            case RUNNING -> EnumSet.of(BACKING_OFF, FAILED, COMPLETED, STOPPING);
            case BACKING_OFF -> EnumSet.of(RUNNING, FAILED, STOPPING);
            case FAILED, COMPLETED -> EnumSet.of(STOPPING);
            case STOPPING -> EnumSet.of(STOPPED);
            case STOPPED -> EnumSet.noneOf(PipelineState.class);
        };
    }

    /**
     * @param target the state asked for
     * @return whether a pipeline in this state may move to {@code target}
     */
    public boolean canMoveTo(PipelineState target) {
        return next().contains(target);
    }
}
