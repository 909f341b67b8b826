package io.kflux.group;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where a share group member (KIP-932) is, as {@link ShareMemberCore} moves it; every move is checked. A share
 * member owns what the coordinator assigns at once (no revocation step, unlike KIP-848), so there is no
 * reconciling state. The coordinator is tracked apart ({@link CoordinatorManager}): a member keeps its state and
 * assignment while the coordinator is looked for.
 *
 * <pre>
 * UNJOINED -> JOINING (start: heartbeat with epoch 0) -> STABLE (first answer without error)
 * STABLE -> JOINING                 (FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID, or the session expired: assignment
 *                                    dropped as lost, epoch 0 again)
 * UNJOINED | JOINING | STABLE -> LEAVING (leave: heartbeat with epoch -1) -> LEFT
 * UNJOINED -> LEFT                  (left before it ever joined)
 * any but LEFT -> FATAL             (an error no retry mends)
 * </pre>
 */
enum ShareMemberState implements StateTransitions<ShareMemberState> {
    /** Not started: no heartbeats. */
    UNJOINED,
    /** Heartbeating with epoch 0 until the coordinator gives a member epoch. */
    JOINING,
    /** A member with an epoch; heartbeats at the interval the coordinator asked for. */
    STABLE,
    /** The leave heartbeat (epoch -1) is out or waits for the coordinator. */
    LEAVING,
    /** Out of the group for good. */
    LEFT,
    /** Stopped by an error no retry mends. */
    FATAL;

    private Set<ShareMemberState> previous;

    static {
        UNJOINED.previous = EnumSet.noneOf(ShareMemberState.class);
        JOINING.previous = EnumSet.of(UNJOINED, STABLE);
        STABLE.previous = EnumSet.of(JOINING);
        LEAVING.previous = EnumSet.of(UNJOINED, JOINING, STABLE);
        LEFT.previous = EnumSet.of(UNJOINED, LEAVING);
        FATAL.previous = EnumSet.of(UNJOINED, JOINING, STABLE, LEAVING);
    }

    @Override
    public Set<ShareMemberState> previousValidStates() {
        return previous;
    }

    /** Whether the member sends heartbeats in this state. */
    boolean heartbeats() {
        return this == JOINING || this == STABLE || this == LEAVING;
    }

    /** LEFT and FATAL never change again. */
    boolean isTerminal() {
        return this == LEFT || this == FATAL;
    }
}
