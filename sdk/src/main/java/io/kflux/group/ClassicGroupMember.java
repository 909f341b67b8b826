package io.kflux.group;

import io.kflux.util.Backoff;

import io.kflux.FencedInstanceIdException;
import io.kflux.InvalidTopicException;
import io.kflux.KafkaFluxException;
import io.kflux.KafkaProtocolException;
import io.kflux.TopicPartition;
import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import io.kflux.group.assignor.Assignment;
import io.kflux.group.assignor.ClusterTopics;
import io.kflux.group.assignor.GroupAssignment;
import io.kflux.group.assignor.PartitionAssignor;
import io.kflux.group.assignor.Assignors;
import io.kflux.group.assignor.ConsumerProtocolCodec;
import io.kflux.group.assignor.RebalanceProtocol;
import io.kflux.group.assignor.Subscription;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.TopicInfo;
import io.kflux.network.NetworkException;
import io.kflux.network.NodeConnections;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.HeartbeatRequest;
import io.kflux.protocol.message.HeartbeatResponse;
import io.kflux.protocol.message.JoinGroupRequest;
import io.kflux.protocol.message.JoinGroupRequest.JoinGroupRequestProtocol;
import io.kflux.protocol.message.JoinGroupResponse;
import io.kflux.protocol.message.JoinGroupResponse.JoinGroupResponseMember;
import io.kflux.protocol.message.LeaveGroupRequest;
import io.kflux.protocol.message.SyncGroupRequest;
import io.kflux.protocol.message.SyncGroupRequest.SyncGroupRequestAssignment;
import io.kflux.protocol.message.SyncGroupResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

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
 * connection, no heartbeat answer within {@code session.timeout.ms}, or {@link #coordinatorUnavailable()} send the
 * member back to FindCoordinator (retried with backoff) while it keeps its generation and assignment: ownership has
 * not changed, so nothing is revoked and fetching goes on. A JoinGroup or SyncGroup that was under way is sent again
 * to the new coordinator. If the member was expired meanwhile, the next heartbeat says UNKNOWN_MEMBER_ID and its
 * partitions are reported lost.
 *
 * <p><b>Listener calls</b> are made one at a time, in order, each bounded by {@code max.poll.interval.ms}: a call
 * that fails or times out is logged at WARN and the rebalance goes on (as with the official client, a listener
 * cannot veto a rebalance; the consumer may end itself from inside its listener if it wants).
 */
public final class ClassicGroupMember {
    private static final Logger log = LoggerFactory.getLogger(ClassicGroupMember.class);

    /** The broker holds a JoinGroup for up to the rebalance timeout: allow this much more for the answer. */
    static final long JOIN_GROUP_TIMEOUT_LAPSE_MS = 5_000;
    /** Reasons sent in JoinGroup/LeaveGroup are cut to this length, as the official client does. */
    static final int MAX_REASON_LENGTH = 255;
    /** The reason sent in LeaveGroup when {@code max.poll.interval.ms} expired (the official client's words). */
    public static final String POLL_TIMEOUT_REASON = "consumer poll timeout has expired.";
    private static final Comparator<TopicPartition> PARTITION_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    /** The rebalance step the member is in; together with the coordinator it gives the {@link MemberState}. */
    private enum Phase { NONE, PREPARING, JOINING, SYNCING, STABLE }

    private enum Drop { REVOKED, LOST }

    /** Generation, member id and protocol as the last JoinGroup gave them; replaced as a whole. */
    private record Generation(int generationId, String memberId, String protocolName) {
        static final Generation NONE = new Generation(-1, "", null);

        boolean valid() {
            return generationId >= 0 && !memberId.isEmpty();
        }
    }

    private final GroupConfig config;
    private final GroupIo io;
    private final CoordinatorManager coordinators;
    private final Executor loop;
    private final GroupListener listener;
    private final Scheduler scheduler;
    private final RebalanceProtocol protocol;
    private final Backoff backoff;
    private final String logPrefix;

    // Published for other threads; written only on the loop.
    private volatile MemberState state = MemberState.UNJOINED;
    private volatile Generation generation = Generation.NONE;
    private volatile Set<TopicPartition> owned = Set.of();
    private volatile CoordinatorChannel coordinator;
    private volatile boolean everJoined;

    // Loop-only state.
    private Phase phase = Phase.NONE;
    private boolean started;
    private boolean closed;
    private Throwable fatal;
    private boolean leaving;
    private boolean left;
    private boolean pollExpired;
    private boolean needsJoin;
    private String rejoinReason = "";
    /** Bumped whenever a rebalance step is abandoned: answers and timers of an older epoch are ignored. */
    private long flowEpoch;
    private Pattern pattern;
    private Set<String> subscribedTopics = new TreeSet<>();
    private Set<String> joinedTopics = Set.of();
    private boolean leader;
    private Set<String> groupSubscription = Set.of();
    /** Partition counts of the group's topics when the leader assigned (null for followers). */
    private Map<String, Integer> assignmentSnapshot;
    private Cluster lastCheckedCluster;

    /** The member's wait for {@link #coordinators}; null when none is pending. */
    private Disposable discoveryCall;
    /** Tells this member of coordinator losses others found (commits, the manager's connection watch). */
    private Disposable lostWatch;

    private Disposable heartbeatTimer;
    private Disposable heartbeatCall;
    private long heartbeatSeq;
    private long heartbeatInFlight = -1;
    private long lastHeartbeatReceivedMs;

    /** The JoinGroup, SyncGroup, leader metadata refresh or retry timer of the current rebalance step. */
    private Disposable joinCall;
    private int joinFailures;

    private boolean listenerBusy;
    private Disposable listenerCall;
    private final ArrayDeque<Runnable> listenerQueue = new ArrayDeque<>();
    private final List<MonoSink<Void>> leaveWaiters = new ArrayList<>();
    private Disposable metadataLoop;
    /** The early refresh while a subscribed topic is missing from metadata; null when none is pending. */
    private Disposable missingTopicsRefresh;
    private int missingTopicsRefreshes;

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
        this(config, new NetworkGroupIo(connections, metadata), coordinators, loop, listener, Schedulers.parallel());
    }

    ClassicGroupMember(GroupConfig config, GroupIo io, CoordinatorManager coordinators, Executor loop,
                       GroupListener listener, Scheduler scheduler) {
        this.config = Objects.requireNonNull(config, "config");
        this.io = Objects.requireNonNull(io, "io");
        this.coordinators = Objects.requireNonNull(coordinators, "coordinators");
        if (!coordinators.groupId().equals(config.groupId())) {
            throw new IllegalArgumentException("the coordinator manager is for group " + coordinators.groupId()
                    + ", the member for " + config.groupId());
        }
        this.loop = Objects.requireNonNull(loop, "loop");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.protocol = Assignors.commonProtocol(config.assignors());
        this.backoff = new Backoff(config.retryBackoffMs(), config.retryBackoffMaxMs());
        this.logPrefix = "[group " + config.groupId() + (config.groupInstanceId() == null ? "" : ", instance "
                + config.groupInstanceId()) + "] ";
    }

    // ------------------------------------------------------------------------------------------------ public API

    /**
     * Subscribes to exactly these topics. Before {@link #start()} it sets what the first JoinGroup carries; later a
     * change makes the member rejoin (cooperative: the partitions of dropped topics are revoked first).
     */
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
    public void subscribe(Pattern pattern) {
        Objects.requireNonNull(pattern, "pattern");
        onLoop(() -> {
            this.pattern = pattern;
            subscribedTopics = match(io.cluster());
            updateInterest();
            subscriptionMaybeChanged();
            if (started) {
                refreshAndCheckMetadata();
            }
        });
    }

    /**
     * Starts the loops: coordinator discovery, then JoinGroup / SyncGroup, heartbeats and the metadata check.
     * Idempotent; does nothing after {@link #close()}, a fatal error or {@link #leave}.
     */
    public void start() {
        onLoop(() -> {
            if (started || terminal()) {
                return;
            }
            started = true;
            needsJoin = true;
            lostWatch = coordinators.onLost(ch -> onLoop(() -> coordinatorLost(ch, "reported to the coordinator manager")));
            updateInterest();
            // The consumer refreshes metadata (metadata.max.age.ms, fetch errors); the member looks at every snapshot.
            metadataLoop = io.metadataUpdates().subscribe(c -> onLoop(() -> checkMetadata(c)));
            if (pattern != null) {
                refreshAndCheckMetadata();
            }
            proceed();
        });
    }

    /**
     * Leaves the group: tells the listener the owned partitions are revoked (lost when a rebalance is under way or
     * the generation is gone, as the official client does on close), then sends LeaveGroup with {@code reason}
     * unless the member is static ({@code group.instance.id}: a static member's partitions wait for it until
     * {@code session.timeout.ms}) or no coordinator is known right now. The member then stays UNJOINED.
     *
     * @param reason why, sent to the broker (LeaveGroup v5+), cut to 255 characters
     * @return completes when LeaveGroup was answered or failed (bounded by {@code request.timeout.ms}), at once when
     * there is nothing to leave; never fails
     */
    public Mono<Void> leave(String reason) {
        return Mono.create(sink -> onLoop(() -> doLeave(reason, sink)));
    }

    /**
     * {@code max.poll.interval.ms} expired: records were emitted but downstream has not asked for more for that long.
     * As the official client does, the member leaves the group (LeaveGroup with {@link #POLL_TIMEOUT_REASON}, dynamic
     * members only), drops its generation and member id, and reports every owned partition LOST (the group hands
     * them to others right away, so committing them is no longer possible; the official client reports them lost
     * on its next poll, kflux at once so fetching stops). The member stays UNJOINED until {@link #pollResumed()}.
     */
    public void pollTimeoutExpired() {
        onLoop(() -> {
            if (!started || terminal() || pollExpired || left || leaving) {
                return;
            }
            log.warn("{}{} This means downstream did not request more records within max.poll.interval.ms ({} ms) "
                    + "after records were emitted; leaving the group until demand returns.", logPrefix,
                    POLL_TIMEOUT_REASON, config.maxPollIntervalMs());
            pollExpired = true;
            Generation g = generation;
            CoordinatorChannel ch = coordinator;
            if (config.groupInstanceId() == null && ch != null && !g.memberId().isEmpty() && phase != Phase.NONE) {
                sendLeaveGroup(ch, g, POLL_TIMEOUT_REASON).subscribe();
            }
            abortFlow();
            stopHeartbeat();
            phase = Phase.NONE;
            generation = Generation.NONE;
            resetLeader();
            needsJoin = true;
            callListener(Drop.LOST, () -> owned, this::removeOwned);
        });
    }

    /** Downstream demand returned after {@link #pollTimeoutExpired()}: the member joins the group again. */
    public void pollResumed() {
        onLoop(() -> {
            if (!pollExpired) {
                return;
            }
            pollExpired = false;
            needsJoin = true;
            rejoinReason = "consumer poll resumed";
            proceed();
        });
    }

    /**
     * Stops every loop and timer and abandons requests in flight, without LeaveGroup (see {@link #leave}) and without
     * listener calls. Connections and the coordinator manager belong to the consumer and stay open.
     * Idempotent.
     */
    public void close() {
        onLoop(() -> {
            if (closed) {
                return;
            }
            closed = true;
            cleanup();
        });
    }

    /** Where the member is; any thread. */
    public MemberState state() {
        return state;
    }

    /** The generation of the last successful JoinGroup, -1 when the member has none; any thread. */
    public int generationId() {
        return generation.generationId();
    }

    /** The member id the coordinator gave, {@code ""} when none; any thread. For OffsetCommit. */
    public String memberId() {
        return generation.memberId();
    }

    /** {@code group.instance.id} (static membership), for OffsetCommit; empty for a dynamic member. */
    public Optional<String> groupInstanceId() {
        return config.instanceId();
    }

    /** True once a JoinGroup succeeded, whatever happened since; any thread. */
    public boolean everJoined() {
        return everJoined;
    }

    /** The partitions the member owns now (an immutable snapshot); any thread. */
    public Set<TopicPartition> assignment() {
        return owned;
    }

    // ------------------------------------------------------------------------------------------------ the machine

    /** Runs {@code task} on the loop; a bug in it makes the member fail rather than wedge. */
    private void onLoop(Runnable task) {
        loop.execute(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                fail(new KafkaFluxException("group member failed unexpectedly: " + e, e));
            } finally {
                publishState();
            }
        });
    }

    private boolean terminal() {
        return closed || fatal != null;
    }

    private boolean inactive() {
        return !started || terminal() || leaving || left || pollExpired;
    }

    private void publishState() {
        MemberState s;
        if (fatal != null) {
            s = MemberState.FATAL;
        } else if (closed) {
            s = MemberState.CLOSED;
        } else if (leaving) {
            s = MemberState.LEAVING;
        } else if (!started || left || pollExpired) {
            s = MemberState.UNJOINED;
        } else if (coordinator == null) {
            s = generation.generationId() >= 0 || !owned.isEmpty() ? MemberState.REDISCOVERING_COORDINATOR
                    : MemberState.DISCOVERING_COORDINATOR;
        } else {
            s = switch (phase) {
                case NONE -> MemberState.UNJOINED;
                case PREPARING -> MemberState.REJOINING;
                case JOINING -> MemberState.JOINING;
                case SYNCING -> MemberState.SYNCING;
                case STABLE -> MemberState.STABLE;
            };
        }
        if (s != state) {
            log.debug("{}state {} -> {}", logPrefix, state, s);
            state = s;
        }
    }

    /**
     * Decides the next step when no rebalance step is under way: find the coordinator, (re)join, or be STABLE
     * and heartbeat. Called after every step that ends.
     */
    private void proceed() {
        if (inactive() || listenerBusy || phase == Phase.JOINING || phase == Phase.SYNCING) {
            return;
        }
        if (coordinator == null) {
            discover();
            return;
        }
        if (needsJoin || !generation.valid()) {
            prepareJoin();
            return;
        }
        phase = Phase.STABLE;
        ensureHeartbeat();
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
        if (phase == Phase.JOINING || phase == Phase.SYNCING) {
            phase = Phase.PREPARING;
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
        leader = false;
        assignmentSnapshot = null;
        if (!groupSubscription.isEmpty()) {
            groupSubscription = Set.of();
            updateInterest();
        }
    }

    private void fail(Throwable error) {
        if (terminal()) {
            return;
        }
        log.error("{}group member stops: {}", logPrefix, error.toString());
        fatal = error;
        cleanup();
        publishState();
        try {
            listener.onFatalError(error);
        } catch (RuntimeException e) {
            log.warn("{}onFatalError threw", logPrefix, e);
        }
    }

    private void cleanup() {
        flowEpoch++;
        dispose(joinCall);
        dispose(heartbeatTimer);
        dispose(heartbeatCall);
        dispose(discoveryCall);
        dispose(lostWatch);
        dispose(metadataLoop);
        dispose(missingTopicsRefresh);
        dispose(listenerCall);
        joinCall = heartbeatTimer = heartbeatCall = discoveryCall = lostWatch = metadataLoop = listenerCall = null;
        missingTopicsRefresh = null;
        listenerQueue.clear();
        listenerBusy = false;
        coordinator = null;
        List<MonoSink<Void>> leavers = new ArrayList<>(leaveWaiters);
        leaveWaiters.clear();
        leavers.forEach(MonoSink::success);
    }

    private static void dispose(Disposable d) {
        if (d != null) {
            d.dispose();
        }
    }

    private Disposable schedule(long delayMs, Runnable task) {
        return scheduler.schedule(() -> onLoop(task), delayMs, TimeUnit.MILLISECONDS);
    }

    private long now() {
        return scheduler.now(TimeUnit.MILLISECONDS);
    }

    // ------------------------------------------------------------------------------------------------ discovery

    /** Asks the coordinator manager for the coordinator (once; it retries lookups itself) unless one is known. */
    private void discover() {
        if (discoveryCall != null || terminal() || coordinator != null) {
            return;
        }
        discoveryCall = coordinators.channel().subscribe(ch -> onLoop(() -> onCoordinatorFound(ch)),
                e -> onLoop(() -> {
                    discoveryCall = null;
                    fail(e); // only what no retry can change: FindCoordinator errors, versions, closed resources
                }));
    }

    private void onCoordinatorFound(CoordinatorChannel ch) {
        discoveryCall = null;
        if (terminal()) {
            return;
        }
        coordinator = ch;
        lastHeartbeatReceivedMs = now();
        ensureHeartbeat();
        proceed();
    }

    /**
     * Marks the coordinator unknown (when {@code ch} is the current one, or {@code ch} is null) and starts
     * rediscovery; the member keeps its generation and partitions. A JoinGroup/SyncGroup under way is abandoned and
     * sent again to the new coordinator.
     */
    private void coordinatorLost(CoordinatorChannel ch, String reason) {
        CoordinatorChannel current = coordinator;
        if (current == null || (ch != null && ch != current) || terminal()) {
            return;
        }
        log.info("{}group coordinator (node {}) is unavailable: {}; looking for it again", logPrefix,
                current.nodeId(), reason);
        coordinator = null;
        coordinators.markUnavailable(current, reason);
        stopHeartbeat();
        if (phase == Phase.JOINING || phase == Phase.SYNCING) {
            abortFlow();
        }
        if (started) {
            discover();
        }
    }

    /** What a failed coordinator request means: the coordinator is gone, or a retry may help. */
    private boolean isCoordinatorGone(Throwable e) {
        return e instanceof NetworkException && !(e instanceof UnsupportedVersionException);
    }

    // ------------------------------------------------------------------------------------------------ heartbeats

    private boolean heartbeatAllowed() {
        return coordinator != null && !inactive() && generation.valid()
                && (phase == Phase.STABLE || phase == Phase.SYNCING || phase == Phase.PREPARING);
    }

    private void ensureHeartbeat() {
        if (heartbeatTimer != null || !heartbeatAllowed()) {
            return;
        }
        lastHeartbeatReceivedMs = now();
        heartbeatTimer = schedule(config.heartbeatIntervalMs(), this::heartbeatTick);
    }

    private void stopHeartbeat() {
        dispose(heartbeatTimer);
        heartbeatTimer = null;
        heartbeatInFlight = -1;
    }

    private void heartbeatTick() {
        heartbeatTimer = null;
        if (!heartbeatAllowed()) {
            return;
        }
        long now = now();
        long silentMs = now - lastHeartbeatReceivedMs;
        if (silentMs > config.sessionTimeoutMs()) {
            coordinatorLost(coordinator, "no heartbeat answer within session.timeout.ms (" + config.sessionTimeoutMs()
                    + " ms)");
            return;
        }
        long untilSessionExpiry = config.sessionTimeoutMs() - silentMs + 1;
        if (heartbeatInFlight >= 0) {
            heartbeatTimer = schedule(Math.min(config.heartbeatIntervalMs(), untilSessionExpiry), this::heartbeatTick);
            return;
        }
        sendHeartbeat();
        heartbeatTimer = schedule(Math.min(config.heartbeatIntervalMs(), untilSessionExpiry), this::heartbeatTick);
    }

    private void sendHeartbeat() {
        Generation sent = generation;
        CoordinatorChannel ch = coordinator;
        long seq = ++heartbeatSeq;
        heartbeatInFlight = seq;
        HeartbeatRequest request = new HeartbeatRequest(config.groupId(), sent.generationId(), sent.memberId(),
                config.groupInstanceId());
        heartbeatCall = ch.send(request, config.requestTimeoutMs()).subscribe(
                r -> onLoop(() -> onHeartbeatResponse(ch, sent, seq, r)),
                e -> onLoop(() -> onHeartbeatFailure(ch, seq, e)));
    }

    private void onHeartbeatResponse(CoordinatorChannel ch, Generation sent, long seq, HeartbeatResponse response) {
        if (heartbeatInFlight == seq) {
            heartbeatInFlight = -1;
        }
        if (ch != coordinator || terminal()) {
            return;
        }
        Errors error = Errors.forCode(response.errorCode());
        switch (error) {
            case NONE -> {
                lastHeartbeatReceivedMs = now();
                checkMetadataIfChanged();
            }
            case REBALANCE_IN_PROGRESS -> {
                lastHeartbeatReceivedMs = now();
                // Heartbeats go on during a rebalance, whose answers all say so: only a STABLE member must act.
                if (phase == Phase.STABLE && !pollExpired) {
                    requestRejoin("the group is rebalancing");
                }
            }
            case ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID -> {
                lastHeartbeatReceivedMs = now();
                // While a JoinGroup is under way its answer decides; a late heartbeat answer must not reset it.
                if (sent == generation && phase != Phase.JOINING) {
                    resetGeneration(error == Errors.UNKNOWN_MEMBER_ID, error + " from Heartbeat");
                    requestRejoin(error + " from Heartbeat");
                }
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
                retryHeartbeatSoon();
            }
        }
    }

    private void onHeartbeatFailure(CoordinatorChannel ch, long seq, Throwable e) {
        if (heartbeatInFlight == seq) {
            heartbeatInFlight = -1;
        }
        if (ch != coordinator || terminal()) {
            return;
        }
        if (isCoordinatorGone(e)) {
            coordinatorLost(ch, "Heartbeat failed: " + e.getMessage());
        } else {
            log.warn("{}Heartbeat failed ({}); retrying", logPrefix, e.toString());
            retryHeartbeatSoon();
        }
    }

    private void retryHeartbeatSoon() {
        if (!heartbeatAllowed()) {
            return;
        }
        dispose(heartbeatTimer);
        heartbeatTimer = schedule(Math.min(config.retryBackoffMs(), config.heartbeatIntervalMs()), this::heartbeatTick);
    }

    // ------------------------------------------------------------------------------------------------ join / sync

    /**
     * First step of a rebalance: tells the listener what this member gives up before it joins. Lost when the
     * generation is gone (the group already gave the partitions to others); eager: everything is revoked;
     * cooperative: only partitions of topics no longer subscribed (the rest is kept and reported as owned).
     */
    private void prepareJoin() {
        phase = Phase.PREPARING;
        long epoch = ++flowEpoch;
        Generation atStart = generation;
        boolean lost = !atStart.valid();
        ensureHeartbeat();
        callListener(lost ? Drop.LOST : Drop.REVOKED, () -> {
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
        if (coordinator == null) {
            needsJoin = true;
            discover(); // the join is sent once the coordinator is found again (proceed)
            return;
        }
        sendJoin();
    }

    private void sendJoin() {
        phase = Phase.JOINING;
        needsJoin = false;
        stopHeartbeat(); // the broker holds the JoinGroup; heartbeats resume with the new generation
        if (pattern != null) {
            Set<String> matched = match(io.cluster());
            if (!matched.equals(subscribedTopics)) {
                subscribedTopics = matched;
                updateInterest();
            }
        }
        long epoch = flowEpoch;
        CoordinatorChannel ch = coordinator;
        Generation current = generation;
        joinedTopics = Set.copyOf(subscribedTopics);
        JoinGroupRequest request = new JoinGroupRequest(config.groupId(), config.sessionTimeoutMs(),
                config.maxPollIntervalMs(), current.memberId(), config.groupInstanceId(), config.protocolType(),
                joinProtocols(current), truncate(rejoinReason));
        long timeoutMs = Math.max(config.requestTimeoutMs(), config.maxPollIntervalMs() + JOIN_GROUP_TIMEOUT_LAPSE_MS);
        log.debug("{}sending JoinGroup (member id '{}', generation {}, topics {}, owned {})", logPrefix,
                current.memberId(), current.generationId(), joinedTopics, owned);
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
        Errors error = Errors.forCode(response.errorCode());
        switch (error) {
            case NONE -> {
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
                phase = Phase.SYNCING;
                ensureHeartbeat();
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
        long delay = backoff.delayMs(++joinFailures);
        log.info("{}JoinGroup failed ({}); retrying in {} ms", logPrefix, why, delay);
        long epoch = flowEpoch;
        phase = Phase.JOINING;
        joinCall = schedule(delay, () -> {
            if (epoch == flowEpoch && !inactive()) {
                if (coordinator == null) {
                    phase = Phase.PREPARING;
                    needsJoin = true;
                    discover();
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
        } else if (isCoordinatorGone(e)) {
            coordinatorLost(ch, what + " failed: " + e.getMessage());
        } else {
            retryJoinLater(e.toString());
        }
    }

    private void onLeaderElected(JoinGroupResponse response) {
        leader = true;
        Map<String, Subscription> subscriptions = new LinkedHashMap<>();
        Set<String> allTopics = new TreeSet<>(subscribedTopics);
        for (JoinGroupResponseMember member : response.members()) {
            Subscription s;
            try {
                s = ConsumerProtocolCodec.subscription(member.metadata(), member.groupInstanceId());
            } catch (RuntimeException e) {
                fail(new KafkaFluxException("the subscription of group member " + member.memberId()
                        + " cannot be read: " + e.getMessage(), e));
                return;
            }
            subscriptions.put(member.memberId(), s);
            allTopics.addAll(s.topics());
        }
        groupSubscription = Collections.unmodifiableSet(allTopics);
        updateInterest();
        if (response.skipAssignment()) {
            // KIP-814: a static leader that rejoined must not reassign; it keeps watching the group's topics.
            log.info("{}leader of generation {} with skipAssignment: not reassigning", logPrefix,
                    response.generationId());
            assignmentSnapshot = partitionCounts(io.cluster(), allTopics, true);
            sendSync(List.of());
            return;
        }
        PartitionAssignor assignor = assignor(response.protocolName());
        if (assignor == null) {
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
                    if (epoch == flowEpoch) {
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
        Map<String, Integer> counts = partitionCounts(cluster, groupSubscription, false);
        GroupAssignment result;
        try {
            result = assignor.assign(ClusterTopics.of(counts), subscriptions);
        } catch (RuntimeException e) {
            fail(new KafkaFluxException("assignor '" + assignor.name() + "' failed: " + e, e));
            return;
        }
        List<SyncGroupRequestAssignment> assignments = new ArrayList<>();
        for (String memberId : subscriptions.keySet()) {
            Assignment a = result.byMemberId().get(memberId);
            if (a == null) {
                log.warn("{}assignor '{}' gave nothing for member {}; sending it an empty assignment", logPrefix,
                        assignor.name(), memberId);
                a = new Assignment(List.of());
            }
            assignments.add(new SyncGroupRequestAssignment(memberId, ConsumerProtocolCodec.assignmentBytes(a)));
        }
        assignmentSnapshot = partitionCounts(cluster, groupSubscription, true);
        log.debug("{}leader assigned {} members with '{}'", logPrefix, subscriptions.size(), assignor.name());
        sendSync(assignments);
        watchMissingTopics(cluster);
    }

    private void sendSync(List<SyncGroupRequestAssignment> assignments) {
        long epoch = flowEpoch;
        CoordinatorChannel ch = coordinator;
        Generation sent = generation;
        SyncGroupRequest request = new SyncGroupRequest(config.groupId(), sent.generationId(), sent.memberId(),
                config.groupInstanceId(), config.protocolType(), sent.protocolName(), assignments);
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
        phase = Phase.STABLE;
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
        ensureHeartbeat();
        callListener(Drop.REVOKED, () -> revoked, dropped -> {
            removeOwned(dropped);
            if (epoch != flowEpoch) {
                return; // left, poll timeout or closed meanwhile: the new assignment is not taken
            }
            Set<TopicPartition> added = new HashSet<>(assigned);
            added.removeAll(owned);
            owned = Set.copyOf(assigned);
            Set<TopicPartition> whole = owned;
            callAssigned(added, whole, () -> {
                if (epoch == flowEpoch) {
                    proceed();
                }
            });
        });
    }

    // ------------------------------------------------------------------------------------------------ leave

    private void doLeave(String reason, MonoSink<Void> sink) {
        if (terminal() || !started || left) {
            sink.success();
            return;
        }
        leaveWaiters.add(sink);
        if (leaving) {
            return;
        }
        leaving = true;
        boolean lost = !generation.valid() || phase != Phase.STABLE;
        abortFlow();
        stopHeartbeat();
        needsJoin = false;
        callListener(lost ? Drop.LOST : Drop.REVOKED, () -> owned, dropped -> {
            removeOwned(dropped);
            Generation g = generation;
            CoordinatorChannel ch = coordinator;
            Runnable done = () -> {
                generation = Generation.NONE;
                phase = Phase.NONE;
                resetLeader();
                leaving = false;
                left = true;
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

    // ------------------------------------------------------------------------------------------------ listener

    /**
     * Calls the listener for the partitions {@code partitions} gives at the time of the call (calls run one at a
     * time, in order), then runs {@code then} on the loop with that set. An empty set skips the listener.
     */
    private void callListener(Drop kind, Supplier<Set<TopicPartition>> partitions, Consumer<Set<TopicPartition>> then) {
        Runnable invoke = () -> {
            Set<TopicPartition> set = Set.copyOf(partitions.get());
            if (set.isEmpty()) {
                then.accept(set);
                drainListenerQueue();
                return;
            }
            if (log.isInfoEnabled()) {
                List<TopicPartition> sorted = new ArrayList<>(set);
                sorted.sort(PARTITION_ORDER);
                log.info("{}partitions {}: {}", logPrefix, kind == Drop.LOST ? "lost" : "revoked", sorted);
            }
            invokeListener(kind == Drop.LOST ? "onPartitionsLost" : "onPartitionsRevoked",
                    () -> kind == Drop.LOST ? listener.onPartitionsLost(set) : listener.onPartitionsRevoked(set),
                    () -> then.accept(set));
        };
        if (listenerBusy) {
            listenerQueue.add(invoke);
        } else {
            invoke.run();
        }
    }

    private void callAssigned(Set<TopicPartition> added, Set<TopicPartition> assignment, Runnable then) {
        Runnable invoke = () -> invokeListener("onPartitionsAssigned",
                () -> listener.onPartitionsAssigned(Set.copyOf(added), assignment), then);
        if (listenerBusy) {
            listenerQueue.add(invoke);
        } else {
            invoke.run();
        }
    }

    private void invokeListener(String what, Supplier<Mono<Void>> call, Runnable then) {
        listenerBusy = true;
        Mono<Void> mono;
        try {
            mono = Objects.requireNonNull(call.get(), what + " returned null");
        } catch (RuntimeException e) {
            mono = Mono.error(e);
        }
        listenerCall = mono
                .timeout(Duration.ofMillis(config.maxPollIntervalMs()), scheduler)
                .onErrorResume(e -> {
                    log.warn("{}{} failed or took longer than max.poll.interval.ms; the rebalance goes on: {}",
                            logPrefix, what, e.toString());
                    return Mono.empty();
                })
                .subscribe(null, null, () -> onLoop(() -> {
                    if (!listenerBusy) {
                        return; // closed meanwhile
                    }
                    listenerBusy = false;
                    listenerCall = null;
                    then.run();
                    drainListenerQueue();
                    proceed();
                }));
    }

    private void drainListenerQueue() {
        while (!listenerBusy && !listenerQueue.isEmpty()) {
            listenerQueue.poll().run();
        }
    }

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
        if (started && phase != Phase.NONE && !inactive() && !subscribedTopics.equals(joinedTopics)) {
            requestRejoin("the subscription changed");
        }
    }

    private void updateInterest() {
        Set<String> topics = new TreeSet<>(subscribedTopics);
        topics.addAll(groupSubscription);
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
        if (leader && assignmentSnapshot != null && !inactive()) {
            Map<String, Integer> now = partitionCounts(cluster, assignmentSnapshot.keySet(), true);
            for (Map.Entry<String, Integer> e : now.entrySet()) {
                Integer before = assignmentSnapshot.get(e.getKey());
                Integer after = e.getValue();
                // A topic unknown when assigning (null: e.g. still LEADER_NOT_AVAILABLE right after its creation)
                // got no partitions then: once it has some, the group must be assigned again.
                boolean changed = before == null ? after != null && after > 0 : after != null && !before.equals(after);
                if (changed) {
                    requestRejoin("the partitions of topic " + e.getKey() + " changed (" + (before == null ? "unknown"
                            : before) + " -> " + after + ")");
                    break;
                }
            }
        }
        watchMissingTopics(cluster);
    }

    /**
     * INVALID_TOPIC_EXCEPTION or TOPIC_AUTHORIZATION_FAILED for a topic this member subscribed to by name ends the
     * member, as the official consumer's poll() throws InvalidTopicException / TopicAuthorizationException for them:
     * waiting cannot help. Pattern subscriptions only match topics without errors.
     *
     * @return false when the member failed
     */
    private boolean failOnTopicErrors(Cluster cluster) {
        if (pattern != null) {
            return true;
        }
        Set<String> invalid = new TreeSet<>();
        Set<String> unauthorized = new TreeSet<>();
        for (String topic : subscribedTopics) {
            TopicInfo t = cluster.topic(topic);
            if (t == null) {
                continue;
            }
            if (t.errorCode() == Errors.INVALID_TOPIC_EXCEPTION.code()) {
                invalid.add(topic);
            } else if (t.errorCode() == Errors.TOPIC_AUTHORIZATION_FAILED.code()) {
                unauthorized.add(topic);
            }
        }
        if (!invalid.isEmpty()) {
            fail(new InvalidTopicException(invalid, "Metadata answered INVALID_TOPIC_EXCEPTION for subscribed topics"));
            return false;
        }
        if (!unauthorized.isEmpty()) {
            fail(new KafkaProtocolException(Errors.TOPIC_AUTHORIZATION_FAILED.code(),
                    Errors.TOPIC_AUTHORIZATION_FAILED.name(), false, "not authorized to describe subscribed topics "
                    + unauthorized + " (group " + config.groupId() + ")"));
            return false;
        }
        return true;
    }

    /**
     * While a topic this member or (as leader) the group subscribed to by name is missing from metadata, refreshes
     * again after {@code retry.backoff.ms}, growing to {@code retry.backoff.max.ms}, instead of waiting up to
     * {@code metadata.max.age.ms}: the official consumer asks for metadata again whenever a topic it needs is
     * unknown, so a topic created after subscribing is consumed within moments. The leader then sees the new
     * partitions and rebalances ({@link #checkMetadata}).
     */
    private void watchMissingTopics(Cluster cluster) {
        if (pattern != null || inactive() || missingTopicsRefresh != null) {
            return;
        }
        Set<String> wanted = new TreeSet<>(subscribedTopics);
        wanted.addAll(groupSubscription);
        Set<String> missing = new TreeSet<>();
        for (String topic : wanted) {
            TopicInfo t = cluster.topic(topic);
            if (t == null || t.partitions().isEmpty() || Errors.forCode(t.errorCode()).retriable()) {
                missing.add(topic);
            }
        }
        if (missing.isEmpty()) {
            missingTopicsRefreshes = 0;
            return;
        }
        long delay = backoff.delayMs(++missingTopicsRefreshes);
        log.debug("{}topics {} are not in metadata yet; refreshing in {} ms", logPrefix, missing, delay);
        missingTopicsRefresh = schedule(delay, () -> {
            if (inactive()) {
                missingTopicsRefresh = null;
                return;
            }
            missingTopicsRefresh = io.refreshMetadata().subscribe(
                    c -> onLoop(() -> {
                        missingTopicsRefresh = null;
                        checkMetadata(c);
                    }),
                    e -> onLoop(() -> {
                        missingTopicsRefresh = null;
                        log.debug("{}metadata refresh failed: {}", logPrefix, e.toString());
                        watchMissingTopics(io.cluster());
                    }));
        });
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

    /**
     * Partition counts of {@code topics} in {@code cluster}. With {@code withUnknown}: a topic the broker said does
     * not exist counts 0, one the snapshot does not cover (or with a passing error) maps to null, so it is not
     * compared; without: only topics with partitions.
     */
    private static Map<String, Integer> partitionCounts(Cluster cluster, Set<String> topics, boolean withUnknown) {
        Map<String, Integer> counts = new HashMap<>();
        for (String topic : topics) {
            TopicInfo t = cluster.topic(topic);
            Integer count = null;
            if (t != null && t.errorCode() == 0) {
                count = t.partitions().size();
            } else if (t != null && t.errorCode() == Errors.UNKNOWN_TOPIC_OR_PARTITION.code()) {
                count = 0;
            }
            if (withUnknown) {
                counts.put(topic, count);
            } else if (count != null && count > 0) {
                counts.put(topic, count);
            }
        }
        return counts;
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
        return new KafkaProtocolException(error.code(), error.name(), error.retriable(),
                what + " (group " + config.groupId() + ")");
    }

    @Override
    public String toString() {
        return "ClassicGroupMember[" + config.groupId() + ", " + state + ", generation " + generationId() + ", member '"
                + memberId() + "']";
    }
}
