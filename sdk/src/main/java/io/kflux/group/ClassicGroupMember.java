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
import io.kflux.group.assignor.RebalanceProtocol;
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
 * <p><b>Why one class past 500 lines.</b> What is left here is the member's state machine ({@link MemberState}, which
 * every step checks and moves through checked transitions) and the JoinGroup/SyncGroup flow, whose every answer
 * decides the next state from the generation, the flow epoch and the owned partitions: split apart, each half would
 * read and write the other's fields. The separable concerns live beside it: {@link CoordinatorManager} (the
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
    private final RebalanceProtocol protocol;

    // Published for other threads; written only on the loop.
    private volatile Generation generation = Generation.NONE;
    private volatile Set<TopicPartition> owned = Set.of();
    private volatile boolean everJoined;

    // Loop-only state.
    private boolean needsJoin;
    private String rejoinReason = "";
    /** System.nanoTime() when the rebalance under way began (its first JoinGroup), 0 when none is. */
    private long rebalanceStartedNanos;
    /** System.nanoTime() when the JoinGroup or SyncGroup under way was sent. */
    private long stepSentNanos;
    /** Bumped whenever a rebalance step is abandoned: answers and timers of an older epoch are ignored. */
    private long flowEpoch;
    private Pattern pattern;
    private Set<String> subscribedTopics = new TreeSet<>();
    private Set<String> joinedTopics = Set.of();
    private final LeaderAssignment leaderAssignment;
    private Cluster lastCheckedCluster;

    private final CoordinatorLink link;

    private final ClassicHeartbeat heartbeat;

    /** The JoinGroup, SyncGroup, leader metadata refresh or retry timer of the current rebalance step. */
    private Disposable joinCall;
    /** Whether {@link #joinCall} is a JoinGroup out (JOINING), not its retry timer. */
    private boolean joinInFlight;
    private int joinFailures;

    private final ListenerCalls listenerCalls;
    private final List<MonoSink<Void>> leaveWaiters = new ArrayList<>();
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
        this.protocol = Assignors.commonProtocol(config.assignors());
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
            subscribedTopics = copy;
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
            subscribedTopics = match(io.cluster());
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
            if (started() || terminal()) {
                return;
            }
            needsJoin = true;
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
     * {@code max.poll.interval.ms} expired: records were emitted but downstream has not asked for more for that long.
     * As the official client does, the member leaves the group (LeaveGroup with {@link #POLL_TIMEOUT_REASON}, dynamic
     * members only), drops its generation and member id, and reports every owned partition LOST (the group hands
     * them to others right away, so committing them is no longer possible; the official client reports them lost
     * on its next poll, kflux at once so fetching stops). The member stays STALE until {@link #pollResumed()}.
     */
    @Override
    public void pollTimeoutExpired() {
        onLoop(() -> {
            if (!state().isActive()) {
                return;
            }
            log.warn("{}{} This means downstream did not request more records within max.poll.interval.ms ({} ms) "
                    + "after records were emitted; leaving the group until demand returns.", logPrefix,
                    POLL_TIMEOUT_REASON, config.maxPollIntervalMs());
            Generation g = generation;
            CoordinatorChannel ch = coordinatorChannel();
            if (config.groupInstanceId() == null && ch != null && !g.memberId().isEmpty()) {
                sendLeaveGroup(ch, g, POLL_TIMEOUT_REASON).subscribe();
            }
            abortFlow();
            heartbeat.stop();
            transitionTo(MemberState.STALE);
            generation = Generation.NONE;
            resetLeader();
            needsJoin = true;
            listenerCalls.drop(ListenerCalls.Drop.LOST, () -> owned, this::removeOwned);
        });
    }

    /** Downstream demand returned after {@link #pollTimeoutExpired()}: the member joins the group again. */
    @Override
    public void pollResumed() {
        onLoop(() -> {
            if (state() != MemberState.STALE) {
                return;
            }
            needsJoin = true;
            rejoinReason = "consumer poll resumed";
            activate();
        });
    }

    /** The generation of the last successful JoinGroup, -1 when the member has none; any thread. */
    @Override
    public int generationId() {
        return generation.generationId();
    }

    /** The member id the coordinator gave, {@code ""} when none; any thread. For OffsetCommit. */
    @Override
    public String memberId() {
        return generation.memberId();
    }

    /** {@code group.instance.id} (static membership), for OffsetCommit; empty for a dynamic member. */
    @Override
    public Optional<String> groupInstanceId() {
        return config.instanceId();
    }

    /** True once a JoinGroup succeeded, whatever happened since; any thread. */
    @Override
    public boolean everJoined() {
        return everJoined;
    }

    /** The partitions the member owns now (an immutable snapshot); any thread. */
    @Override
    public Set<TopicPartition> assignment() {
        return owned;
    }

    // ------------------------------------------------------------------------------------------------ the machine

    private boolean started() {
        return state() != MemberState.UNJOINED;
    }

    /** Not taking part in the group: not started, left, out after a poll timeout, leaving, or terminal. */
    private boolean inactive() {
        return !state().isActive();
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
        transitionTo(generation.generationId() >= 0 || !owned.isEmpty() ? MemberState.REDISCOVERING_COORDINATOR
                : MemberState.DISCOVERING_COORDINATOR);
        discover();
    }

    /**
     * Decides the next step when no request of a rebalance step is under way: find the coordinator, (re)join, or be
     * STABLE and heartbeat. Called after every step that ends.
     */
    private void proceed() {
        if (inactive() || state() == MemberState.JOINING || state() == MemberState.SYNCING) {
            return;
        }
        if (coordinatorChannel() == null) {
            awaitCoordinator();
            return;
        }
        if (listenerCalls.busy()) {
            // A listener call of the step under way still runs; a coordinator found meanwhile resumes that step.
            if (state().isDiscovering()) {
                transitionTo(needsJoin || !generation.valid() ? MemberState.REJOINING : MemberState.STABLE);
                heartbeat.ensure();
            }
            return;
        }
        if (needsJoin || !generation.valid()) {
            prepareJoin();
            return;
        }
        transitionTo(MemberState.STABLE);
        heartbeat.ensure();
        checkMetadataIfChanged();
    }

    private void requestRejoin(String reason) {
        if (!needsJoin) {
            log.info("{}rejoining the group: {}", logPrefix, reason);
        }
        needsJoin = true;
        rejoinReason = reason;
        proceed();
    }

    /** Abandons the JoinGroup/SyncGroup step under way (its answer will be ignored). */
    private void abortFlow() {
        flowEpoch++;
        dispose(joinCall);
        joinCall = null;
        joinInFlight = false;
        if (state() == MemberState.JOINING || state() == MemberState.SYNCING) {
            needsJoin = true;
        }
    }

    private void resetGeneration(boolean resetMemberId, String reason) {
        log.info("{}resetting generation{} ({}): {}", logPrefix, resetMemberId ? " and member id" : "", generation,
                reason);
        generation = resetMemberId ? Generation.NONE : new Generation(-1, generation.memberId(), null);
        resetLeader();
        needsJoin = true;
    }

    private void resetLeader() {
        if (leaderAssignment.reset()) {
            updateInterest();
        }
    }

    @Override
    void cleanup() {
        flowEpoch++;
        dispose(joinCall);
        heartbeat.cancel(state() == MemberState.FATAL);
        link.cancel();
        dispose(metadataLoop);
        missingTopics.cancel();
        joinCall = metadataLoop = null;
        listenerCalls.cancel();
        List<MonoSink<Void>> leavers = new ArrayList<>(leaveWaiters);
        leaveWaiters.clear();
        leavers.forEach(MonoSink::success);
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
        if (state() == MemberState.JOINING) {
            // The JoinGroup step ends unanswered. Not a confirmation: the broker may have completed the join and its
            // answer been lost, and then expires the member a session timeout on (issue #15: counted as one, the
            // member emitted that much longer).
            heartbeat.joinUnanswered();
        }
        if (state() == MemberState.JOINING || state() == MemberState.SYNCING) {
            abortFlow();
        }
        if (state().isActive()) {
            awaitCoordinator();
        }
    }

    /**
     * Whether the member holds a session the coordinator times out: a generation, in a state where heartbeats are due
     * (or would be, once the coordinator is found again), or JOINING with it: a broker holding the JoinGroup keeps the
     * member, but one that completed the join and whose answer was lost expires it a session timeout later, and the
     * member cannot tell the two apart (issue #15: a cooperative member emits the partitions it keeps meanwhile).
     */
    boolean sessionHeld() {
        MemberState s = state();
        return generation.valid() && (s == MemberState.STABLE || s == MemberState.SYNCING || s == MemberState.JOINING
                || s == MemberState.REJOINING || s == MemberState.REDISCOVERING_COORDINATOR);
    }

    /**
     * Whether a JoinGroup is out (not waiting for its retry): the broker may hold it for up to the rebalance timeout,
     * keeping the member meanwhile, so the session's grace does not end it ({@link SessionTimer}).
     */
    boolean joinAwaited() {
        return state() == MemberState.JOINING && joinInFlight;
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
                logPrefix, reason, owned);
        link.lose(null, "session expired: " + reason);
        abortFlow();
        resetGeneration(false, "session expired");
        rejoinReason = "the session expired";
        prepareJoin();
    }

    // ------------------------------------------------------------------------------------------------ heartbeats

    /** Whether {@link ClassicHeartbeat} may send now: a coordinator, a generation, and a state that heartbeats. */
    boolean heartbeatAllowed() {
        return coordinatorChannel() != null && generation.valid() && (state() == MemberState.STABLE
                || state() == MemberState.SYNCING || state() == MemberState.REJOINING);
    }

    Generation generation() {
        return generation;
    }

    CoordinatorChannel coordinatorChannel() {
        return link.current();
    }

    /** What a Heartbeat answer (from the current coordinator, for {@code sent}) means for the member. */
    void onHeartbeatAnswer(CoordinatorChannel ch, Generation sent, Errors error, long sentAtMs) {
        switch (error) {
            case NONE -> {
                heartbeat.answered(sentAtMs);
                checkMetadataIfChanged();
            }
            case REBALANCE_IN_PROGRESS -> {
                heartbeat.answered(sentAtMs);
                // Heartbeats go on during a rebalance, whose answers all say so: only a STABLE member must act.
                if (state() == MemberState.STABLE) {
                    requestRejoin("the group is rebalancing");
                }
            }
            case ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID -> {
                // While a JoinGroup is under way its answer decides; a late heartbeat answer must not reset it.
                if (sent == generation && state() != MemberState.JOINING) {
                    resetGeneration(error == Errors.UNKNOWN_MEMBER_ID, error + " from Heartbeat");
                    requestRejoin(error + " from Heartbeat");
                }
                // after the reset: it does not end holding back records of a session in doubt
                heartbeat.answered(sentAtMs);
            }
            case FENCED_INSTANCE_ID -> {
                if (sent == generation) {
                    fail(fenced("Heartbeat"));
                }
            }
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> coordinatorLost(ch, error + " from Heartbeat");
            case GROUP_AUTHORIZATION_FAILED -> fail(protocolError(error, "Heartbeat"));
            default -> {
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
        transitionTo(MemberState.REJOINING);
        long epoch = ++flowEpoch;
        Generation atStart = generation;
        boolean lost = !atStart.valid();
        heartbeat.ensure();
        listenerCalls.drop(lost ? ListenerCalls.Drop.LOST : ListenerCalls.Drop.REVOKED, () -> {
            Set<TopicPartition> current = owned;
            if (lost || protocol == RebalanceProtocol.EAGER) {
                return current;
            }
            Set<TopicPartition> unsubscribed = new HashSet<>();
            for (TopicPartition tp : current) {
                if (!subscribedTopics.contains(tp.topic())) {
                    unsubscribed.add(tp);
                }
            }
            return unsubscribed;
        }, dropped -> {
            removeOwned(dropped);
            afterPrepare(epoch, atStart);
        });
    }

    private void afterPrepare(long epoch, Generation atStart) {
        if (epoch != flowEpoch || inactive()) {
            return;
        }
        if (generation != atStart && !generation.valid() && !owned.isEmpty()) {
            prepareJoin(); // the generation was reset while the listener ran: what is still owned is lost
            return;
        }
        if (state() != MemberState.REJOINING || coordinatorChannel() == null) {
            // The coordinator moved while the listener ran: the join is sent once it is found again (proceed).
            needsJoin = true;
            proceed();
            return;
        }
        sendJoin();
    }

    private void sendJoin() {
        transitionTo(MemberState.JOINING);
        joinInFlight = true;
        needsJoin = false;
        heartbeat.stop(); // the broker holds the JoinGroup; heartbeats resume with the new generation
        if (pattern != null) {
            Set<String> matched = match(io.cluster());
            if (!matched.equals(subscribedTopics)) {
                subscribedTopics = matched;
                updateInterest();
            }
        }
        long epoch = flowEpoch;
        CoordinatorChannel ch = coordinatorChannel();
        Generation current = generation;
        joinedTopics = Set.copyOf(subscribedTopics);
        JoinGroupRequest request = new JoinGroupRequest(config.groupId(), config.sessionTimeoutMs(),
                config.maxPollIntervalMs(), current.memberId(), config.groupInstanceId(), config.protocolType(),
                joinProtocols(current), truncate(rejoinReason));
        long timeoutMs = Math.max(config.requestTimeoutMs(), config.maxPollIntervalMs() + JOIN_GROUP_TIMEOUT_LAPSE_MS);
        log.debug("{}sending JoinGroup (member id '{}', generation {}, topics {}, owned {})", logPrefix,
                current.memberId(), current.generationId(), joinedTopics, owned);
        stepSentNanos = System.nanoTime();
        if (rebalanceStartedNanos == 0L) {
            rebalanceStartedNanos = stepSentNanos;
        }
        joinCall = ch.send(request, timeoutMs).subscribe(
                r -> onLoop(() -> {
                    if (epoch == flowEpoch) {
                        onJoinResponse(ch, r);
                    }
                }),
                e -> onLoop(() -> {
                    if (epoch == flowEpoch) {
                        onJoinOrSyncFailure(ch, "JoinGroup", e);
                    }
                }));
    }

    /** One JoinGroup protocol per assignor, in preference order, each with this member's subscription (v3). */
    private List<JoinGroupRequestProtocol> joinProtocols(Generation current) {
        List<TopicPartition> ownedSorted = new ArrayList<>(owned);
        ownedSorted.sort(PARTITION_ORDER);
        List<JoinGroupRequestProtocol> protocols = new ArrayList<>();
        for (PartitionAssignor assignor : config.assignors()) {
            protocols.add(new JoinGroupRequestProtocol(assignor.name(), ConsumerProtocolCodec.subscriptionMetadata(
                    assignor, joinedTopics, ownedSorted, current.generationId(), config.rackOrNull())));
        }
        return protocols;
    }

    private void onJoinResponse(CoordinatorChannel ch, JoinGroupResponse response) {
        joinCall = null;
        joinInFlight = false;
        Errors error = Errors.forCode(response.errorCode());
        switch (error) {
            case NONE -> {
                metrics().joined(System.nanoTime() - stepSentNanos);
                if (response.protocolType() != null && !response.protocolType().equals(config.protocolType())) {
                    fail(protocolError(Errors.INCONSISTENT_GROUP_PROTOCOL, "JoinGroup answered protocol type "
                            + response.protocolType() + ", expected " + config.protocolType()));
                    return;
                }
                joinFailures = 0;
                everJoined = true;
                generation = new Generation(response.generationId(), response.memberId(), response.protocolName());
                log.info("{}joined generation {} as {} ({}, assignor {})", logPrefix, response.generationId(),
                        response.memberId(), response.isLeader() ? "leader" : "follower", response.protocolName());
                transitionTo(MemberState.SYNCING);
                heartbeat.joined(); // the session of the new generation starts now (SYNCING holds it)
                heartbeat.ensure();
                if (response.isLeader()) {
                    onLeaderElected(response);
                } else {
                    resetLeader();
                    sendSync(List.of());
                }
            }
            case MEMBER_ID_REQUIRED -> {
                // KIP-394: the broker handed out a member id; join again with it right away.
                generation = new Generation(-1, response.memberId(), null);
                sendJoin();
            }
            case UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION -> {
                resetGeneration(error == Errors.UNKNOWN_MEMBER_ID, error + " from JoinGroup");
                rejoinReason = error + " from JoinGroup";
                prepareJoin();
            }
            case REBALANCE_IN_PROGRESS -> sendJoin();
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> coordinatorLost(ch, error + " from JoinGroup");
            case FENCED_INSTANCE_ID -> fail(fenced("JoinGroup"));
            case INCONSISTENT_GROUP_PROTOCOL, INVALID_SESSION_TIMEOUT, INVALID_GROUP_ID, GROUP_AUTHORIZATION_FAILED,
                 GROUP_MAX_SIZE_REACHED, UNSUPPORTED_VERSION -> fail(protocolError(error, "JoinGroup"));
            default -> {
                if (error.retriable()) {
                    retryJoinLater(error.toString()); // COORDINATOR_LOAD_IN_PROGRESS among others
                } else {
                    fail(protocolError(error, "JoinGroup"));
                }
            }
        }
    }

    private void retryJoinLater(String why) {
        metrics().rebalanceFailed();
        long delay = backoff.delayMs(++joinFailures);
        log.info("{}JoinGroup failed ({}); retrying in {} ms", logPrefix, why, delay);
        long epoch = flowEpoch;
        transitionTo(MemberState.JOINING);
        joinInFlight = false;
        joinCall = schedule(delay, () -> {
            if (epoch == flowEpoch && !inactive()) {
                if (coordinatorChannel() == null) {
                    needsJoin = true;
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
            subscriptions = leaderAssignment.elect(response.members(), subscribedTopics);
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
        long epoch = flowEpoch;
        joinCall = io.refreshMetadata()
                .onErrorResume(e -> {
                    log.warn("{}metadata refresh before assigning failed ({}); assigning with the last snapshot",
                            logPrefix, e.toString());
                    return Mono.fromSupplier(io::cluster);
                })
                .subscribe(cluster -> onLoop(() -> {
                    if (epoch != flowEpoch) {
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
        long epoch = flowEpoch;
        CoordinatorChannel ch = coordinatorChannel();
        Generation sent = generation;
        SyncGroupRequest request = new SyncGroupRequest(config.groupId(), sent.generationId(), sent.memberId(),
                config.groupInstanceId(), config.protocolType(), sent.protocolName(), assignments);
        stepSentNanos = System.nanoTime();
        joinCall = ch.send(request, config.requestTimeoutMs()).subscribe(
                r -> onLoop(() -> {
                    if (epoch == flowEpoch) {
                        onSyncResponse(ch, sent, r);
                    }
                }),
                e -> onLoop(() -> {
                    if (epoch == flowEpoch) {
                        onJoinOrSyncFailure(ch, "SyncGroup", e);
                    }
                }));
    }

    private void onSyncResponse(CoordinatorChannel ch, Generation sent, SyncGroupResponse response) {
        joinCall = null;
        Errors error = Errors.forCode(response.errorCode());
        switch (error) {
            case NONE -> {
                metrics().synced(System.nanoTime() - stepSentNanos);
                if (response.protocolType() != null && !response.protocolType().equals(config.protocolType())) {
                    fail(protocolError(Errors.INCONSISTENT_GROUP_PROTOCOL, "SyncGroup answered protocol type "
                            + response.protocolType() + ", expected " + config.protocolType()));
                    return;
                }
                if (generation != sent) {
                    // A heartbeat reset the generation meanwhile: this assignment is stale, join again.
                    rejoinReason = "the generation was reset during SyncGroup";
                    prepareJoin();
                    return;
                }
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
            case REBALANCE_IN_PROGRESS -> {
                rejoinReason = "the group began another rebalance";
                prepareJoin();
            }
            case UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION -> {
                if (generation == sent) {
                    // ILLEGAL_GENERATION keeps the member id: it may still be valid.
                    resetGeneration(error == Errors.UNKNOWN_MEMBER_ID, error + " from SyncGroup");
                }
                rejoinReason = error + " from SyncGroup";
                prepareJoin();
            }
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> coordinatorLost(ch, error + " from SyncGroup");
            case FENCED_INSTANCE_ID -> fail(fenced("SyncGroup"));
            default -> {
                if (error.retriable()) {
                    retryJoinLater(error + " from SyncGroup");
                } else {
                    fail(protocolError(error, "SyncGroup"));
                }
            }
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
        joinFailures = 0;
        if (rebalanceStartedNanos != 0L) {
            metrics().rebalanced(System.nanoTime() - rebalanceStartedNanos);
            rebalanceStartedNanos = 0L;
        }
        transitionTo(MemberState.STABLE);
        log.info("{}generation {}: assigned {}", logPrefix, sent.generationId(), assignedList);
        Set<String> unexpected = new TreeSet<>();
        assigned.forEach(tp -> {
            if (!subscribedTopics.contains(tp.topic())) {
                unexpected.add(tp.topic());
            }
        });
        if (!unexpected.isEmpty()) {
            // The subscription changed since the JoinGroup (or the leader is confused): do not take partitions of
            // topics this member does not want; join again with the current subscription.
            log.warn("{}assignment has topics {} outside the subscription {}; rejoining", logPrefix, unexpected,
                    subscribedTopics);
            needsJoin = true;
            rejoinReason = "the assignment does not match the subscription";
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
        long epoch = flowEpoch;
        Set<TopicPartition> revoked = new HashSet<>(owned);
        revoked.removeAll(assigned);
        if (!revoked.isEmpty() && protocol == RebalanceProtocol.COOPERATIVE) {
            needsJoin = true;
            rejoinReason = "partitions were revoked; rejoining so they can be reassigned";
        }
        heartbeat.ensure();
        listenerCalls.drop(ListenerCalls.Drop.REVOKED, () -> revoked, dropped -> {
            removeOwned(dropped);
            if (epoch != flowEpoch) {
                return; // left, poll timeout or closed meanwhile: the new assignment is not taken
            }
            Set<TopicPartition> added = new HashSet<>(assigned);
            added.removeAll(owned);
            owned = Set.copyOf(assigned);
            Set<TopicPartition> whole = owned;
            listenerCalls.assigned(added, whole, () -> {
                if (epoch == flowEpoch) {
                    proceed();
                }
            });
        });
    }

    // ------------------------------------------------------------------------------------------------ leave

    private void doLeave(String reason, MonoSink<Void> sink) {
        if (terminal() || !started() || state() == MemberState.LEFT) {
            sink.success();
            return;
        }
        leaveWaiters.add(sink);
        if (state() == MemberState.LEAVING) {
            return;
        }
        boolean lost = !generation.valid() || state() != MemberState.STABLE;
        abortFlow();
        transitionTo(MemberState.LEAVING);
        heartbeat.stop();
        needsJoin = false;
        listenerCalls.drop(lost ? ListenerCalls.Drop.LOST : ListenerCalls.Drop.REVOKED, () -> owned, dropped -> {
            removeOwned(dropped);
            Generation g = generation;
            CoordinatorChannel ch = coordinatorChannel();
            Runnable done = () -> {
                generation = Generation.NONE;
                resetLeader();
                if (state() == MemberState.LEAVING) {
                    transitionTo(MemberState.LEFT);
                }
                List<MonoSink<Void>> waiters = new ArrayList<>(leaveWaiters);
                leaveWaiters.clear();
                waiters.forEach(MonoSink::success);
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
        return ch.send(LeaveGroupRequest.of(config.groupId(), g.memberId(), null, truncate(reason)),
                        config.requestTimeoutMs())
                .doOnNext(r -> {
                    if (r.errorCode() != 0) {
                        log.warn("{}LeaveGroup answered {}", logPrefix, Errors.nameOf(r.errorCode()));
                    }
                })
                .onErrorResume(e -> {
                    log.warn("{}LeaveGroup failed: {}", logPrefix, e.toString());
                    return Mono.empty();
                })
                .then();
    }

    // ------------------------------------------------------------------------------------------------ ownership

    private void removeOwned(Set<TopicPartition> dropped) {
        if (dropped.isEmpty()) {
            return;
        }
        Set<TopicPartition> next = new HashSet<>(owned);
        next.removeAll(dropped);
        owned = Set.copyOf(next);
    }

    // ------------------------------------------------------------------------------------------------ metadata

    private void subscriptionMaybeChanged() {
        if (state().isActive() && state() != MemberState.DISCOVERING_COORDINATOR
                && !subscribedTopics.equals(joinedTopics)) {
            requestRejoin("the subscription changed");
        }
    }

    private void updateInterest() {
        Set<String> topics = new TreeSet<>(subscribedTopics);
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
            if (!matched.equals(subscribedTopics)) {
                log.info("{}pattern {} now matches {}", logPrefix, pattern, matched);
                subscribedTopics = matched;
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
        return pattern != null || SubscribedTopicErrors.pass(subscribedTopics, cluster, config.groupId(), this::fail);
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
        Set<String> wanted = new TreeSet<>(subscribedTopics);
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
