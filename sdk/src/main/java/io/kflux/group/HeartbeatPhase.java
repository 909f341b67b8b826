package io.kflux.group;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * A member's heartbeat loop: at most one heartbeat out. The KIP-848 member ({@link ConsumerMembership}) also keeps one
 * asked for meanwhile (an acknowledgement, a rejoin), which goes as soon as the one out is answered; the classic
 * member's loop ({@link ClassicHeartbeat}) uses IDLE and IN_FLIGHT only. A timer for the next interval may be
 * scheduled in {@link #IDLE}.
 *
 * <pre>
 * IDLE -> IN_FLIGHT -> IDLE
 * IN_FLIGHT -> IN_FLIGHT_THEN_AGAIN -> IDLE (and the next heartbeat goes at once)
 * </pre>
 */
enum HeartbeatPhase implements StateTransitions<HeartbeatPhase> {
    /** None out. */
    IDLE,
    /** One out. */
    IN_FLIGHT,
    /** One out, and another must go as soon as it is answered. */
    IN_FLIGHT_THEN_AGAIN;

    private Set<HeartbeatPhase> previous;

    static {
        IDLE.previous = EnumSet.of(IN_FLIGHT, IN_FLIGHT_THEN_AGAIN);
        IN_FLIGHT.previous = EnumSet.of(IDLE);
        IN_FLIGHT_THEN_AGAIN.previous = EnumSet.of(IN_FLIGHT);
    }

    @Override
    public Set<HeartbeatPhase> previousValidStates() {
        return previous;
    }
}
