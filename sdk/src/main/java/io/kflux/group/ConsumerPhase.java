package io.kflux.group;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where {@link ConsumerMembership} (the KIP-848 member's pure core) is: one enum for what {@link ConsumerGroupMember}
 * shows as {@link ConsumerMemberState} plus what it kept beside it. "A join heartbeat went out since the last join"
 * (the old {@code joinSent}) is {@link #JOIN_SENT} against {@link #JOINING}; where a leave ends (the old argument
 * {@code then}: LEFT on {@code leave()}, STALE on a poll timeout) and whether the leave heartbeat is out are the four
 * leaving phases, as the official client's {@code PREPARE_LEAVING} and {@code LEAVING}. The heartbeat out is the
 * orthogonal {@link HeartbeatPhase}. Each phase shows as one {@link ConsumerMemberState} ({@link #visible()}), so
 * what the consumer, the metrics and the tests read does not change.
 *
 * <pre>
 * UNSUBSCRIBED -start-> JOINING -join heartbeat sent-> JOIN_SENT -answer with a target-> RECONCILING
 * RECONCILING -revoked, then assigned-> ACKNOWLEDGING -answer, nothing more to move-> STABLE
 * JOINING | JOIN_SENT -answer, nothing to take-> STABLE;  ACKNOWLEDGING | STABLE -new target-> RECONCILING
 * JOIN_SENT | RECONCILING | ACKNOWLEDGING | STABLE -fenced or session expired-> FENCED -lost reported-> JOINING
 * active -leave()-> PREPARE_LEAVING -revoked-> LEAVING (leave heartbeat out) -answer or failure-> LEFT
 *                   PREPARE_LEAVING -no membership or no coordinator-> LEFT
 * active -max.poll.interval.ms-> PREPARE_STALE -lost reported-> LEAVING_TO_STALE -> STALE  (or straight to STALE)
 * STALE -demand back-> JOINING;  any -> FATAL | CLOSED
 * </pre>
 * Transitions are checked ({@link StateTransitions#check}); the table is in the static block, one line per phase.
 */
enum ConsumerPhase implements StateTransitions<ConsumerPhase> {
    UNSUBSCRIBED(ConsumerMemberState.UNSUBSCRIBED),
    /** Epoch 0, no join heartbeat out yet since the join began: the coordinator does not know this member. */
    JOINING(ConsumerMemberState.JOINING),
    /** Epoch 0 and a join heartbeat went out: the coordinator may know this member (a leave must tell it). */
    JOIN_SENT(ConsumerMemberState.JOINING),
    RECONCILING(ConsumerMemberState.RECONCILING),
    ACKNOWLEDGING(ConsumerMemberState.ACKNOWLEDGING),
    STABLE(ConsumerMemberState.STABLE),
    FENCED(ConsumerMemberState.FENCED),
    /** {@code leave()}: what is owned is revoked (or reported lost), then the leave heartbeat; ends in LEFT. */
    PREPARE_LEAVING(ConsumerMemberState.LEAVING),
    /** The leave heartbeat (epoch -1, or -2 for a static member) is out; ends in LEFT. */
    LEAVING(ConsumerMemberState.LEAVING),
    /** {@code max.poll.interval.ms} expired: what is owned is reported lost, then the leave heartbeat; ends in STALE. */
    PREPARE_STALE(ConsumerMemberState.LEAVING),
    /** The leave heartbeat of a poll timeout is out; ends in STALE. */
    LEAVING_TO_STALE(ConsumerMemberState.LEAVING),
    LEFT(ConsumerMemberState.LEFT),
    STALE(ConsumerMemberState.STALE),
    FATAL(ConsumerMemberState.FATAL),
    CLOSED(ConsumerMemberState.CLOSED);

    private static final Set<ConsumerPhase> ACTIVE = EnumSet.of(JOINING, JOIN_SENT, RECONCILING, ACKNOWLEDGING,
            STABLE, FENCED);
    private static final Set<ConsumerPhase> HEARTBEATS = EnumSet.of(JOINING, JOIN_SENT, RECONCILING, ACKNOWLEDGING,
            STABLE);

    private final ConsumerMemberState visible;
    private Set<ConsumerPhase> previous;

    ConsumerPhase(ConsumerMemberState visible) {
        this.visible = visible;
    }

    static {
        UNSUBSCRIBED.previous = EnumSet.noneOf(ConsumerPhase.class);
        JOINING.previous = EnumSet.of(UNSUBSCRIBED, FENCED, STALE);
        JOIN_SENT.previous = EnumSet.of(JOINING);
        RECONCILING.previous = EnumSet.of(JOIN_SENT, ACKNOWLEDGING, STABLE);
        ACKNOWLEDGING.previous = EnumSet.of(RECONCILING);
        STABLE.previous = EnumSet.of(JOIN_SENT, ACKNOWLEDGING);
        FENCED.previous = EnumSet.of(JOIN_SENT, RECONCILING, ACKNOWLEDGING, STABLE);
        PREPARE_LEAVING.previous = EnumSet.copyOf(ACTIVE);
        LEAVING.previous = EnumSet.of(PREPARE_LEAVING);
        PREPARE_STALE.previous = EnumSet.copyOf(ACTIVE);
        LEAVING_TO_STALE.previous = EnumSet.of(PREPARE_STALE);
        LEFT.previous = EnumSet.of(PREPARE_LEAVING, LEAVING);
        STALE.previous = EnumSet.of(PREPARE_STALE, LEAVING_TO_STALE);
        FATAL.previous = EnumSet.complementOf(EnumSet.of(FATAL, CLOSED));
        CLOSED.previous = EnumSet.complementOf(EnumSet.of(FATAL, CLOSED));
    }

    @Override
    public Set<ConsumerPhase> previousValidStates() {
        return previous;
    }

    /** The {@link ConsumerMemberState} this phase shows as. */
    ConsumerMemberState visible() {
        return visible;
    }

    /** Taking part in the group (what {@code leave()} and a poll timeout act on). */
    boolean isActive() {
        return ACTIVE.contains(this);
    }

    /** A state in which the member heartbeats. */
    boolean heartbeats() {
        return HEARTBEATS.contains(this);
    }

    boolean isJoining() {
        return this == JOINING || this == JOIN_SENT;
    }

    /** Revoking or reporting lost before the leave heartbeat. */
    boolean isPreparingToLeave() {
        return this == PREPARE_LEAVING || this == PREPARE_STALE;
    }

    boolean isTerminal() {
        return this == FATAL || this == CLOSED;
    }
}
