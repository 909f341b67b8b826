package io.kflux.group;

import io.kflux.TopicPartition;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ConsumerGroupHeartbeatRequest;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse;
import io.kflux.util.Backoff;
import io.kflux.util.StateTransitions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The KIP-848 member's pure core: where the member is ({@link ConsumerPhase}, one enum, checked transitions; the
 * heartbeat out in {@link HeartbeatPhase}), what it holds (member id and epoch, the target assignment, the owned
 * partitions with their topic ids, the subscription, the flow epoch that retires continuations of abandoned
 * reconciliations, the heartbeat interval and backoff in {@link HeartbeatCadence}, as the share member's), and what
 * each event means for it: start, a heartbeat asked for, sent, answered ({@link #judge}, {@link #accept}),
 * reconciliation's steps ({@link #reconcile}, {@link #take}, {@link #acknowledge}), fencing, a poll timeout,
 * leaving. It does no I/O, keeps no timer and reads no clock. {@link ConsumerGroupMember} drives it: it sends the
 * heartbeats the core builds, runs the listener calls, timers and metadata refreshes, and tells the core what
 * happened, on the consumer's loop.
 *
 * <p>Fields read by other threads ({@link #memberId()}, {@link #epoch()}, {@link #owned()}, {@link #everJoined()})
 * are volatile and replaced whole; every write happens on the loop.
 *
 * <p><b>Why one class of about 500 lines.</b> It is one state machine: the phase, the epoch, the target and the owned
 * partitions change together on every answer and every reconciliation step, and an invariant among them (what is
 * owned is what the last acknowledged heartbeat said) would be spread over classes if the events were split. Its
 * timing lives in {@link HeartbeatCadence}, its I/O in {@link ConsumerGroupMember}.
 */
final class ConsumerMembership {

    /** What a heartbeat answer's error code means for the member ({@link #judge}). */
    enum Answer {
        /** For a membership given up meanwhile (fenced and rejoined, left): decides nothing. */
        STALE_ANSWER,
        /** No error: take what it says ({@link #accept}). */
        ACCEPT,
        /**
         * FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, GROUP_ID_NOT_FOUND to a member with an epoch: partitions lost, join
         * again with epoch 0.
         */
        FENCED,
        /** NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE: look for the coordinator again. */
        COORDINATOR_LOST,
        /** Another retriable code (COORDINATOR_LOAD_IN_PROGRESS among others): the next heartbeat after a backoff. */
        RETRY,
        /** FENCED_INSTANCE_ID: another consumer took this {@code group.instance.id}; the member ends. */
        FENCED_INSTANCE,
        /** INVALID_REGULAR_EXPRESSION: the broker cannot parse the pattern; the member ends. */
        INVALID_PATTERN,
        /** UNSUPPORTED_ASSIGNOR: {@code group.remote.assignor} is not offered; the member ends. */
        UNSUPPORTED_ASSIGNOR,
        /** TOPIC_AUTHORIZATION_FAILED: the member ends, naming the topics metadata refuses. */
        TOPIC_AUTHORIZATION,
        /** Any other code: the member ends. */
        FATAL
    }

    /** What {@link #heartbeatAsked()} leads to. */
    enum Ask {
        /** Send one now ({@link #sending()}). */
        SEND,
        /** One is out; another goes as soon as it is answered. */
        AFTER_THE_ONE_OUT
    }

    /** A reconciliation step the driver carries out. */
    sealed interface Step permits Idle, AwaitTopicIds, Settled, Move {
    }

    /** Nothing to reconcile now (no target yet, or a state that does not reconcile). */
    record Idle() implements Step {
    }

    /** The target names topic ids metadata does not know yet: refresh, and reconcile again on the next snapshot. */
    record AwaitTopicIds(Set<UUID> unknown) implements Step {
    }

    /** The member owns its target. */
    record Settled() implements Step {
    }

    /**
     * Revoke {@code move.revoked()}, then take {@code move.added()} ({@link #take}), run the listener, then
     * {@link #acknowledge}; the member is RECONCILING.
     *
     * @param flowEpoch the reconciliation's epoch: a continuation whose epoch is no longer current does nothing
     */
    record Move(TargetAssignment.Move move, long flowEpoch) implements Step {
    }

    /**
     * How the member leaves.
     *
     * @param lost      whether the partitions are reported lost (poll timeout, fenced, never given an epoch) rather
     *                  than revoked
     * @param sendLeave whether the coordinator may know this member, so a leave heartbeat is due (not after a poll
     *                  timeout without an epoch: that membership is gone already)
     */
    record Leave(boolean lost, boolean sendLeave) {
    }

    private final ConsumerGroupConfig config;
    private final Consumer<ConsumerPhase> onMove;

    private ConsumerPhase phase = ConsumerPhase.UNSUBSCRIBED;
    private HeartbeatPhase heartbeat = HeartbeatPhase.IDLE;
    private volatile String memberId;
    private volatile int epoch;
    private volatile Set<TopicPartition> owned = Set.of();
    private volatile boolean everJoined;
    /** Topic ids of the owned partitions (what heartbeats report). */
    private final Map<TopicPartition, UUID> ownedIds = new HashMap<>();
    private Pattern pattern;
    private Set<String> subscribedTopics = new TreeSet<>();
    /** The latest target assignment from the coordinator; null before the first. */
    private TargetAssignment target;
    private long flowEpoch;
    /** The interval the coordinator names and the backoff after failures in a row. */
    private final HeartbeatCadence cadence;

    /**
     * @param memberId the member id this member generated (KIP-1082; the broker's answer may replace it)
     * @param onMove   told of every move, after it was checked, with the new phase (the driver publishes and logs it)
     */
    ConsumerMembership(ConsumerGroupConfig config, String memberId, Consumer<ConsumerPhase> onMove) {
        this.config = Objects.requireNonNull(config, "config");
        this.cadence = new HeartbeatCadence(new Backoff(config.retryBackoffMs(), config.retryBackoffMaxMs()));
        this.memberId = Objects.requireNonNull(memberId, "memberId");
        this.onMove = Objects.requireNonNull(onMove, "onMove");
    }

    // ------------------------------------------------------------------------------------------------ reading

    ConsumerPhase phase() {
        return phase;
    }

    HeartbeatPhase heartbeat() {
        return heartbeat;
    }

    String memberId() {
        return memberId;
    }

    int epoch() {
        return epoch;
    }

    Set<TopicPartition> owned() {
        return owned;
    }

    boolean everJoined() {
        return everJoined;
    }

    Pattern pattern() {
        return pattern;
    }

    Set<String> subscribedTopics() {
        return subscribedTopics;
    }

    long flowEpoch() {
        return flowEpoch;
    }

    /** The interval the coordinator asked for, ms (its default until it answers). */
    int intervalMs() {
        return cadence.intervalMs();
    }

    /** Whether a heartbeat may go out in this state (the coordinator aside). */
    boolean heartbeatAllowed() {
        return phase.heartbeats();
    }

    /** Whether the member holds a session the coordinator times out: an epoch, in a state that heartbeats. */
    boolean sessionHeld() {
        return epoch > 0 && phase.heartbeats();
    }

    // ------------------------------------------------------------------------------------------------ moves

    private void move(ConsumerPhase next) {
        if (phase == next) {
            return;
        }
        phase = StateTransitions.check(phase, next);
        onMove.accept(next);
    }

    /** {@code fail()} or {@code close()} ended the member: the core follows. */
    void terminated(ConsumerPhase terminal) {
        if (!terminal.isTerminal()) {
            throw new IllegalArgumentException(terminal + " is not terminal");
        }
        flowEpoch++;
        move(terminal);
        heartbeatEnded();
    }

    void subscribe(Set<String> topics) {
        pattern = null;
        subscribedTopics = new TreeSet<>(topics);
    }

    void subscribe(Pattern regex) {
        pattern = Objects.requireNonNull(regex, "pattern");
        subscribedTopics = new TreeSet<>();
    }

    /** @return whether the member started (it was not started before) */
    boolean start() {
        if (phase != ConsumerPhase.UNSUBSCRIBED) {
            return false;
        }
        join();
        return true;
    }

    /** Joins with epoch 0 (first start, after being fenced, after a poll timeout). */
    private void join() {
        move(ConsumerPhase.JOINING);
        epoch = 0;
        target = null;
    }

    // ------------------------------------------------------------------------------------------------ heartbeats

    /** A heartbeat is wanted as soon as possible; the caller checked {@link #heartbeatAllowed()}. */
    Ask heartbeatAsked() {
        if (heartbeat == HeartbeatPhase.IDLE) {
            return Ask.SEND;
        }
        if (heartbeat == HeartbeatPhase.IN_FLIGHT) {
            heartbeat = StateTransitions.check(heartbeat, HeartbeatPhase.IN_FLIGHT_THEN_AGAIN);
        }
        return Ask.AFTER_THE_ONE_OUT;
    }

    /** The heartbeat the driver sends now (the one out from here on). */
    ConsumerGroupHeartbeatRequest sending() {
        heartbeat = StateTransitions.check(heartbeat, HeartbeatPhase.IN_FLIGHT);
        if (epoch == ConsumerGroupHeartbeatRequest.JOIN_EPOCH && phase == ConsumerPhase.JOINING) {
            move(ConsumerPhase.JOIN_SENT);
        }
        return request(epoch);
    }

    /** The heartbeat out is answered, failed or abandoned. @return whether another was asked for meanwhile */
    boolean heartbeatEnded() {
        boolean again = heartbeat == HeartbeatPhase.IN_FLIGHT_THEN_AGAIN;
        if (heartbeat != HeartbeatPhase.IDLE) {
            heartbeat = StateTransitions.check(heartbeat, HeartbeatPhase.IDLE);
        }
        return again;
    }

    /** A heartbeat failed retriably. @return how many in a row did */
    int heartbeatFailed() {
        return cadence.failed();
    }

    /** The delay before the next heartbeat after the failures in a row so far, ms. */
    long heartbeatRetryDelayMs() {
        return cadence.retryDelayMs();
    }

    /** A coordinator was found (or answered): the backoff starts again. */
    void coordinatorFound() {
        cadence.reset();
    }

    /** The full request at {@code sentEpoch}: every heartbeat carries everything (see {@link ConsumerGroupMember}). */
    private ConsumerGroupHeartbeatRequest request(int sentEpoch) {
        Map<UUID, List<Integer>> byTopic = new TreeMap<>();
        ownedIds.forEach((tp, id) -> byTopic.computeIfAbsent(id, k -> new ArrayList<>()).add(tp.partition()));
        List<ConsumerGroupHeartbeatRequest.TopicPartitions> ownedList = new ArrayList<>();
        byTopic.forEach((id, ps) -> {
            ps.sort(null);
            ownedList.add(new ConsumerGroupHeartbeatRequest.TopicPartitions(id, ps));
        });
        return new ConsumerGroupHeartbeatRequest(config.groupId(), memberId, sentEpoch, config.groupInstanceId(),
                config.rackOrNull(), config.rebalanceTimeoutMs(),
                pattern == null ? List.copyOf(subscribedTopics) : null,
                pattern == null ? null : pattern.pattern(), config.remoteAssignor(),
                sentEpoch == ConsumerGroupHeartbeatRequest.JOIN_EPOCH ? List.of() : ownedList);
    }

    // ------------------------------------------------------------------------------------------------ answers

    /**
     * What the answer to {@code sent} means.
     *
     * @param current whether it came from the coordinator the member heartbeats to now
     */
    Answer judge(ConsumerGroupHeartbeatRequest sent, Errors error, boolean current) {
        if (!current || phase.isTerminal() || !phase.heartbeats() || sent.memberEpoch() != epoch) {
            return Answer.STALE_ANSWER;
        }
        return switch (error) {
            case NONE -> Answer.ACCEPT;
            case FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID -> Answer.FENCED;
            // The coordinator has no such group. At an epoch it is one that lost the group under the member (the
            // cluster behind bootstrap.servers was replaced, KIP-899; or the group was deleted): it cannot know the
            // member either, so as fenced, and the join at epoch 0 creates the group anew. At epoch 0 the broker
            // means "a group of another type" (a classic group with members): joining again cannot help.
            case GROUP_ID_NOT_FOUND -> sent.memberEpoch() > 0 ? Answer.FENCED : Answer.FATAL;
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> Answer.COORDINATOR_LOST;
            case FENCED_INSTANCE_ID -> Answer.FENCED_INSTANCE;
            case INVALID_REGULAR_EXPRESSION -> Answer.INVALID_PATTERN;
            case UNSUPPORTED_ASSIGNOR -> Answer.UNSUPPORTED_ASSIGNOR;
            case TOPIC_AUTHORIZATION_FAILED -> Answer.TOPIC_AUTHORIZATION;
            case UNRELEASED_INSTANCE_ID, GROUP_MAX_SIZE_REACHED, GROUP_AUTHORIZATION_FAILED, INVALID_REQUEST,
                 UNSUPPORTED_VERSION -> Answer.FATAL;
            default -> error.retriable() ? Answer.RETRY : Answer.FATAL;
        };
    }

    /**
     * Takes an answer without error: member id, epoch, interval, target; ACKNOWLEDGING becomes STABLE when the
     * coordinator heard what the member owns now and the answer moves nothing more (as the official client's
     * ACKNOWLEDGING -> RECONCILING otherwise; a target naming unknown topic ids waits in STABLE, as it would from
     * there).
     *
     * @param reported   what the answered heartbeat reported as owned
     * @param topicNames a topic id's name in current metadata, null when unknown
     * @return whether this answer made the member join (for the log)
     */
    boolean accept(Set<TopicPartition> reported, ConsumerGroupHeartbeatResponse response,
                   Function<UUID, String> topicNames) {
        cadence.answered(response.heartbeatIntervalMs());
        if (response.memberId() != null && !response.memberId().isEmpty()) {
            memberId = response.memberId();
        }
        if (phase == ConsumerPhase.JOINING) {
            move(ConsumerPhase.JOIN_SENT); // an answer at epoch 0: a join went out
        }
        boolean joined = !everJoined || phase.isJoining();
        everJoined = true;
        epoch = response.memberEpoch();
        if (response.assignment() != null) {
            target = TargetAssignment.of(response.assignment());
        }
        if (phase == ConsumerPhase.ACKNOWLEDGING && reported.equals(owned) && (target == null
                || !(target.against(owned, topicNames) instanceof TargetAssignment.Move))) {
            move(ConsumerPhase.STABLE);
        }
        return joined;
    }

    // ------------------------------------------------------------------------------------------------ reconciliation

    /**
     * The next reconciliation step: a move when the target differs from what is owned and no reconciliation runs
     * (the member is RECONCILING then), STABLE straight from JOINING when there is nothing to take (the join
     * heartbeat reported it; from ACKNOWLEDGING the answer to the acknowledgement makes it STABLE, {@link #accept}).
     */
    Step reconcile(Function<UUID, String> topicNames) {
        if (target == null || !(phase.isJoining() || phase == ConsumerPhase.ACKNOWLEDGING
                || phase == ConsumerPhase.STABLE)) {
            return new Idle();
        }
        TargetAssignment.Step step = target.against(owned, topicNames);
        if (step instanceof TargetAssignment.AwaitTopicIds await) {
            return new AwaitTopicIds(await.unknown());
        }
        if (step instanceof TargetAssignment.Settled) {
            if (phase.isJoining()) {
                move(ConsumerPhase.STABLE);
            }
            return new Settled();
        }
        move(ConsumerPhase.RECONCILING);
        return new Move((TargetAssignment.Move) step, ++flowEpoch);
    }

    /** Whether a continuation of the flow {@code epoch} still counts (not fenced, leaving or closed meanwhile). */
    boolean current(long epochOfFlow) {
        return epochOfFlow == flowEpoch;
    }

    /** {@code dropped} were revoked or reported lost: no longer owned. */
    void dropped(Set<TopicPartition> dropped) {
        if (dropped.isEmpty()) {
            return;
        }
        Set<TopicPartition> next = new HashSet<>(owned);
        next.removeAll(dropped);
        dropped.forEach(ownedIds::remove);
        owned = Set.copyOf(next);
    }

    /** What was revoked is gone: the move's new partitions are owned now. @return false when the flow is retired */
    boolean take(Move step) {
        if (!current(step.flowEpoch())) {
            return false;
        }
        Set<TopicPartition> whole = new HashSet<>(owned);
        whole.addAll(step.move().added());
        ownedIds.putAll(step.move().ids());
        owned = Set.copyOf(whole);
        return true;
    }

    /** The listener took the new partitions: tell the coordinator. @return false when the flow is retired */
    boolean acknowledge(Move step) {
        if (!current(step.flowEpoch())) {
            return false;
        }
        move(ConsumerPhase.ACKNOWLEDGING);
        return true;
    }

    // ------------------------------------------------------------------------------------------------ fencing

    /**
     * FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID, or the session expired: the partitions are to be reported lost
     * ({@link #owned()}), then {@link #lostReported()} joins again at epoch 0.
     */
    void fenced() {
        flowEpoch++;
        move(ConsumerPhase.FENCED);
        target = null;
        epoch = 0;
    }

    /** The lost partitions were reported. @return whether the member joins again (it was still FENCED) */
    boolean lostReported() {
        if (phase != ConsumerPhase.FENCED) {
            return false;
        }
        join();
        return true;
    }

    // ------------------------------------------------------------------------------------------------ poll timeout

    /** Downstream demand returned. @return whether the member joins again (it was STALE) */
    boolean pollResumed() {
        if (phase != ConsumerPhase.STALE) {
            return false;
        }
        join();
        return true;
    }

    // ------------------------------------------------------------------------------------------------ leaving

    /**
     * Starts leaving: what is owned is dropped, then (when {@link Leave#sendLeave()} and a coordinator is known) the
     * leave heartbeat goes ({@link #leaveSending}), then {@link #leaveDone()}. The caller checked
     * {@code phase().isActive()}.
     *
     * @param stale true on a poll timeout (ends in STALE, partitions lost), false on {@code leave()} (ends in LEFT)
     */
    Leave leave(boolean stale) {
        boolean lost = stale || phase == ConsumerPhase.FENCED || epoch <= 0;
        // A join the coordinator may have taken is left too, else the member would hold partitions until the
        // broker's session timeout; not after a poll timeout without an epoch.
        boolean sendLeave = epoch > 0 || (!stale && phase != ConsumerPhase.JOINING);
        flowEpoch++;
        move(stale ? ConsumerPhase.PREPARE_STALE : ConsumerPhase.PREPARE_LEAVING);
        return new Leave(lost, sendLeave);
    }

    /**
     * The leave heartbeat, sent now: epoch -1, or -2 for a static member (whose partitions wait for it until the
     * broker's session timeout).
     */
    ConsumerGroupHeartbeatRequest leaveSending() {
        move(phase == ConsumerPhase.PREPARE_STALE ? ConsumerPhase.LEAVING_TO_STALE : ConsumerPhase.LEAVING);
        return request(config.groupInstanceId() == null ? ConsumerGroupHeartbeatRequest.LEAVE_EPOCH
                : ConsumerGroupHeartbeatRequest.STATIC_LEAVE_EPOCH);
    }

    /** The leave ended (answered, failed, or not sent): LEFT or STALE, without an epoch. */
    void leaveDone() {
        ConsumerPhase to = switch (phase) {
            case PREPARE_LEAVING, LEAVING -> ConsumerPhase.LEFT;
            case PREPARE_STALE, LEAVING_TO_STALE -> ConsumerPhase.STALE;
            default -> null;
        };
        if (to != null) {
            move(to);
            epoch = 0;
            target = null;
        }
    }

    @Override
    public String toString() {
        return "KIP-848 member " + memberId + " of group " + config.groupId() + " (" + phase + ", epoch " + epoch + ")";
    }
}
