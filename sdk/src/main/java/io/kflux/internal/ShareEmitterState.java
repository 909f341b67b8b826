package io.kflux.internal;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The share emitter's life cycle ({@link ShareEmitter}); every move is checked.
 *
 * <pre>
 * EMITTING -> FAILED   (a record could not be decoded: the stream ended with the error, nothing more is emitted)
 * EMITTING | FAILED -> STOPPING (stop(): acquired records not emitted go back) -> STOPPED (worker disposed)
 * </pre>
 */
enum ShareEmitterState implements StateTransitions<ShareEmitterState> {
    /** Emitting records as the subscriber demands them. */
    EMITTING,
    /** The stream ended with an error; acquired records wait for {@link #STOPPING} to be released. */
    FAILED,
    /** Stop requested: records arriving now are released at once, the rest by the worker's last task. */
    STOPPING,
    /** Everything acquired was handed back and the worker is disposed. */
    STOPPED;

    private Set<ShareEmitterState> previous;

    static {
        EMITTING.previous = EnumSet.noneOf(ShareEmitterState.class);
        FAILED.previous = EnumSet.of(EMITTING);
        STOPPING.previous = EnumSet.of(EMITTING, FAILED);
        STOPPED.previous = EnumSet.of(STOPPING);
    }

    @Override
    public Set<ShareEmitterState> previousValidStates() {
        return previous;
    }
}
