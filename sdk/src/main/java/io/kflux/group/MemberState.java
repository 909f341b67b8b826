package io.kflux.group;

/**
 * Where a {@link ClassicGroupMember} is in the classic group protocol. The value is derived from what the member
 * knows (coordinator, generation, the rebalance step under way), so it is always consistent with them; read it
 * from any thread with {@link ClassicGroupMember#state()}.
 *
 * <pre>
 * UNJOINED -> DISCOVERING_COORDINATOR -> JOINING -> SYNCING -> STABLE
 * STABLE -> REJOINING -> JOINING          (rebalance: REBALANCE_IN_PROGRESS, a subscription or metadata change,
 *                                          ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID after the owned partitions were lost)
 * any member state -> REDISCOVERING_COORDINATOR -> (back where it was, a JoinGroup again when one was under way)
 * any -> LEAVING -> UNJOINED             (leave(), and max.poll.interval.ms expiry goes straight to UNJOINED)
 * any -> FATAL | CLOSED                  (terminal)
 * </pre>
 */
public enum MemberState {
    /** Not started, left the group, or out of it after {@code max.poll.interval.ms} expired: no membership, no heartbeats. */
    UNJOINED,
    /** Looking for the group coordinator (FindCoordinator) without owning anything yet. */
    DISCOVERING_COORDINATOR,
    /**
     * About to rejoin: the rebalance listener is being told what is revoked (eager: everything; cooperative: the
     * partitions of topics no longer subscribed) or lost (generation reset). Heartbeats go on while it runs.
     */
    REJOINING,
    /** A JoinGroup is in flight (or waits for its retry backoff). No heartbeats: the broker holds the request. */
    JOINING,
    /** Joined a generation; the leader computes the assignment, then SyncGroup is in flight. Heartbeats go on. */
    SYNCING,
    /** Member of a generation with an assignment; heartbeats every {@code heartbeat.interval.ms}. */
    STABLE,
    /**
     * The coordinator went away (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, a dropped connection, no heartbeat
     * answer within {@code session.timeout.ms}) while the member had a generation or partitions: it looks for the
     * coordinator again and keeps its assignment meanwhile (ownership has not changed), so fetching goes on.
     */
    REDISCOVERING_COORDINATOR,
    /** {@code leave()}: the revoke listener runs, then LeaveGroup (dynamic members only) is sent. */
    LEAVING,
    /** Stopped by an error it cannot recover from (FENCED_INSTANCE_ID, authorization, ...); see {@link GroupListener#onFatalError}. */
    FATAL,
    /** {@link ClassicGroupMember#close()} was called. */
    CLOSED;

    /** True for the states that never change again. */
    public boolean isTerminal() {
        return this == FATAL || this == CLOSED;
    }
}
