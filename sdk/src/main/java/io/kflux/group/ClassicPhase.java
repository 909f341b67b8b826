package io.kflux.group;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where {@link ClassicMembership} (the classic member's pure core) is: one enum that carries what
 * {@link ClassicGroupMember} keeps in {@link MemberState} plus its two side booleans. "A rejoin is due" (the driver's
 * {@code needsJoin}) is the {@code *_REJOIN_DUE} phase of JOINING, SYNCING, STABLE and REDISCOVERING_COORDINATOR (in
 * the other states it is implied or meaningless), and "the JoinGroup is out, not waiting for its retry" (the driver's
 * {@code joinInFlight}) is {@link #JOIN_SENT} against {@link #JOIN_BACKOFF}. Each phase shows as one
 * {@link MemberState} ({@link #visible()}), so what the consumer, the metrics and the tests read does not change.
 *
 * <pre>
 * UNJOINED -start-> DISCOVERING_COORDINATOR | REJOINING
 * REJOINING -listener done-> JOIN_SENT -answer-> SYNCING -answer-> STABLE
 * JOIN_SENT -retriable error-> JOIN_BACKOFF -timer-> JOIN_SENT
 * JOIN_SENT | SYNCING | STABLE | REDISCOVERING_COORDINATOR -rejoin requested-> the same phase, _REJOIN_DUE
 * SYNCING_REJOIN_DUE -assignment-> STABLE_REJOIN_DUE -listener done-> REJOINING
 * active -coordinator lost-> REDISCOVERING_COORDINATOR (keeps a settled assignment) | REDISCOVERING_TO_REJOIN
 *                            (a join was under way or due) | DISCOVERING_COORDINATOR (nothing to keep)
 * active -leave()-> LEAVING -> LEFT;  active -max.poll.interval.ms-> STALE -demand back-> DISCOVERING.. | REJOINING
 * any -> FATAL | CLOSED
 * </pre>
 * Transitions are checked ({@link StateTransitions#check}); the table is in the static block, one line per phase.
 */
enum ClassicPhase implements StateTransitions<ClassicPhase> {
    UNJOINED(MemberState.UNJOINED),
    DISCOVERING_COORDINATOR(MemberState.DISCOVERING_COORDINATOR),
    /** The coordinator went away from a settled member: found again, it is STABLE with the same assignment. */
    REDISCOVERING_COORDINATOR(MemberState.REDISCOVERING_COORDINATOR),
    /** The coordinator went away while a join was under way or due: found again, the member rejoins. */
    REDISCOVERING_TO_REJOIN(MemberState.REDISCOVERING_COORDINATOR),
    /** The listener is told what is revoked or lost before the JoinGroup; heartbeats go on. */
    REJOINING(MemberState.REJOINING),
    /** A JoinGroup is out; the broker may hold it up to the rebalance timeout. */
    JOIN_SENT(MemberState.JOINING),
    /** A JoinGroup is out, and the subscription or the group changed since it was sent: join again after it. */
    JOIN_SENT_REJOIN_DUE(MemberState.JOINING),
    /** A JoinGroup failed retriably; the next one goes out after the backoff. */
    JOIN_BACKOFF(MemberState.JOINING),
    SYNCING(MemberState.SYNCING),
    SYNCING_REJOIN_DUE(MemberState.SYNCING),
    STABLE(MemberState.STABLE),
    /** Settled, but a rejoin is due once the listener calls under way end (cooperative revoke, a change meanwhile). */
    STABLE_REJOIN_DUE(MemberState.STABLE),
    LEAVING(MemberState.LEAVING),
    LEFT(MemberState.LEFT),
    STALE(MemberState.STALE),
    FATAL(MemberState.FATAL),
    CLOSED(MemberState.CLOSED);

    private final MemberState visible;
    private Set<ClassicPhase> previous;

    ClassicPhase(MemberState visible) {
        this.visible = visible;
    }

    private static final Set<ClassicPhase> ACTIVE = EnumSet.of(DISCOVERING_COORDINATOR, REDISCOVERING_COORDINATOR,
            REDISCOVERING_TO_REJOIN, REJOINING, JOIN_SENT, JOIN_SENT_REJOIN_DUE, JOIN_BACKOFF, SYNCING,
            SYNCING_REJOIN_DUE, STABLE, STABLE_REJOIN_DUE);
    private static final Set<ClassicPhase> JOINING = EnumSet.of(JOIN_SENT, JOIN_SENT_REJOIN_DUE, JOIN_BACKOFF);
    private static final Set<ClassicPhase> SYNCING_ANY = EnumSet.of(SYNCING, SYNCING_REJOIN_DUE);
    private static final Set<ClassicPhase> REJOIN_DUE = EnumSet.of(DISCOVERING_COORDINATOR, REDISCOVERING_TO_REJOIN,
            REJOINING, JOIN_SENT_REJOIN_DUE, JOIN_BACKOFF, SYNCING_REJOIN_DUE, STABLE_REJOIN_DUE, STALE);

    static {
        UNJOINED.previous = EnumSet.noneOf(ClassicPhase.class);
        DISCOVERING_COORDINATOR.previous = union(ACTIVE, UNJOINED, STALE);
        REDISCOVERING_COORDINATOR.previous = union(ACTIVE, UNJOINED, STALE);
        REDISCOVERING_TO_REJOIN.previous = union(ACTIVE, UNJOINED, STALE);
        REJOINING.previous = union(JOINING, UNJOINED, STALE, DISCOVERING_COORDINATOR, REDISCOVERING_COORDINATOR,
                REDISCOVERING_TO_REJOIN, SYNCING, SYNCING_REJOIN_DUE, STABLE, STABLE_REJOIN_DUE);
        JOIN_SENT.previous = union(JOINING, REJOINING, SYNCING, SYNCING_REJOIN_DUE);
        JOIN_SENT_REJOIN_DUE.previous = EnumSet.of(JOIN_SENT);
        JOIN_BACKOFF.previous = union(JOINING, SYNCING, SYNCING_REJOIN_DUE);
        SYNCING.previous = EnumSet.of(JOIN_SENT);
        SYNCING_REJOIN_DUE.previous = EnumSet.of(SYNCING, JOIN_SENT_REJOIN_DUE);
        STABLE.previous = EnumSet.of(SYNCING, REDISCOVERING_COORDINATOR);
        STABLE_REJOIN_DUE.previous = EnumSet.of(STABLE, SYNCING_REJOIN_DUE);
        LEAVING.previous = union(ACTIVE, STALE);
        LEFT.previous = EnumSet.of(LEAVING);
        STALE.previous = EnumSet.copyOf(ACTIVE);
        FATAL.previous = union(ACTIVE, UNJOINED, LEAVING, LEFT, STALE);
        CLOSED.previous = union(ACTIVE, UNJOINED, LEAVING, LEFT, STALE);
    }

    private static Set<ClassicPhase> union(Set<ClassicPhase> some, ClassicPhase... more) {
        EnumSet<ClassicPhase> all = EnumSet.copyOf(some);
        all.addAll(Set.of(more));
        return all;
    }

    @Override
    public Set<ClassicPhase> previousValidStates() {
        return previous;
    }

    /** The {@link MemberState} this phase shows as. */
    MemberState visible() {
        return visible;
    }

    boolean isActive() {
        return ACTIVE.contains(this);
    }

    boolean isTerminal() {
        return this == FATAL || this == CLOSED;
    }

    /** Any JOINING phase: a JoinGroup out or waiting for its retry. */
    boolean isJoining() {
        return JOINING.contains(this);
    }

    boolean isSyncing() {
        return SYNCING_ANY.contains(this);
    }

    boolean isDiscovering() {
        return this == DISCOVERING_COORDINATOR || this == REDISCOVERING_COORDINATOR || this == REDISCOVERING_TO_REJOIN;
    }

    /** True when the member's next settled step is a JoinGroup rather than STABLE (the driver's {@code needsJoin}). */
    boolean rejoinDue() {
        return REJOIN_DUE.contains(this);
    }

    /** This phase with a rejoin due; itself where none can be recorded or one is implied. */
    ClassicPhase withRejoinDue() {
        return switch (this) {
            case JOIN_SENT -> JOIN_SENT_REJOIN_DUE;
            case SYNCING -> SYNCING_REJOIN_DUE;
            case STABLE -> STABLE_REJOIN_DUE;
            case REDISCOVERING_COORDINATOR -> REDISCOVERING_TO_REJOIN;
            default -> this;
        };
    }
}
