package io.kflux.group;

import io.kflux.metadata.BrokerErrors;
import io.kflux.util.Backoff;

import io.kflux.FencedInstanceIdException;
import io.kflux.KafkaFluxException;
import io.kflux.KafkaProtocolException;
import io.kflux.TopicPartition;
import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import io.kflux.group.assignor.Assignment;
import io.kflux.group.assignor.PartitionAssignor;
import io.kflux.group.assignor.Assignors;
import io.kflux.group.assignor.ConsumerProtocolCodec;
import io.kflux.group.assignor.Subscription;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.SubscriptionWatch;
import io.kflux.metadata.TopicInfo;
import io.kflux.network.NetworkException;
import io.kflux.network.NodeConnections;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.JoinGroupRequest;
import io.kflux.protocol.message.JoinGroupRequest.JoinGroupRequestProtocol;
import io.kflux.protocol.message.JoinGroupResponse;
import io.kflux.protocol.message.LeaveGroupRequest;
import io.kflux.protocol.message.LeaveGroupResponse;
import io.kflux.protocol.message.SyncGroupRequest;
import io.kflux.protocol.message.SyncGroupRequest.SyncGroupRequestAssignment;
import io.kflux.protocol.message.SyncGroupResponse;
import io.kflux.util.MonotonicScheduler;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
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
 * <p><b>Core and driver.</b> Where the member is and what each event means for it live in the pure core,
 * {@link ClassicMembership} (phases in {@link ClassicPhase}, one checked enum, shown as {@link MemberState}; answers
 * judged by {@link ClassicAnswers}); this class is its driver: it sends the requests, runs listener calls and timers
 * and tells the core what happened.
 *
 * <p><b>Why one class past 500 lines.</b> What is left here is the I/O of the JoinGroup/SyncGroup flow (each request's
 * send, its answer handed to the core on the loop under the flow epoch, and the leader's assignment step between
 * them), leaving, and the subscription's metadata watch, which feeds the same flow (a pattern's matches are taken
 * at the JoinGroup). Splitting the flow's sends from its answers would pass the request, its epoch and its
 * channel between files for each step. The separable concerns live beside it: {@link CoordinatorManager} (the
 * coordinator, shared with commits), {@link CoordinatorLink} (this member's hold on it), {@link ClassicHeartbeat}
 * (heartbeat loop), {@link LeaderAssignment} (the leader's assignment), {@link ListenerCalls} (listener calls).
 */
public final class ClassicGroupMember extends AbstractGroupMember<MemberState> {
    private static final Logger log = LoggerFactory.getLogger(ClassicGroupMember.class);

    /** The broker holds a JoinGroup for up to the rebalance timeout: allow this much more for the answer. */
    static final long JOIN_GROUP_TIMEOUT_LAPSE_MS = 5_000;
    /** Reasons sent in JoinGroup/LeaveGroup are cut to this length, as the official client does. */
    static final int MAX_REASON_LENGTH = 255;
    /** The reason sent in LeaveGroup when {@code max.poll.interval.ms} expired (the official client's words). */
    public static final String POLL_TIMEOUT_REASON = "consumer poll timeout has expired.";
    private static final Comparator<TopicPartition> PARTITION_ORDER = ListenerCalls.PARTITION_ORDER;


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

    // Loop-only state.
    private Pattern pattern;
    private final LeaderAssignment leaderAssignment;
    private Cluster lastCheckedCluster;

    private final CoordinatorLink link;

    private final ClassicHeartbeat heartbeat;

    /** The JoinGroup, SyncGroup, leader metadata refresh or retry timer of the current rebalance step. */
    private Disposable joinCall;

    private final ListenerCalls listenerCalls;
    private Disposable metadataLoop;
    /** The early refreshes while a subscribed topic is missing from metadata. */
    private final SubscriptionWatch missingTopics;

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
        this(config, new NetworkGroupIo(connections, metadata), coordinators, loop, listener, MonotonicScheduler.parallel());
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
        this.heartbeat = new ClassicHeartbeat(this, config, logPrefix);
        this.listenerCalls = new ListenerCalls(listener, scheduler, config.maxPollIntervalMs(), logPrefix, this::onLoop,
                this::proceed);
        this.missingTopics = subscriptionWatch(() -> !inactive(), this::checkMetadata, e -> {
            log.debug("{}metadata refresh failed: {}", logPrefix, e.toString());
            watchMissingTopics(io.cluster());
        });
    }

    // ------------------------------------------------------------------------------------------------ public API

    /**
     * Subscribes to exactly these topics. Before {@link #start()} it sets what the first JoinGroup carries; later a
     * change makes the member rejoin (cooperative: the partitions of dropped topics are revoked first).
     */
    @Override
    public void subscribe(Collection<String> topics) {
        Set<String> copy = new TreeSet<>(topics);
        onLoop(() -> {
            pattern = null;
            core.subscribe(copy);
            updateInterest();
            subscriptionMaybeChanged();
        });
    }

    /**
     * Subscribes to every topic whose whole name matches {@code pattern} (internal topics excluded when
     * {@code exclude.internal.topics}). Matching runs on every metadata snapshot the member sees (at least every
     * {@code metadata.max.age.ms}); a new match or a topic gone makes the member rejoin.
     */
    @Override
    public void subscribe(Pattern pattern) {
        Objects.requireNonNull(pattern, "pattern");
        onLoop(() -> {
            this.pattern = pattern;
            core.subscribe(match(io.cluster()));
            updateInterest();
            subscriptionMaybeChanged();
            if (started()) {
                refreshAndCheckMetadata();
            }
        });
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
            updateInterest();
            // The consumer refreshes metadata (metadata.max.age.ms, fetch errors); the member looks at every snapshot.
            metadataLoop = io.metadataUpdates().subscribe(c -> onLoop(() -> checkMetadata(c)));
            if (pattern != null) {
                refreshAndCheckMetadata();
            }
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
        return Mono.create(sink -> onLoop(() -> doLeave(reason, sink)));
    }

    /**
     * As the official client does, the member leaves the group (LeaveGroup with {@link #POLL_TIMEOUT_REASON}, dynamic
     * members only), drops its generation and member id, and reports every owned partition LOST (the group hands
     * them to others right away, so committing them is no longer possible; the official client reports them lost
     * on its next poll, kflux at once so fetching stops). The member stays STALE until {@link #pollResumed()}.
     */
    @Override
    void leaveOnPollTimeout() {
        CoordinatorChannel ch = coordinatorChannel();
        Generation g = core.pollExpired();
        if (config.groupInstanceId() == null && ch != null && !g.memberId().isEmpty()) {
            sendLeaveGroup(ch, g, POLL_TIMEOUT_REASON).subscribe();
        }
        abandonStep();
        heartbeat.stop();
        resetLeader();
        listenerCalls.drop(ListenerCalls.Drop.LOST, core::owned, core::dropped);
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

    private boolean started() {
        return core.started();
    }

    /** Not taking part in the group: not started, left, out after a poll timeout, leaving, or terminal. */
    private boolean inactive() {
        return core.inactive();
    }

    /** From UNJOINED (start) or STALE (poll resumed) into the group: look for the coordinator, or join at once. */
    private void activate() {
        if (coordinatorChannel() == null) {
            awaitCoordinator();
        } else {
            prepareJoin();
        }
    }

    /** The coordinator is unknown: DISCOVERING without anything to keep, else REDISCOVERING (keeps its assignment). */
    private void awaitCoordinator() {
        core.awaitCoordinator();
        discover();
    }

    /**
     * Decides the next step when no request of a rebalance step is under way: find the coordinator, (re)join, or be
     * STABLE and heartbeat. Called after every step that ends.
     */
    private void proceed() {
        switch (core.proceed(coordinatorChannel() != null, listenerCalls.busy())) {
            case NOTHING -> { }
            case FIND_COORDINATOR -> discover();
            // A listener call of the step under way still runs; a coordinator found meanwhile resumes that step.
            case HEARTBEAT -> heartbeat.ensure();
            case PREPARE_JOIN -> prepareJoin();
            case SETTLED -> {
                heartbeat.ensure();
                checkMetadataIfChanged();
            }
        }
    }

    private void requestRejoin(String reason) {
        if (core.requestRejoin(reason)) {
            log.info("{}rejoining the group: {}", logPrefix, reason);
        }
        proceed();
    }

    /** Abandons the JoinGroup/SyncGroup step under way (its answer will be ignored). */
    private void abortFlow() {
        core.abortFlow();
        abandonStep();
    }

    /** Cancels the request or timer of the step under way; the core's flow epoch retires its answers. */
    private void abandonStep() {
        dispose(joinCall);
        joinCall = null;
    }

    private void resetGeneration(boolean resetMemberId, String reason) {
        log.info("{}resetting generation{} ({}): {}", logPrefix, resetMemberId ? " and member id" : "",
                core.generation(), reason);
        core.resetGeneration(resetMemberId);
        resetLeader();
    }

    private void resetLeader() {
        if (leaderAssignment.reset()) {
            updateInterest();
        }
    }

    @Override
    void cleanup() {
        dispose(joinCall);
        heartbeat.cancel(state() == MemberState.FATAL);
        link.cancel();
        dispose(metadataLoop);
        missingTopics.cancel();
        joinCall = metadataLoop = null;
        listenerCalls.cancel();
    }

    private static void dispose(Disposable d) {
        if (d != null) {
            d.dispose();
        }
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
            abandonStep();
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
        abortFlow();
        resetGeneration(false, "session expired");
        core.rejoinReason("the session expired");
        prepareJoin();
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

    /** What a Heartbeat answer (from the current coordinator, for {@code sent}) means for the member. */
    void onHeartbeatAnswer(CoordinatorChannel ch, Generation sent, Errors error, long sentAtMs) {
        switch (ClassicAnswers.heartbeat(error, sent, core.generation(), core.phase())) {
            case CONFIRMED -> {
                heartbeat.answered(sentAtMs);
                checkMetadataIfChanged();
            }
            case CONFIRMED_IN_REBALANCE -> heartbeat.answered(sentAtMs);
            case CONFIRMED_REBALANCING -> {
                heartbeat.answered(sentAtMs);
                requestRejoin("the group is rebalancing");
            }
            case RESET_AND_REJOIN -> {
                resetGeneration(error == Errors.UNKNOWN_MEMBER_ID, error + " from Heartbeat");
                requestRejoin(error + " from Heartbeat");
                // after the reset: it does not end holding back records of a session in doubt
                heartbeat.answered(sentAtMs);
            }
            case STALE_ANSWER -> heartbeat.answered(sentAtMs);
            case FENCED -> fail(fenced("Heartbeat"));
            case IGNORED -> { }
            case COORDINATOR_LOST -> coordinatorLost(ch, error + " from Heartbeat");
            case FATAL -> fail(protocolError(error, "Heartbeat"));
            case RETRY -> {
                log.warn("{}Heartbeat failed with {}; retrying", logPrefix, error);
                heartbeat.retrySoon();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ join / sync

    /**
     * First step of a rebalance: tells the listener what this member gives up before it joins. Lost when the
     * generation is gone (the group already gave the partitions to others); eager: everything is revoked;
     * cooperative: only partitions of topics no longer subscribed (the rest is kept and reported as owned).
     */
    private void prepareJoin() {
        long epoch = core.prepareJoin();
        Generation atStart = core.generation();
        boolean lost = !atStart.valid();
        heartbeat.ensure();
        listenerCalls.drop(lost ? ListenerCalls.Drop.LOST : ListenerCalls.Drop.REVOKED,
                () -> core.toDropBeforeJoin(lost), dropped -> {
                    core.dropped(dropped);
                    afterPrepare(epoch, atStart);
                });
    }

    private void afterPrepare(long epoch, Generation atStart) {
        switch (core.afterPrepare(epoch, atStart, coordinatorChannel() != null)) {
            case NOTHING -> { }
            case PREPARE_AGAIN -> prepareJoin(); // the generation was reset while the listener ran: the rest is lost
            case PROCEED -> proceed(); // the coordinator moved while the listener ran: joins once it is found again
            case SEND_JOIN -> sendJoin();
        }
    }

    private void sendJoin() {
        if (pattern != null) {
            Set<String> matched = match(io.cluster());
            if (!matched.equals(core.subscribed())) {
                core.subscribe(matched);
                updateInterest();
            }
        }
        core.joinSent(System.nanoTime());
        heartbeat.stop(); // the broker holds the JoinGroup; heartbeats resume with the new generation
        long epoch = core.flowEpoch();
        CoordinatorChannel ch = coordinatorChannel();
        Generation current = core.generation();
        JoinGroupRequest request = new JoinGroupRequest(config.groupId(), config.sessionTimeoutMs(),
                config.maxPollIntervalMs(), current.memberId(), config.groupInstanceId(), config.protocolType(),
                joinProtocols(current), truncate(core.rejoinReason()));
        long timeoutMs = Math.max(config.requestTimeoutMs(), config.maxPollIntervalMs() + JOIN_GROUP_TIMEOUT_LAPSE_MS);
        log.debug("{}sending JoinGroup (member id '{}', generation {}, topics {}, owned {})", logPrefix,
                current.memberId(), current.generationId(), core.joinedTopics(), core.owned());
        joinCall = ch.send(request, timeoutMs).subscribe(
                r -> onLoop(() -> {
                    if (epoch == core.flowEpoch()) {
                        onJoinResponse(ch, r);
                    }
                }),
                e -> onLoop(() -> {
                    if (epoch == core.flowEpoch()) {
                        onJoinOrSyncFailure(ch, "JoinGroup", e);
                    }
                }));
    }

    /** One JoinGroup protocol per assignor, in preference order, each with this member's subscription (v3). */
    private List<JoinGroupRequestProtocol> joinProtocols(Generation current) {
        List<TopicPartition> ownedSorted = new ArrayList<>(core.owned());
        ownedSorted.sort(PARTITION_ORDER);
        List<JoinGroupRequestProtocol> protocols = new ArrayList<>();
        for (PartitionAssignor assignor : config.assignors()) {
            protocols.add(new JoinGroupRequestProtocol(assignor.name(), ConsumerProtocolCodec.subscriptionMetadata(
                    assignor, core.joinedTopics(), ownedSorted, current.generationId(), config.rackOrNull())));
        }
        return protocols;
    }

    private void onJoinResponse(CoordinatorChannel ch, JoinGroupResponse response) {
        joinCall = null;
        Errors error = Errors.forCode(response.errorCode());
        switch (ClassicAnswers.join(error)) {
            case JOINED -> {
                metrics().joined(core.stepNanos(System.nanoTime()));
                if (response.protocolType() != null && !response.protocolType().equals(config.protocolType())) {
                    fail(protocolError(Errors.INCONSISTENT_GROUP_PROTOCOL, "JoinGroup answered protocol type "
                            + response.protocolType() + ", expected " + config.protocolType()));
                    return;
                }
                core.joined(new Generation(response.generationId(), response.memberId(), response.protocolName()));
                log.info("{}joined generation {} as {} ({}, assignor {})", logPrefix, response.generationId(),
                        response.memberId(), response.isLeader() ? "leader" : "follower", response.protocolName());
                heartbeat.joined(); // the session of the new generation starts now (SYNCING holds it)
                heartbeat.ensure();
                if (response.isLeader()) {
                    onLeaderElected(response);
                } else {
                    resetLeader();
                    sendSync(List.of());
                }
            }
            case JOIN_AGAIN -> {
                if (error == Errors.MEMBER_ID_REQUIRED) {
                    // KIP-394: the broker handed out a member id; join again with it right away.
                    core.memberIdGiven(response.memberId());
                }
                sendJoin();
            }
            case RESET_AND_PREPARE -> {
                resetGeneration(error == Errors.UNKNOWN_MEMBER_ID, error + " from JoinGroup");
                core.rejoinReason(error + " from JoinGroup");
                prepareJoin();
            }
            case COORDINATOR_LOST -> coordinatorLost(ch, error + " from JoinGroup");
            case FENCED -> fail(fenced("JoinGroup"));
            case FATAL -> fail(protocolError(error, "JoinGroup"));
            case RETRY_LATER -> retryJoinLater(error.toString()); // COORDINATOR_LOAD_IN_PROGRESS among others
        }
    }

    private void retryJoinLater(String why) {
        metrics().rebalanceFailed();
        long delay = backoff.delayMs(core.joinRetryScheduled());
        log.info("{}JoinGroup failed ({}); retrying in {} ms", logPrefix, why, delay);
        long epoch = core.flowEpoch();
        joinCall = schedule(delay, () -> {
            if (epoch == core.flowEpoch() && !inactive()) {
                if (coordinatorChannel() == null) {
                    awaitCoordinator();
                } else {
                    sendJoin();
                }
            }
        });
    }

    private void onJoinOrSyncFailure(CoordinatorChannel ch, String what, Throwable e) {
        joinCall = null;
        if (e instanceof UnsupportedVersionException) {
            fail(unsupported(e));
        } else if (e instanceof NetworkException) {
            metrics().rebalanceFailed();
            coordinatorLost(ch, what + " failed: " + e.getMessage());
        } else {
            retryJoinLater(e.toString());
        }
    }

    private void onLeaderElected(JoinGroupResponse response) {
        Map<String, Subscription> subscriptions;
        try {
            subscriptions = leaderAssignment.elect(response.members(), core.subscribed());
        } catch (KafkaFluxException e) {
            fail(e);
            return;
        }
        updateInterest();
        boolean skip = response.skipAssignment();
        PartitionAssignor assignor = assignor(response.protocolName());
        if (assignor == null && !skip) {
            fail(new KafkaFluxException("the coordinator chose assignor '" + response.protocolName()
                    + "', which this member does not have"));
            return;
        }
        long epoch = core.flowEpoch();
        joinCall = io.refreshMetadata()
                .onErrorResume(e -> {
                    log.warn("{}metadata refresh before assigning failed ({}); assigning with the last snapshot",
                            logPrefix, e.toString());
                    return Mono.fromSupplier(io::cluster);
                })
                .subscribe(cluster -> onLoop(() -> {
                    if (epoch != core.flowEpoch()) {
                        return;
                    }
                    if (skip) {
                        // KIP-814: a static leader that rejoined must not reassign; it keeps watching the group's
                        // topics, with counts from fresh metadata: a topic its snapshot did not know yet would
                        // otherwise look new and make it rebalance the group for nothing.
                        joinCall = null;
                        log.info("{}leader of generation {} with skipAssignment: not reassigning", logPrefix,
                                response.generationId());
                        lastCheckedCluster = cluster;
                        leaderAssignment.skipAssignment(cluster);
                        sendSync(List.of());
                    } else {
                        assignAndSync(assignor, subscriptions, cluster);
                    }
                }));
    }

    private void assignAndSync(PartitionAssignor assignor, Map<String, Subscription> subscriptions, Cluster cluster) {
        joinCall = null;
        lastCheckedCluster = cluster;
        if (!failOnTopicErrors(cluster)) {
            return;
        }
        List<SyncGroupRequestAssignment> assignments;
        try {
            assignments = leaderAssignment.assign(assignor, subscriptions, cluster);
        } catch (KafkaFluxException e) {
            fail(e);
            return;
        }
        sendSync(assignments);
        watchMissingTopics(cluster);
    }

    private void sendSync(List<SyncGroupRequestAssignment> assignments) {
        long epoch = core.flowEpoch();
        CoordinatorChannel ch = coordinatorChannel();
        Generation sent = core.generation();
        SyncGroupRequest request = new SyncGroupRequest(config.groupId(), sent.generationId(), sent.memberId(),
                config.groupInstanceId(), config.protocolType(), sent.protocolName(), assignments);
        core.syncSent(System.nanoTime());
        joinCall = ch.send(request, config.requestTimeoutMs()).subscribe(
                r -> onLoop(() -> {
                    if (epoch == core.flowEpoch()) {
                        onSyncResponse(ch, sent, r);
                    }
                }),
                e -> onLoop(() -> {
                    if (epoch == core.flowEpoch()) {
                        onJoinOrSyncFailure(ch, "SyncGroup", e);
                    }
                }));
    }

    private void onSyncResponse(CoordinatorChannel ch, Generation sent, SyncGroupResponse response) {
        joinCall = null;
        Errors error = Errors.forCode(response.errorCode());
        if (error == Errors.NONE) {
            metrics().synced(core.stepNanos(System.nanoTime()));
            if (response.protocolType() != null && !response.protocolType().equals(config.protocolType())) {
                fail(protocolError(Errors.INCONSISTENT_GROUP_PROTOCOL, "SyncGroup answered protocol type "
                        + response.protocolType() + ", expected " + config.protocolType()));
                return;
            }
        }
        switch (ClassicAnswers.sync(error, sent, core.generation())) {
            case ASSIGNED -> {
                if (response.protocolName() != null && !response.protocolName().equals(sent.protocolName())) {
                    fail(protocolError(Errors.INCONSISTENT_GROUP_PROTOCOL, "SyncGroup answered protocol "
                            + response.protocolName() + ", expected " + sent.protocolName()));
                    return;
                }
                Assignment assignment;
                try {
                    assignment = ConsumerProtocolCodec.assignment(response.assignment());
                } catch (RuntimeException e) {
                    fail(new KafkaFluxException("the assignment from SyncGroup cannot be read: " + e.getMessage(), e));
                    return;
                }
                onAssignment(sent, assignment);
            }
            case GENERATION_CHANGED -> {
                // A heartbeat reset the generation meanwhile: this assignment is stale, join again.
                core.rejoinReason("the generation was reset during SyncGroup");
                prepareJoin();
            }
            case PREPARE_JOIN -> {
                core.rejoinReason("the group began another rebalance");
                prepareJoin();
            }
            case RESET_AND_PREPARE -> {
                if (core.generation() == sent) {
                    // ILLEGAL_GENERATION keeps the member id: it may still be valid.
                    resetGeneration(error == Errors.UNKNOWN_MEMBER_ID, error + " from SyncGroup");
                }
                core.rejoinReason(error + " from SyncGroup");
                prepareJoin();
            }
            case COORDINATOR_LOST -> coordinatorLost(ch, error + " from SyncGroup");
            case FENCED -> fail(fenced("SyncGroup"));
            case FATAL -> fail(protocolError(error, "SyncGroup"));
            case RETRY_LATER -> retryJoinLater(error + " from SyncGroup");
        }
    }

    /**
     * Applies a SyncGroup assignment: revoke what was owned but is no longer assigned (cooperative: then rejoin, so
     * those partitions can go to their new owner in a second round, KIP-429), take the new assignment, tell the
     * listener what was added. STABLE from here on; heartbeats continue during the listener calls.
     */
    private void onAssignment(Generation sent, Assignment assignment) {
        Set<TopicPartition> assigned = new HashSet<>(assignment.partitions());
        List<TopicPartition> assignedList = new ArrayList<>(assigned);
        assignedList.sort(PARTITION_ORDER);
        long took = core.settled(System.nanoTime());
        if (took >= 0) {
            metrics().rebalanced(took);
        }
        log.info("{}generation {}: assigned {}", logPrefix, sent.generationId(), assignedList);
        Set<String> unexpected = core.unexpectedTopics(assigned);
        if (!unexpected.isEmpty()) {
            // The subscription changed since the JoinGroup (or the leader is confused): do not take partitions of
            // topics this member does not want; join again with the current subscription.
            log.warn("{}assignment has topics {} outside the subscription {}; rejoining", logPrefix, unexpected,
                    core.subscribed());
            core.requestRejoin("the assignment does not match the subscription");
            proceed();
            return;
        }
        PartitionAssignor assignor = assignor(sent.protocolName());
        if (assignor != null) {
            try {
                assignor.onAssignment(assignment, sent.generationId());
            } catch (RuntimeException e) {
                log.warn("{}assignor '{}' failed in onAssignment", logPrefix, assignor.name(), e);
            }
        }
        long epoch = core.flowEpoch();
        Set<TopicPartition> revoked = core.revokedBy(assigned);
        heartbeat.ensure();
        listenerCalls.drop(ListenerCalls.Drop.REVOKED, () -> revoked, dropped -> {
            core.dropped(dropped);
            if (epoch != core.flowEpoch()) {
                return; // left, poll timeout or closed meanwhile: the new assignment is not taken
            }
            Set<TopicPartition> added = core.take(assigned);
            Set<TopicPartition> whole = core.owned();
            listenerCalls.assigned(added, whole, () -> {
                if (epoch == core.flowEpoch()) {
                    proceed();
                }
            });
        });
    }

    // ------------------------------------------------------------------------------------------------ leave

    private void doLeave(String reason, MonoSink<Void> sink) {
        ClassicMembership.Leave how = core.leave();
        if (how == ClassicMembership.Leave.DONE) {
            sink.success();
            return;
        }
        awaitLeave(sink);
        if (how == ClassicMembership.Leave.JOIN_WAITERS) {
            return;
        }
        abandonStep();
        heartbeat.stop();
        boolean lost = how == ClassicMembership.Leave.LOSE;
        listenerCalls.drop(lost ? ListenerCalls.Drop.LOST : ListenerCalls.Drop.REVOKED, core::owned, dropped -> {
            core.dropped(dropped);
            Generation g = core.generation();
            CoordinatorChannel ch = coordinatorChannel();
            Runnable done = () -> {
                core.left();
                resetLeader();
                leaveEnded();
            };
            if (config.groupInstanceId() != null || ch == null || g.memberId().isEmpty() || terminal()) {
                log.info("{}leaving the group without LeaveGroup ({})", logPrefix, config.groupInstanceId() != null
                        ? "static member: the coordinator keeps its partitions until session.timeout.ms"
                        : "no coordinator or member id");
                done.run();
                return;
            }
            sendLeaveGroup(ch, g, reason).subscribe(null, null, () -> onLoop(done));
        });
    }

    /** LeaveGroup for {@code g}; completes (never fails) when answered or failed. */
    private Mono<Void> sendLeaveGroup(CoordinatorChannel ch, Generation g, String reason) {
        log.info("{}member {} sends LeaveGroup: {}", logPrefix, g.memberId(), reason);
        return bestEffortLeave(ch.send(LeaveGroupRequest.of(config.groupId(), g.memberId(), null, truncate(reason)),
                config.requestTimeoutMs()), "LeaveGroup", LeaveGroupResponse::errorCode);
    }

    // ------------------------------------------------------------------------------------------------ metadata

    private void subscriptionMaybeChanged() {
        if (core.subscriptionChanged()) {
            requestRejoin("the subscription changed");
        }
    }

    private void updateInterest() {
        Set<String> topics = new TreeSet<>(core.subscribed());
        topics.addAll(leaderAssignment.groupSubscription());
        io.interest(topics, pattern != null);
    }

    private void refreshAndCheckMetadata() {
        io.refreshMetadata().subscribe(c -> onLoop(() -> checkMetadata(c)),
                e -> log.debug("{}metadata refresh failed: {}", logPrefix, e.toString()));
    }

    private void checkMetadataIfChanged() {
        Cluster c = io.cluster();
        if (c != lastCheckedCluster) {
            checkMetadata(c);
        }
    }

    /**
     * On each new metadata snapshot: a pattern subscription re-matches (a change makes this member rejoin), and the
     * leader compares the partition counts of the group's topics with those it assigned (a change, e.g. added
     * partitions or a topic created or deleted, makes it rejoin, which rebalances the group).
     */
    private void checkMetadata(Cluster cluster) {
        if (terminal() || cluster == null) {
            return;
        }
        lastCheckedCluster = cluster;
        if (pattern != null) {
            Set<String> matched = match(cluster);
            if (!matched.equals(core.subscribed())) {
                log.info("{}pattern {} now matches {}", logPrefix, pattern, matched);
                core.subscribe(matched);
                updateInterest();
            }
        }
        subscriptionMaybeChanged();
        // a member on its way out (leaving, poll expired) has nothing left to fail
        if (!inactive() && !failOnTopicErrors(cluster)) {
            return;
        }
        String change = inactive() ? null : leaderAssignment.changeSinceAssignment(cluster);
        if (change != null) {
            requestRejoin(change);
        }
        watchMissingTopics(cluster);
    }

    /** @return false when the member failed ({@link SubscribedTopicErrors}) */
    private boolean failOnTopicErrors(Cluster cluster) {
        return pattern != null || SubscribedTopicErrors.pass(core.subscribed(), cluster, config.groupId(), this::fail);
    }

    /**
     * While a topic this member or (as leader) the group subscribed to by name is missing from metadata, refreshes
     * again after {@code retry.backoff.ms}, growing to {@code retry.backoff.max.ms}, instead of waiting up to
     * {@code metadata.max.age.ms}: the official consumer asks for metadata again whenever a topic it needs is
     * unknown, so a topic created after subscribing is consumed within moments. The leader then sees the new
     * partitions and rebalances ({@link #checkMetadata}).
     */
    private void watchMissingTopics(Cluster cluster) {
        if (pattern != null || inactive() || missingTopics.pending()) {
            return;
        }
        Set<String> wanted = new TreeSet<>(core.subscribed());
        wanted.addAll(leaderAssignment.groupSubscription());
        Set<String> missing = new TreeSet<>();
        for (String topic : wanted) {
            TopicInfo t = cluster.topic(topic);
            if (t == null || t.partitions().isEmpty() || Errors.forCode(t.errorCode()).retriable()) {
                missing.add(topic);
            }
        }
        if (missing.isEmpty()) {
            missingTopics.satisfied();
            return;
        }
        long delay = missingTopics.request();
        // WARN on the 2nd, 8th, 32nd, ... look: repeated with growing intervals while the topics stay missing. Not on
        // the 1st: a member's first snapshot may predate its subscription (a follower that just joined saw "missing"
        // topics that existed); the 2nd comes from the refresh asked for here, which names them.
        int n = missingTopics.refreshes();
        if (Integer.bitCount(n) == 1 && Integer.numberOfTrailingZeros(n) % 2 == 1) {
            log.warn("{}subscribed topics {} do not exist (not in metadata): nothing is assigned from them until they"
                    + " are created; is the name right? Asking again in {} ms", logPrefix, missing, delay);
        } else {
            log.debug("{}topics {} are not in metadata yet; refreshing in {} ms", logPrefix, missing, delay);
        }
    }

    private Set<String> match(Cluster cluster) {
        Set<String> matched = new TreeSet<>();
        if (pattern == null) {
            return matched;
        }
        for (TopicInfo t : cluster.topics().values()) {
            if (t.errorCode() == 0 && !(config.excludeInternalTopics() && t.internal())
                    && pattern.matcher(t.name()).matches()) {
                matched.add(t.name());
            }
        }
        return matched;
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private PartitionAssignor assignor(String name) {
        for (PartitionAssignor a : config.assignors()) {
            if (a.name().equals(name)) {
                return a;
            }
        }
        return null;
    }

    private static String truncate(String reason) {
        if (reason == null) {
            return null;
        }
        return reason.length() <= MAX_REASON_LENGTH ? reason : reason.substring(0, MAX_REASON_LENGTH);
    }

    private FencedInstanceIdException fenced(String request) {
        return new FencedInstanceIdException(config.groupInstanceId(), request + " for group " + config.groupId()
                + " answered FENCED_INSTANCE_ID: another consumer joined with group.instance.id '"
                + config.groupInstanceId() + "'");
    }

    /** The network layer's error in the public type, which is what {@code receive()} promises to end with. */
    private static io.kflux.UnsupportedVersionException unsupported(Throwable e) {
        return new io.kflux.UnsupportedVersionException(e.getMessage(), e);
    }

    private KafkaProtocolException protocolError(Errors error, String what) {
        return BrokerErrors.of(error.code(), what + " (group " + config.groupId() + ")", null, config.groupId());
    }

    @Override
    public String toString() {
        return "ClassicGroupMember[" + config.groupId() + ", " + state() + ", generation " + generationId() + ", member '"
                + memberId() + "']";
    }
}
