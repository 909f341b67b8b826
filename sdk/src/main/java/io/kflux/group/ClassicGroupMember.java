package io.kflux.group;

import io.kflux.metadata.BrokerErrors;
import io.kflux.util.Backoff;

import io.kflux.KafkaProtocolException;
import io.kflux.TopicPartition;
import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import io.kflux.group.assignor.Assignors;
import io.kflux.metadata.MetadataManager;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.Errors;
import io.kflux.network.IoLoops;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The client side of the classic consumer group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) for one
 * consumer: coordinator discovery and rediscovery, the member state machine ({@link MemberState}), heartbeats,
 * the leader's assignment, static membership (KIP-345), eager and cooperative (KIP-429) rebalancing, pattern
 * subscriptions and {@code max.poll.interval.ms}.
 *
 * <p><b>Threads.</b> All state lives on the consumer's event loop (the {@code Executor} given to the constructor,
 * a {@link io.kflux.util.SerialExecutor}): every public method only submits a task to it, and every network answer
 * and timer hops back onto it. No locks. The accessors ({@link #state()}, {@link #assignment()}, ...) read
 * published snapshots and may be called from any thread.
 *
 * <p><b>Independent loops.</b> Heartbeats, coordinator rediscovery and the metadata check run on timers and
 * network answers only: slow downstream processing never delays them. Heartbeats also go on while a
 * {@link GroupListener} call is pending (as the official client's background thread does), so a slow revoke
 * (e.g. a commit) does not cost the membership.
 *
 * <p><b>Coordinator loss.</b> NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE answers, a dropped coordinator
 * connection, no heartbeat answer within {@code session.timeout.ms}, or a loss the commit layer reported to the shared
 * {@link CoordinatorManager} send the member back to it (FindCoordinator retried with backoff) while it keeps its
 * generation and assignment: ownership has
 * not changed, so nothing is revoked and fetching goes on. A JoinGroup or SyncGroup that was under way is sent again
 * to the new coordinator. If the member was expired meanwhile, the next heartbeat says UNKNOWN_MEMBER_ID and its
 * partitions are reported lost.
 *
 * <p><b>Listener calls</b> are made one at a time, in order, each bounded by {@code max.poll.interval.ms}: a call
 * that fails or times out is logged at WARN and the rebalance goes on (as with the official client, a listener
 * cannot veto a rebalance; the consumer may end itself from inside its listener if it wants).
 *
 * <p><b>Core and drivers.</b> Where the member is and what each event means for it live in the pure core,
 * {@link ClassicMembership} (phases in {@link ClassicPhase}, one checked enum, shown as {@link MemberState}; answers
 * judged by {@link ClassicAnswers}). Each protocol flow has its driver, which sends the requests, runs listener calls
 * and timers and tells the core what happened: {@link ClassicJoinFlow} (JoinGroup, the leader's assignment through
 * {@link LeaderAssignment}, SyncGroup, taking the assignment), {@link ClassicLeave} (LeaveGroup, the poll timeout's
 * leave), {@link ClassicSubscriptionCheck} (the subscription against each metadata snapshot), {@link ClassicHeartbeat}
 * (heartbeats and the session). {@link CoordinatorManager} owns the coordinator (shared with commits),
 * {@link CoordinatorLink} this member's hold on it, {@link ListenerCalls} the listener calls. This class joins them:
 * the public API, the step after each one ({@link #proceed()}), and coordinator and session events.
 */
public final class ClassicGroupMember extends AbstractGroupMember<MemberState> {
    private static final Logger log = LoggerFactory.getLogger(ClassicGroupMember.class);

    /** The reason sent in LeaveGroup when {@code max.poll.interval.ms} expired (the official client's words). */
    public static final String POLL_TIMEOUT_REASON = "consumer poll timeout has expired.";

    /** Generation, member id and protocol as the last JoinGroup gave them; replaced as a whole. */
    record Generation(int generationId, String memberId, String protocolName) {
        static final Generation NONE = new Generation(-1, "", null);

        boolean valid() {
            return generationId >= 0 && !memberId.isEmpty();
        }
    }

    private final GroupConfig config;
    /** Phase, generation, owned partitions, subscription, flow epoch and what each answer means; no I/O. */
    private final ClassicMembership core;

    private final LeaderAssignment leaderAssignment;
    private final CoordinatorLink link;
    private final ClassicHeartbeat heartbeat;
    private final ListenerCalls listenerCalls;
    /** The subscription (names or a pattern) and each metadata snapshot's check of it. */
    private final ClassicSubscriptionCheck subscription;
    /** JoinGroup, the leader's assignment, SyncGroup, taking the assignment. */
    private final ClassicJoinFlow flow;
    /** {@code leave()} and the poll timeout's leave. */
    private final ClassicLeave leaving;

    /**
     * A member that uses the consumer's connections and metadata.
     *
     * @param config       the group settings and assignors
     * @param connections  the consumer's broker connections
     * @param metadata     the consumer's metadata; the member sets its interest to the subscribed topics (all topics
     *                     for a pattern subscription; the leader adds every member's topics), so the consumer must not
     *                     narrow it while the member runs
     * @param coordinators the consumer's coordinator manager for {@code config.groupId()}, shared with commits
     * @param loop        the consumer's event loop ({@link io.kflux.util.SerialExecutor}); tasks must not block
     * @param listener    told of revoked, assigned and lost partitions and of fatal errors, always on {@code loop}
     * @throws io.kflux.ConfigException when the assignors have no rebalance protocol in common
     */
    public ClassicGroupMember(GroupConfig config, NodeConnections connections, MetadataManager metadata,
                              CoordinatorManager coordinators, Executor loop, GroupListener listener) {
        this(config, new NetworkGroupIo(connections, metadata), coordinators, loop, listener, IoLoops.timers());
    }

    ClassicGroupMember(GroupConfig config, GroupIo io, CoordinatorManager coordinators, Executor loop,
                       GroupListener listener, Scheduler scheduler) {
        super(log, Objects.requireNonNull(config, "config").groupId(), config.groupInstanceId(),
                new Backoff(config.retryBackoffMs(), config.retryBackoffMaxMs()), io, coordinators, loop, listener,
                scheduler, new States<>(MemberState.UNJOINED, Set.of(MemberState.UNJOINED, MemberState.LEFT,
                        MemberState.STALE), MemberState.STABLE, MemberState.LEAVING,
                        MemberState.FATAL, MemberState.CLOSED));
        this.config = config;
        if (!coordinators.groupId().equals(config.groupId())) {
            throw new IllegalArgumentException("the coordinator manager is for group " + coordinators.groupId()
                    + ", the member for " + config.groupId());
        }
        this.core = new ClassicMembership(Assignors.commonProtocol(config.assignors()), this::moved);
        this.leaderAssignment = new LeaderAssignment(logPrefix);
        this.link = new CoordinatorLink(coordinators, this::onLoop, logPrefix, this::onCoordinatorFound, this::fail,
                this::onCoordinatorLost);
        this.subscription = new ClassicSubscriptionCheck(this, config, core, leaderAssignment, io, logPrefix);
        this.heartbeat = new ClassicHeartbeat(this, config, core, subscription, logPrefix);
        this.listenerCalls = new ListenerCalls(listener, scheduler, config.maxPollIntervalMs(), logPrefix, this::onLoop,
                this::proceed);
        this.flow = new ClassicJoinFlow(this, config, core, heartbeat, listenerCalls, leaderAssignment, subscription, io,
                logPrefix);
        this.leaving = new ClassicLeave(this, config, core, heartbeat, listenerCalls, flow, logPrefix);
    }

    // ------------------------------------------------------------------------------------------------ public API

    /**
     * Subscribes to exactly these topics. Before {@link #start()} it sets what the first JoinGroup carries; later a
     * change makes the member rejoin (cooperative: the partitions of dropped topics are revoked first).
     */
    @Override
    public void subscribe(Collection<String> topics) {
        Set<String> copy = new TreeSet<>(topics);
        onLoop(() -> subscription.subscribe(copy));
    }

    /**
     * Subscribes to every topic whose whole name matches {@code pattern} (internal topics excluded when
     * {@code exclude.internal.topics}). Matching runs on every metadata snapshot the member sees (at least every
     * {@code metadata.max.age.ms}); a new match or a topic gone makes the member rejoin.
     */
    @Override
    public void subscribe(Pattern pattern) {
        Objects.requireNonNull(pattern, "pattern");
        onLoop(() -> subscription.subscribe(pattern));
    }

    /**
     * Starts the loops: coordinator discovery, then JoinGroup / SyncGroup, heartbeats and the metadata check.
     * Idempotent; does nothing after {@link #close()}, a fatal error or {@link #leave}.
     */
    @Override
    public void start() {
        onLoop(() -> {
            if (!core.start()) {
                return;
            }
            link.start();
            subscription.start();
            activate();
        });
    }

    /**
     * Leaves the group: tells the listener the owned partitions are revoked (lost when a rebalance is under way or
     * the generation is gone, as the official client does on close), then sends LeaveGroup with {@code reason}
     * unless the member is static ({@code group.instance.id}: a static member's partitions wait for it until
     * {@code session.timeout.ms}) or no coordinator is known right now. The member then stays LEFT.
     *
     * @param reason why, sent to the broker (LeaveGroup v5+), cut to 255 characters
     * @return completes when LeaveGroup was answered or failed (bounded by {@code request.timeout.ms}), at once when
     * there is nothing to leave; never fails
     */
    @Override
    public Mono<Void> leave(String reason) {
        return Mono.create(sink -> onLoop(() -> leaving.leave(reason, sink)));
    }

    /**
     * As the official client does, the member leaves the group (LeaveGroup with {@link #POLL_TIMEOUT_REASON}, dynamic
     * members only), drops its generation and member id, and reports every owned partition LOST (the group hands
     * them to others right away, so committing them is no longer possible; the official client reports them lost
     * on its next poll, kflux at once so fetching stops). The member stays STALE until {@link #pollResumed()}.
     */
    @Override
    void leaveOnPollTimeout() {
        leaving.onPollTimeout();
    }

    @Override
    boolean active() {
        return state().isActive();
    }

    @Override
    int maxPollIntervalMs() {
        return config.maxPollIntervalMs();
    }

    /** Downstream demand returned after {@link #pollTimeoutExpired()}: the member joins the group again. */
    @Override
    public void pollResumed() {
        onLoop(() -> {
            if (core.pollResumed()) {
                activate();
            }
        });
    }

    /** The generation of the last successful JoinGroup, -1 when the member has none; any thread. */
    @Override
    public int generationId() {
        return core.generation().generationId();
    }

    /** The member id the coordinator gave, {@code ""} when none; any thread. For OffsetCommit. */
    @Override
    public String memberId() {
        return core.generation().memberId();
    }

    /** {@code group.instance.id} (static membership), for OffsetCommit; empty for a dynamic member. */
    @Override
    public Optional<String> groupInstanceId() {
        return config.instanceId();
    }

    /** True once a JoinGroup succeeded, whatever happened since; any thread. */
    @Override
    public boolean everJoined() {
        return core.everJoined();
    }

    /** The partitions the member owns now (an immutable snapshot); any thread. */
    @Override
    public Set<TopicPartition> assignment() {
        return core.owned();
    }

    // ------------------------------------------------------------------------------------------------ the machine

    /** The core moved to {@code next}: publish the state it shows as (a checked move when that changes). */
    private void moved(ClassicPhase next) {
        log.trace("{}phase {}", logPrefix, next);
        transitionTo(next.visible());
    }

    /** {@code fail()} or {@code close()} moved the member to a terminal state: the core follows. */
    @Override
    void entered(MemberState next) {
        if (next.isTerminal() && !core.phase().isTerminal()) {
            core.terminated(next == MemberState.FATAL ? ClassicPhase.FATAL : ClassicPhase.CLOSED);
        }
    }

    /** From UNJOINED (start) or STALE (poll resumed) into the group: look for the coordinator, or join at once. */
    private void activate() {
        if (coordinatorChannel() == null) {
            awaitCoordinator();
        } else {
            flow.prepareJoin();
        }
    }

    /** The coordinator is unknown: DISCOVERING without anything to keep, else REDISCOVERING (keeps its assignment). */
    void awaitCoordinator() {
        core.awaitCoordinator();
        discover();
    }

    /**
     * Decides the next step when no request of a rebalance step is under way: find the coordinator, (re)join, or be
     * STABLE and heartbeat. Called after every step that ends.
     */
    void proceed() {
        switch (core.proceed(coordinatorChannel() != null, listenerCalls.busy())) {
            case NOTHING -> { }
            case FIND_COORDINATOR -> discover();
            // A listener call of the step under way still runs; a coordinator found meanwhile resumes that step.
            case HEARTBEAT -> heartbeat.ensure();
            case PREPARE_JOIN -> flow.prepareJoin();
            case SETTLED -> {
                heartbeat.ensure();
                subscription.checkIfChanged();
            }
        }
    }

    void requestRejoin(String reason) {
        if (core.requestRejoin(reason)) {
            log.info("{}rejoining the group: {}", logPrefix, reason);
        }
        proceed();
    }

    void resetGeneration(boolean resetMemberId, String reason) {
        log.info("{}resetting generation{} ({}): {}", logPrefix, resetMemberId ? " and member id" : "",
                core.generation(), reason);
        core.resetGeneration(resetMemberId);
        resetLeader();
    }

    void resetLeader() {
        if (leaderAssignment.reset()) {
            subscription.updateInterest();
        }
    }

    @Override
    void cleanup() {
        flow.abandonStep();
        heartbeat.cancel(state() == MemberState.FATAL);
        link.cancel();
        subscription.cancel();
        listenerCalls.cancel();
    }

    long now() {
        return scheduler.now(TimeUnit.MILLISECONDS);
    }

    // ------------------------------------------------------------------------------------------------ discovery

    /** Asks the coordinator manager for the coordinator (once; it retries lookups itself) unless one is known. */
    private void discover() {
        if (!terminal()) {
            link.ensure();
        }
    }

    private void onCoordinatorFound(CoordinatorChannel ch) {
        if (terminal()) {
            return;
        }
        // Finding the coordinator says nothing about the session: only its answers confirm it (SessionTimer), so
        // the first heartbeat goes out at once.
        proceed();
        heartbeat.resume();
    }

    /**
     * Forgets the coordinator when {@code ch} is the current one (null: whichever is current); the member keeps its
     * generation and partitions and looks for it again.
     */
    void coordinatorLost(CoordinatorChannel ch, String reason) {
        link.lose(ch, reason);
    }

    /** The coordinator is gone: a JoinGroup/SyncGroup under way is abandoned and sent again to the new one. */
    private void onCoordinatorLost(CoordinatorChannel gone, String reason) {
        if (terminal()) {
            return;
        }
        heartbeat.stop();
        if (core.phase().isJoining()) {
            // The JoinGroup step ends unanswered. Not a confirmation: the broker may have completed the join and its
            // answer been lost, and then expires the member a session timeout on (issue #15: counted as one, the
            // member emitted that much longer).
            heartbeat.joinUnanswered();
        }
        if (core.phase().isJoining() || core.phase().isSyncing()) {
            flow.abandonStep();
        }
        core.coordinatorLost();
        if (core.phase().isActive()) {
            discover();
        }
    }

    /**
     * Whether the member holds a session the coordinator times out: a generation, in a state where heartbeats are due
     * (or would be, once the coordinator is found again), or JOINING with it: a broker holding the JoinGroup keeps the
     * member, but one that completed the join and whose answer was lost expires it a session timeout later, and the
     * member cannot tell the two apart (issue #15: a cooperative member emits the partitions it keeps meanwhile).
     */
    boolean sessionHeld() {
        return core.sessionHeld();
    }

    /**
     * Whether a JoinGroup is out (not waiting for its retry): the broker may hold it for up to the rebalance timeout,
     * keeping the member meanwhile, so the session's grace does not end it ({@link SessionTimer}).
     */
    boolean joinAwaited() {
        return core.joinAwaited();
    }

    /** {@link SessionTimer}: hold back records (true) or emit again (false); the consumer logs it. */
    void onSessionInDoubt(boolean inDoubt) {
        listener.onSessionInDoubt(inDoubt);
    }

    /**
     * No answer confirmed the session for {@code session.timeout.ms}, nor for as long again while the member held back
     * its records and tried its coordinator ({@link SessionTimer}): the coordinator has removed this member and
     * given its partitions to others, whether or not this member could hear it say so. Everything owned is reported
     * LOST at once (not committed; the consumer stops fetching and emitting it), the generation is dropped, and the
     * member joins again once the coordinator answers (issue #15: it kept emitting a backlog the group had given
     * away). The state machine carries it: REJOINING without a generation is the lost path.
     *
     * <p>The member id is kept for that JoinGroup, as the official client does: a coordinator that was itself frozen
     * (a long pause, SIGSTOP) has not expired the member when it wakes, and waits for that member id to rejoin or time
     * out before completing any rebalance. Joining under a new id made the group wait a whole session timeout for the
     * old one (GroupFaultTest: 10 s to the first record after the coordinator resumed, against 30 ms for the official
     * consumer). A coordinator that did expire the member answers UNKNOWN_MEMBER_ID, and the member joins anew.
     */
    void sessionExpired(String reason) {
        if (!sessionHeld()) {
            return;
        }
        log.warn("{}session expired: {}; partitions {} are lost, joining again once the coordinator answers",
                logPrefix, reason, core.owned());
        link.lose(null, "session expired: " + reason);
        core.abortFlow(); // the JoinGroup/SyncGroup step under way is abandoned (its answer will be ignored)
        flow.abandonStep();
        resetGeneration(false, "session expired");
        core.rejoinReason("the session expired");
        flow.prepareJoin();
    }

    // ------------------------------------------------------------------------------------------------ heartbeats

    /** Whether {@link ClassicHeartbeat} may send now: a coordinator, a generation, and a state that heartbeats. */
    boolean heartbeatAllowed() {
        return core.heartbeatAllowed(coordinatorChannel() != null);
    }

    Generation generation() {
        return core.generation();
    }

    CoordinatorChannel coordinatorChannel() {
        return link.current();
    }

    /** What a refused request ends the member with: the broker's error in its public type, naming the group. */
    KafkaProtocolException protocolError(Errors error, String what) {
        return BrokerErrors.of(error.code(), what + " (group " + config.groupId() + ")", null, config.groupId());
    }

    @Override
    public String toString() {
        return "ClassicGroupMember[" + config.groupId() + ", " + state() + ", generation " + generationId() + ", member '"
                + memberId() + "']";
    }
}
