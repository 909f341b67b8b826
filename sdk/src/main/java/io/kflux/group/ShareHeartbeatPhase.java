package io.kflux.group;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The share member's heartbeat loop with its coordinator (KIP-932): a heartbeat goes only to a known coordinator, at
 * most one at a time. Losing the coordinator abandons the heartbeat out (its answer, if any, is not reported).
 *
 * <pre>
 * NO_COORDINATOR -> IDLE (coordinator found) -> IN_FLIGHT -> IDLE (answered or failed)
 * IDLE | IN_FLIGHT -> NO_COORDINATOR (coordinator lost)
 * </pre>
 */
enum ShareHeartbeatPhase implements StateTransitions<ShareHeartbeatPhase> {
    /** No coordinator known: nothing can go out; the member looks for one when a heartbeat is due. */
    NO_COORDINATOR,
    /** A coordinator is known and no heartbeat is out. */
    IDLE,
    /** One heartbeat out to the coordinator. */
    IN_FLIGHT;

    private Set<ShareHeartbeatPhase> previous;

    static {
        NO_COORDINATOR.previous = EnumSet.of(IDLE, IN_FLIGHT);
        IDLE.previous = EnumSet.of(NO_COORDINATOR, IN_FLIGHT);
        IN_FLIGHT.previous = EnumSet.of(IDLE);
    }

    @Override
    public Set<ShareHeartbeatPhase> previousValidStates() {
        return previous;
    }
}
