package io.kflux.group;

import io.kflux.TopicPartition;
import io.kflux.group.ClassicGroupMember.Generation;
import io.kflux.group.assignor.RebalanceProtocol;
import io.kflux.util.StateTransitions;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The classic member's pure core: where the member is ({@link ClassicPhase}, one enum, checked transitions), what it
 * holds (generation, owned partitions, subscription and the topics of its last JoinGroup, the flow epoch that retires
 * answers of abandoned steps), and what each event means for it: the next step when a step ends ({@link #proceed}),
 * a rejoin asked for, the coordinator lost, a JoinGroup sent, joined, assigned, a poll timeout, leaving. What a
 * Heartbeat, JoinGroup or SyncGroup answer says is decided beside it, in {@link ClassicAnswers}. It does no I/O, keeps
 * no timer and reads no clock: times come in as arguments. {@link ClassicGroupMember} drives it: it sends what the
 * verdicts ask for, runs the listener calls and timers, and tells the core what happened, on the consumer's loop.
 *
 * <p>Fields read by other threads ({@link #generation()}, {@link #owned()}, {@link #everJoined()}) are volatile and
 * replaced whole; every write happens on the loop.
 */
final class ClassicMembership {

    /** What the driver does after a step ended ({@link #proceed}). */
    enum Next {
        /** A step is under way (JOINING, SYNCING) or the member is out: nothing. */
        NOTHING,
        /** No coordinator: look for it ({@link #awaitCoordinator()} already moved the phase). */
        FIND_COORDINATOR,
        /** Found the coordinator while a listener call of the step under way runs: heartbeat; the call resumes it. */
        HEARTBEAT,
        /** Tell the listener what is revoked or lost, then JoinGroup ({@link #prepareJoin()}). */
        PREPARE_JOIN,
        /** Settled: heartbeat and look at the newest metadata. */
        SETTLED
    }

    private final RebalanceProtocol protocol;
    private final Consumer<ClassicPhase> onMove;

    private ClassicPhase phase = ClassicPhase.UNJOINED;
    private volatile Generation generation = Generation.NONE;
    private volatile Set<TopicPartition> owned = Set.of();
    private volatile boolean everJoined;
    private Set<String> subscribed = new TreeSet<>();
    private Set<String> joinedTopics = Set.of();
    private String rejoinReason = "";
    private long flowEpoch;
    private int joinFailures;
    /** Time (ns, the driver's clock) the rebalance under way began (its first JoinGroup), 0 when none is. */
    private long rebalanceStartedNanos;
    /** Time (ns) the JoinGroup or SyncGroup under way was sent. */
    private long stepSentNanos;

    /**
     * @param protocol the rebalance protocol the member's assignors share (eager revokes everything before a join)
     * @param onMove   told of every move, after it was checked, with the new phase (the driver publishes and logs it)
     */
    ClassicMembership(RebalanceProtocol protocol, Consumer<ClassicPhase> onMove) {
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        this.onMove = Objects.requireNonNull(onMove, "onMove");
    }

    // ------------------------------------------------------------------------------------------------ reading

    ClassicPhase phase() {
        return phase;
    }

    Generation generation() {
        return generation;
    }

    Set<TopicPartition> owned() {
        return owned;
    }

    boolean everJoined() {
        return everJoined;
    }

    Set<String> subscribed() {
        return subscribed;
    }

    Set<String> joinedTopics() {
        return joinedTopics;
    }

    String rejoinReason() {
        return rejoinReason;
    }

    long flowEpoch() {
        return flowEpoch;
    }

    boolean started() {
        return phase != ClassicPhase.UNJOINED;
    }

    /** Not taking part in the group: not started, left, out after a poll timeout, leaving, or terminal. */
    boolean inactive() {
        return !phase.isActive();
    }

    /**
     * Whether the member holds a session the coordinator times out: a generation, in a state where heartbeats are due
     * (or would be, once the coordinator is found again), or JOINING with it (the broker may have completed the join
     * and its answer been lost, issue #15).
     */
    boolean sessionHeld() {
        MemberState s = phase.visible();
        return generation.valid() && (s == MemberState.STABLE || s == MemberState.SYNCING || s == MemberState.JOINING
                || s == MemberState.REJOINING || s == MemberState.REDISCOVERING_COORDINATOR);
    }

    /** Whether a JoinGroup is out (not waiting for its retry): the broker may hold it, keeping the member. */
    boolean joinAwaited() {
        return phase == ClassicPhase.JOIN_SENT || phase == ClassicPhase.JOIN_SENT_REJOIN_DUE;
    }

    /** Whether a heartbeat may go out: a coordinator, a generation, and a state that heartbeats. */
    boolean heartbeatAllowed(boolean coordinatorKnown) {
        MemberState s = phase.visible();
        return coordinatorKnown && generation.valid()
                && (s == MemberState.STABLE || s == MemberState.SYNCING || s == MemberState.REJOINING);
    }

    // ------------------------------------------------------------------------------------------------ moves

    private void move(ClassicPhase next) {
        if (phase == next) {
            return;
        }
        phase = StateTransitions.check(phase, next);
        onMove.accept(next);
    }

    /** The driver's {@code fail()} / {@code close()} ended the member: FATAL or CLOSED. */
    void terminated(ClassicPhase terminal) {
        if (!terminal.isTerminal()) {
            throw new IllegalArgumentException(terminal + " is not terminal");
        }
        flowEpoch++;
        move(terminal);
    }

    /** Marks a rejoin due; true when none was yet (the driver logs the reason once). */
    boolean requestRejoin(String reason) {
        boolean fresh = !phase.rejoinDue();
        markRejoin();
        rejoinReason = reason;
        return fresh;
    }

    /** Marks a rejoin due without a new reason. */
    private void markRejoin() {
        move(phase.withRejoinDue());
    }

    /** Subscribes to exactly {@code topics} (sorted copy); true when a rejoin is due for it. */
    boolean subscribe(Set<String> topics) {
        subscribed = new TreeSet<>(topics);
        return subscriptionChanged();
    }

    /** Whether the subscription differs from the last JoinGroup's in a state where that makes the member rejoin. */
    boolean subscriptionChanged() {
        return phase.isActive() && phase != ClassicPhase.DISCOVERING_COORDINATOR && !subscribed.equals(joinedTopics);
    }

    /** {@code start()}: false when started already or terminal. Sets the reason the first JoinGroup has none. */
    boolean start() {
        return phase == ClassicPhase.UNJOINED;
    }

    /**
     * The coordinator is unknown: DISCOVERING without anything to keep, else REDISCOVERING, keeping the assignment
     * (a settled member) or with the rejoin that was under way or due.
     */
    void awaitCoordinator() {
        boolean keep = generation.generationId() >= 0 || !owned.isEmpty();
        boolean rejoin = phase.rejoinDue() || phase == ClassicPhase.UNJOINED;
        move(!keep ? ClassicPhase.DISCOVERING_COORDINATOR
                : rejoin ? ClassicPhase.REDISCOVERING_TO_REJOIN : ClassicPhase.REDISCOVERING_COORDINATOR);
    }

    /**
     * The next step when none of a rebalance is under way: find the coordinator, (re)join, or be STABLE.
     *
     * @param coordinatorKnown whether the member has a coordinator now
     * @param listenerBusy     whether a listener call of the step under way still runs (it resumes the step)
     */
    Next proceed(boolean coordinatorKnown, boolean listenerBusy) {
        if (!phase.isActive() || phase.isJoining() || phase.isSyncing()) {
            return Next.NOTHING;
        }
        if (!coordinatorKnown) {
            awaitCoordinator();
            return Next.FIND_COORDINATOR;
        }
        boolean join = phase.rejoinDue() || !generation.valid();
        if (listenerBusy) {
            if (phase.isDiscovering()) {
                move(join ? ClassicPhase.REJOINING : ClassicPhase.STABLE);
                return Next.HEARTBEAT;
            }
            return Next.NOTHING;
        }
        if (join) {
            return Next.PREPARE_JOIN;
        }
        move(ClassicPhase.STABLE);
        return Next.SETTLED;
    }

    /** Abandons the JoinGroup/SyncGroup step under way (its answers will be ignored); a join under way is due again. */
    void abortFlow() {
        flowEpoch++;
        if (phase.isJoining() || phase.isSyncing()) {
            markRejoin();
        }
    }

    /** Drops the generation (and the member id when {@code resetMemberId}); a rejoin is due. */
    void resetGeneration(boolean resetMemberId) {
        generation = resetMemberId ? Generation.NONE : new Generation(-1, generation.memberId(), null);
        markRejoin();
    }

    /** The coordinator went away: JOINING/SYNCING steps are abandoned; an active member looks for it again. */
    void coordinatorLost() {
        if (phase.isJoining() || phase.isSyncing()) {
            abortFlow();
        }
        if (phase.isActive()) {
            awaitCoordinator();
        }
    }

    // ------------------------------------------------------------------------------------------------ rebalance

    /**
     * First step of a rebalance: REJOINING, a new flow epoch. The listener is then told what {@link #toDropBeforeJoin}
     * gives; lost when the generation is gone.
     *
     * @return the flow epoch of this step
     */
    long prepareJoin() {
        move(ClassicPhase.REJOINING);
        return ++flowEpoch;
    }

    /**
     * What the member gives up before it joins, evaluated when the listener call's turn comes: everything when the
     * generation is gone ({@code lost}) or eager; cooperative: only the partitions of topics no longer subscribed.
     */
    Set<TopicPartition> toDropBeforeJoin(boolean lost) {
        Set<TopicPartition> current = owned;
        if (lost || protocol == RebalanceProtocol.EAGER) {
            return current;
        }
        Set<TopicPartition> unsubscribed = new HashSet<>();
        for (TopicPartition tp : current) {
            if (!subscribed.contains(tp.topic())) {
                unsubscribed.add(tp);
            }
        }
        return unsubscribed;
    }

    /** What to do once the listener gave up what {@link #prepareJoin} dropped. */
    enum AfterPrepare {
        /** The step was abandoned or the member is out. */
        NOTHING,
        /** The generation was reset while the listener ran: what is still owned is lost; prepare again. */
        PREPARE_AGAIN,
        /** The coordinator moved while the listener ran: the join goes out once it is found ({@link #proceed}). */
        PROCEED,
        SEND_JOIN
    }

    AfterPrepare afterPrepare(long epoch, Generation atStart, boolean coordinatorKnown) {
        if (epoch != flowEpoch || inactive()) {
            return AfterPrepare.NOTHING;
        }
        if (generation != atStart && !generation.valid() && !owned.isEmpty()) {
            return AfterPrepare.PREPARE_AGAIN;
        }
        if (phase != ClassicPhase.REJOINING || !coordinatorKnown) {
            markRejoin();
            return AfterPrepare.PROCEED;
        }
        return AfterPrepare.SEND_JOIN;
    }

    /**
     * A JoinGroup goes out now ({@code nowNanos} on the driver's clock): JOIN_SENT, the subscription it carries
     * remembered, the rebalance's clock started unless running.
     */
    void joinSent(long nowNanos) {
        move(ClassicPhase.JOIN_SENT);
        joinedTopics = Set.copyOf(subscribed);
        stepSentNanos = nowNanos;
        if (rebalanceStartedNanos == 0L) {
            rebalanceStartedNanos = nowNanos;
        }
    }

    /** A SyncGroup goes out now. */
    void syncSent(long nowNanos) {
        stepSentNanos = nowNanos;
    }

    /** How long the JoinGroup or SyncGroup answered now took (ns). */
    long stepNanos(long nowNanos) {
        return nowNanos - stepSentNanos;
    }

    /** MEMBER_ID_REQUIRED (KIP-394): the broker handed out a member id to join with. */
    void memberIdGiven(String memberId) {
        generation = new Generation(-1, memberId, null);
    }

    /** JoinGroup succeeded: the new generation, SYNCING (with a rejoin still due if one was asked for meanwhile). */
    void joined(Generation joined) {
        joinFailures = 0;
        everJoined = true;
        generation = joined;
        move(phase == ClassicPhase.JOIN_SENT_REJOIN_DUE ? ClassicPhase.SYNCING_REJOIN_DUE : ClassicPhase.SYNCING);
    }

    /** A JoinGroup or SyncGroup failed retriably: JOINING, waiting; returns the attempt count for the backoff. */
    int joinRetryScheduled() {
        move(ClassicPhase.JOIN_BACKOFF);
        return ++joinFailures;
    }

    /** The rejoin reason for the next JoinGroup, set where an answer (not {@link #requestRejoin}) decides it. */
    void rejoinReason(String reason) {
        rejoinReason = reason;
    }

    /**
     * SyncGroup gave {@code assigned}: STABLE (with a rejoin still due when one was asked for meanwhile).
     *
     * @return how long the rebalance took (ns), or -1 when none was timed
     */
    long settled(long nowNanos) {
        joinFailures = 0;
        long took = -1;
        if (rebalanceStartedNanos != 0L) {
            took = nowNanos - rebalanceStartedNanos;
            rebalanceStartedNanos = 0L;
        }
        move(phase == ClassicPhase.SYNCING_REJOIN_DUE ? ClassicPhase.STABLE_REJOIN_DUE : ClassicPhase.STABLE);
        return took;
    }

    /** The topics of {@code assigned} outside the subscription (sorted). */
    Set<String> unexpectedTopics(Set<TopicPartition> assigned) {
        Set<String> unexpected = new TreeSet<>();
        for (TopicPartition tp : assigned) {
            if (!subscribed.contains(tp.topic())) {
                unexpected.add(tp.topic());
            }
        }
        return unexpected;
    }

    /**
     * What is owned and not in {@code assigned}; under cooperative rebalancing a non-empty answer makes a rejoin due,
     * so those partitions can go to their new owner in a second round (KIP-429).
     */
    Set<TopicPartition> revokedBy(Set<TopicPartition> assigned) {
        Set<TopicPartition> revoked = new HashSet<>(owned);
        revoked.removeAll(assigned);
        if (!revoked.isEmpty() && protocol == RebalanceProtocol.COOPERATIVE) {
            requestRejoin("partitions were revoked; rejoining so they can be reassigned");
        }
        return revoked;
    }

    /** The assignment is taken: returns what is new in it. */
    Set<TopicPartition> take(Set<TopicPartition> assigned) {
        Set<TopicPartition> added = new HashSet<>(assigned);
        added.removeAll(owned);
        owned = Set.copyOf(assigned);
        return added;
    }

    /** The listener gave these up (revoked or lost). */
    void dropped(Set<TopicPartition> dropped) {
        if (dropped.isEmpty()) {
            return;
        }
        Set<TopicPartition> next = new HashSet<>(owned);
        next.removeAll(dropped);
        owned = Set.copyOf(next);
    }

    // ------------------------------------------------------------------------------------------------ out of the group

    /**
     * {@code max.poll.interval.ms} expired in an active state: the step under way is abandoned, STALE, the generation
     * and member id dropped. The driver reports everything owned lost.
     *
     * @return the generation the member had (a dynamic member sends LeaveGroup for it), or null when not active
     */
    Generation pollExpired() {
        if (!phase.isActive()) {
            return null;
        }
        Generation had = generation;
        abortFlow();
        move(ClassicPhase.STALE);
        generation = Generation.NONE;
        return had;
    }

    /** Demand returned: true when the member was STALE and joins again. */
    boolean pollResumed() {
        if (phase != ClassicPhase.STALE) {
            return false;
        }
        rejoinReason = "consumer poll resumed";
        return true;
    }

    /** How {@link #leave()} goes on. */
    enum Leave {
        /** Nothing to leave (terminal, not started, or left): done at once. */
        DONE,
        /** LEAVING already: wait for it. */
        JOIN_WAITERS,
        /** Now LEAVING: the listener is told the owned partitions are revoked, then LeaveGroup. */
        REVOKE,
        /** Now LEAVING: the listener is told they are lost (a rebalance was under way or the generation is gone). */
        LOSE
    }

    Leave leave() {
        if (phase.isTerminal() || phase == ClassicPhase.UNJOINED || phase == ClassicPhase.LEFT) {
            return Leave.DONE;
        }
        if (phase == ClassicPhase.LEAVING) {
            return Leave.JOIN_WAITERS;
        }
        boolean lost = !generation.valid() || phase.visible() != MemberState.STABLE;
        abortFlow();
        move(ClassicPhase.LEAVING);
        return lost ? Leave.LOSE : Leave.REVOKE;
    }

    /** LeaveGroup answered, failed or was not sent: the generation is gone; LEFT unless failed or closed meanwhile. */
    void left() {
        generation = Generation.NONE;
        if (phase == ClassicPhase.LEAVING) {
            move(ClassicPhase.LEFT);
        }
    }
}
