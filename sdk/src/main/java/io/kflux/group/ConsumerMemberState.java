package io.kflux.group;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where a {@link ConsumerGroupMember} is in the consumer group protocol (KIP-848). The state drives the member and
 * every move is checked ({@link StateTransitions#check}). The coordinator is tracked apart
 * ({@link CoordinatorManager}): a member keeps its state and its partitions while the coordinator is looked for.
 *
 * <pre>
 * UNSUBSCRIBED -> JOINING -> RECONCILING -> ACKNOWLEDGING -> STABLE   (start())
 * STABLE -> RECONCILING            (a heartbeat answer carries a new target assignment)
 * any member state -> FENCED -> JOINING   (FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID, or no heartbeat answer for
 *                                          the session timeout ({@link SessionTimer}): partitions lost, epoch 0)
 * any -> LEAVING -> LEFT          (leave(): for good)
 * any -> LEAVING -> STALE -> JOINING   (max.poll.interval.ms expired; joins again when demand returns)
 * any -> FATAL | CLOSED            (terminal)
 * </pre>
 */
public enum ConsumerMemberState implements StateTransitions<ConsumerMemberState> {
    /** Not started yet: no heartbeats. */
    UNSUBSCRIBED,
    /** Heartbeating with epoch 0 until the coordinator gives a member epoch. */
    JOINING,
    /**
     * The target assignment differs from what the member owns: revoking what left it (emitter barrier, commit,
     * {@code onPartitionsRevoked}), then taking what is new ({@code onPartitionsAssigned}). Heartbeats go on.
     */
    RECONCILING,
    /** Reconciled: the next heartbeat, sent at once, tells the coordinator what the member owns now. */
    ACKNOWLEDGING,
    /** Owns its target assignment; heartbeats every interval the coordinator asked for. */
    STABLE,
    /**
     * The coordinator fenced the member, or the member's session ran out without a heartbeat answer: its partitions
     * are reported lost, then it joins again with epoch 0.
     */
    FENCED,
    /** Revoking everything, then the leave heartbeat (epoch -1, or -2 for a static member). */
    LEAVING,
    /** Left the group on {@code leave()}: no heartbeats, and it does not join again. */
    LEFT,
    /**
     * Left the group because {@code max.poll.interval.ms} expired (its partitions were reported lost); joins again
     * with epoch 0 when downstream demand returns. The official client's {@code MemberState.STALE}.
     */
    STALE,
    /** Stopped by an error it cannot recover from; see {@link GroupListener#onFatalError}. */
    FATAL,
    /** {@link ConsumerGroupMember#close()} was called. */
    CLOSED;

    private static final Set<ConsumerMemberState> ACTIVE = EnumSet.of(JOINING, RECONCILING, ACKNOWLEDGING, STABLE,
            FENCED);

    private Set<ConsumerMemberState> previous;

    static {
        UNSUBSCRIBED.previous = EnumSet.noneOf(ConsumerMemberState.class); // where a member starts
        JOINING.previous = EnumSet.of(UNSUBSCRIBED, FENCED, STALE);
        RECONCILING.previous = EnumSet.of(JOINING, ACKNOWLEDGING, STABLE);
        ACKNOWLEDGING.previous = EnumSet.of(RECONCILING);
        STABLE.previous = EnumSet.of(JOINING, ACKNOWLEDGING);
        FENCED.previous = EnumSet.of(JOINING, RECONCILING, ACKNOWLEDGING, STABLE);
        LEAVING.previous = EnumSet.copyOf(ACTIVE);
        LEFT.previous = EnumSet.of(LEAVING);
        STALE.previous = EnumSet.of(LEAVING);
        FATAL.previous = EnumSet.of(UNSUBSCRIBED, JOINING, RECONCILING, ACKNOWLEDGING, STABLE, FENCED, LEAVING, LEFT,
                STALE);
        CLOSED.previous = EnumSet.of(UNSUBSCRIBED, JOINING, RECONCILING, ACKNOWLEDGING, STABLE, FENCED, LEAVING, LEFT,
                STALE);
    }

    @Override
    public Set<ConsumerMemberState> previousValidStates() {
        return previous;
    }

    /** True while the member takes part in the group (heartbeats). */
    public boolean isActive() {
        return ACTIVE.contains(this);
    }

    /** True for the states that never change again. */
    public boolean isTerminal() {
        return this == FATAL || this == CLOSED;
    }
}
