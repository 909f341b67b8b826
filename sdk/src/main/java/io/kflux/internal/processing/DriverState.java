package io.kflux.internal.processing;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * A {@code process()} subscription's life.
 *
 * <pre>
 * ACTIVE -> CLOSING (close() called: records in flight finish before its final commit, none is started or taken)
 * ACTIVE | CLOSING -> DRAINING (the consumer's stream completed: records in flight finish, none is started)
 * ACTIVE | CLOSING | DRAINING -> FAILING (a record failed for good, or the consumer's stream failed) -> TERMINATED (error delivered)
 * DRAINING -> TERMINATED (nothing held any more: completion delivered)
 * ACTIVE | CLOSING | DRAINING | FAILING -> CANCELLED (the subscriber cancelled)
 * </pre>
 */
enum DriverState implements StateTransitions<DriverState> {
    ACTIVE,
    CLOSING,
    DRAINING,
    FAILING,
    TERMINATED,
    CANCELLED;

    @Override
    public Set<DriverState> previousValidStates() {
        return switch (this) {
            case ACTIVE -> EnumSet.noneOf(DriverState.class);
            case CLOSING -> EnumSet.of(ACTIVE);
            case DRAINING -> EnumSet.of(ACTIVE, CLOSING);
            case FAILING -> EnumSet.of(ACTIVE, CLOSING, DRAINING);
            case TERMINATED -> EnumSet.of(DRAINING, FAILING);
            case CANCELLED -> EnumSet.of(ACTIVE, CLOSING, DRAINING, FAILING);
        };
    }

    /** Records may still start and be reported. */
    boolean running() {
        return this == ACTIVE || this == CLOSING || this == DRAINING;
    }
}
