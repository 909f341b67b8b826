package io.kflux.share;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * One acquired record's acquisition lock as {@link LockRenewals} sees it: HELD (acquired, or renewed) -> RENEWING
 * (a RENEW is queued or out) -> HELD (the broker confirmed it). A record whose lock ran out, or whose renewal the
 * broker refused, is dropped from the planner instead of entering a state: nothing may be sent for it any more.
 */
enum HeldLockState implements StateTransitions<HeldLockState> {
    HELD,
    RENEWING;

    private Set<HeldLockState> previous;

    static {
        HELD.previous = EnumSet.of(RENEWING);
        RENEWING.previous = EnumSet.of(HELD);
    }

    @Override
    public Set<HeldLockState> previousValidStates() {
        return previous;
    }
}
