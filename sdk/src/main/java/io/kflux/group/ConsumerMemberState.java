package io.kflux.group;

import io.kflux.util.StateTransitions;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Where a {@link ConsumerGroupMember} is in the consumer group protocol (KIP-848). The state drives the member and
 * every move is checked ({@link StateTransitions#check}) against the table {@link ConsumerPhase} refines. The
 * coordinator is tracked apart ({@link CoordinatorManager}): a member keeps its state and its partitions while the
 * coordinator is looked for.
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

    @Override
    public Set<ConsumerMemberState> previousValidStates() {
        return Table.PREVIOUS.get(this);
    }

    /**
     * The transition table is written once, in {@link ConsumerPhase}, which refines these states: a move between two
     * of them is allowed when some phase move between phases that show as them is. Built on first use, not in a
     * static block: the two enums refer to each other's constants.
     */
    private static final class Table {
        static final Map<ConsumerMemberState, Set<ConsumerMemberState>> PREVIOUS = derive();

        private static Map<ConsumerMemberState, Set<ConsumerMemberState>> derive() {
            Map<ConsumerMemberState, Set<ConsumerMemberState>> previous = new EnumMap<>(ConsumerMemberState.class);
            for (ConsumerMemberState s : values()) {
                previous.put(s, EnumSet.noneOf(ConsumerMemberState.class));
            }
            for (ConsumerPhase to : ConsumerPhase.values()) {
                for (ConsumerPhase from : to.previousValidStates()) {
                    if (from.visible() != to.visible()) {
                        previous.get(to.visible()).add(from.visible());
                    }
                }
            }
            previous.replaceAll((s, p) -> Collections.unmodifiableSet(p));
            return previous;
        }
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
