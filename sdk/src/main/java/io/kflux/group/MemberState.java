package io.kflux.group;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where a {@link ClassicGroupMember} is in the classic group protocol. The state drives the member: every step
 * checks it to decide what to do, and every move goes through {@link StateTransitions#check}, which refuses a move
 * from a state not in the target's {@link #previousValidStates()} (a bug, raised at once). Read it from any thread
 * with {@link ClassicGroupMember#state()}. The member's core moves through {@link ClassicPhase}, which refines these
 * states (whether a rejoin is due, whether the JoinGroup is out); each phase shows as one of them.
 *
 * <pre>
 * UNJOINED -> DISCOVERING_COORDINATOR -> REJOINING -> JOINING -> SYNCING -> STABLE
 * STABLE -> REJOINING -> JOINING          (rebalance: REBALANCE_IN_PROGRESS, a subscription or metadata change,
 *                                          ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID after the owned partitions were lost)
 * any member state -> REDISCOVERING_COORDINATOR -> (STABLE, or REJOINING when a JoinGroup/SyncGroup was under way)
 * STABLE | SYNCING | JOINING | REJOINING | REDISCOVERING_COORDINATOR -> REJOINING -> DISCOVERING_COORDINATOR
 *                                        (session expired: no answer from the coordinator for session.timeout.ms;
 *                                         generation dropped, partitions lost, issue #15; not while a JoinGroup is
 *                                         out, which the broker may hold)
 * any -> LEAVING -> LEFT                 (leave(): for good)
 * any -> STALE -> DISCOVERING_COORDINATOR | REDISCOVERING_COORDINATOR | REJOINING
 *                                        (max.poll.interval.ms expired: partitions lost; back when demand returns)
 * any -> FATAL | CLOSED                  (terminal)
 * </pre>
 */
public enum MemberState implements StateTransitions<MemberState> {
    /** Not started yet: no membership, no heartbeats. */
    UNJOINED,
    /** Looking for the group coordinator (FindCoordinator) without owning anything yet. */
    DISCOVERING_COORDINATOR,
    /**
     * About to rejoin: the rebalance listener is being told what is revoked (eager: everything; cooperative: the
     * partitions of topics no longer subscribed) or lost (generation reset). Heartbeats go on while it runs.
     */
    REJOINING,
    /**
     * A JoinGroup is in flight (or waits for its retry backoff). No heartbeats: the broker holds the request. The
     * session's deadline still runs ({@link SessionTimer}): its answer may have been lost after the broker completed
     * the join, and a cooperative member emits the partitions it keeps meanwhile.
     */
    JOINING,
    /** Joined a generation; the leader computes the assignment, then SyncGroup is in flight. Heartbeats go on. */
    SYNCING,
    /** Member of a generation with an assignment; heartbeats every {@code heartbeat.interval.ms}. */
    STABLE,
    /**
     * The coordinator went away (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, a dropped connection, no heartbeat
     * answer) while the member had a generation or partitions: it looks for the coordinator again and keeps its
     * assignment meanwhile (ownership has not changed), so fetching goes on, until {@code session.timeout.ms} passed
     * without an answer from the coordinator: then the partitions are lost ({@link SessionTimer}).
     */
    REDISCOVERING_COORDINATOR,
    /** {@code leave()}: the revoke listener runs, then LeaveGroup (dynamic members only) is sent. */
    LEAVING,
    /** Left the group on {@code leave()}: no membership, no heartbeats, and it does not join again. */
    LEFT,
    /**
     * Out of the group because {@code max.poll.interval.ms} expired (partitions lost, LeaveGroup sent by a dynamic
     * member); joins again when downstream demand returns. The official client's {@code MemberState.STALE}.
     */
    STALE,
    /** Stopped by an error it cannot recover from (FENCED_INSTANCE_ID, authorization, ...); see {@link GroupListener#onFatalError}. */
    FATAL,
    /** {@link ClassicGroupMember#close()} was called. */
    CLOSED;

    private static final Set<MemberState> ACTIVE = EnumSet.of(DISCOVERING_COORDINATOR, REDISCOVERING_COORDINATOR,
            REJOINING, JOINING, SYNCING, STABLE);

    private Set<MemberState> previous;

    static {
        UNJOINED.previous = EnumSet.noneOf(MemberState.class); // where a member starts
        LEFT.previous = EnumSet.of(LEAVING);
        STALE.previous = EnumSet.copyOf(ACTIVE);
        DISCOVERING_COORDINATOR.previous = union(ACTIVE, EnumSet.of(UNJOINED, STALE));
        REDISCOVERING_COORDINATOR.previous = union(ACTIVE, EnumSet.of(UNJOINED, STALE));
        REJOINING.previous = EnumSet.of(UNJOINED, STALE, DISCOVERING_COORDINATOR, REDISCOVERING_COORDINATOR, JOINING,
                SYNCING, STABLE);
        JOINING.previous = EnumSet.of(REJOINING, JOINING, SYNCING);
        SYNCING.previous = EnumSet.of(JOINING);
        STABLE.previous = EnumSet.of(SYNCING, REDISCOVERING_COORDINATOR);
        LEAVING.previous = union(ACTIVE, EnumSet.of(STALE));
        FATAL.previous = union(ACTIVE, EnumSet.of(UNJOINED, LEAVING, LEFT, STALE));
        CLOSED.previous = union(ACTIVE, EnumSet.of(UNJOINED, LEAVING, LEFT, STALE));
    }

    private static Set<MemberState> union(Set<MemberState> a, Set<MemberState> b) {
        EnumSet<MemberState> all = EnumSet.copyOf(a);
        all.addAll(b);
        return all;
    }

    @Override
    public Set<MemberState> previousValidStates() {
        return previous;
    }

    /** True for the states that never change again. */
    public boolean isTerminal() {
        return this == FATAL || this == CLOSED;
    }

    /** True while the member takes part in the group: looking for the coordinator, rebalancing or STABLE. */
    public boolean isActive() {
        return ACTIVE.contains(this);
    }

    /** True while the member waits for the coordinator to be found. */
    boolean isDiscovering() {
        return this == DISCOVERING_COORDINATOR || this == REDISCOVERING_COORDINATOR;
    }
}
