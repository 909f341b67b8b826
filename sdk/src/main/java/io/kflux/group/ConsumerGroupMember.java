package io.kflux.group;

import io.kflux.ConfigException;
import io.kflux.FencedInstanceIdException;
import io.kflux.KafkaProtocolException;
import io.kflux.TopicAuthorizationException;
import io.kflux.TopicPartition;
import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import io.kflux.metadata.BrokerErrors;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.SubscriptionWatch;
import io.kflux.network.NetworkException;
import io.kflux.network.NodeConnections;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ConsumerGroupHeartbeatRequest;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse;
import io.kflux.util.Backoff;
import io.kflux.network.IoLoops;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
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
 * The client side of the consumer group protocol (KIP-848, {@code group.protocol=consumer}): one
 * ConsumerGroupHeartbeat loop; the broker computes the assignment and each member reconciles on its own, so there is
 * no group-wide barrier. This class is the driver: it sends heartbeats, runs the listener calls, timers and metadata
 * refreshes; what they mean for the member is decided by its pure core {@link ConsumerMembership} (phases in
 * {@link ConsumerPhase}, shown as {@link ConsumerMemberState}), moved only through checked transitions.
 *
 * <p><b>Joining.</b> The member generates its member id (KIP-1082; a broker that answers with another id wins) and
 * heartbeats with epoch 0, its subscription (topic names, or the pattern as the broker-side regular expression, RE2J
 * syntax), {@code group.remote.assignor}, {@code client.rack} as rack id and {@code max.poll.interval.ms} as
 * rebalance timeout. Every heartbeat carries the full request (the protocol lets fields be left out when unchanged;
 * sending them again costs a few bytes and never leaves the coordinator with a stale view after a coordinator move).
 *
 * <p><b>Reconciliation.</b> A heartbeat answer with an assignment sets the target (topic ids, resolved to names
 * through metadata; unknown ids make it refresh metadata and wait). What left the target is revoked first
 * ({@link GroupListener#onPartitionsRevoked}: the consumer stops fetching, waits for its emitter, commits acknowledged
 * offsets, runs the application's listener), then what is new is taken ({@link GroupListener#onPartitionsAssigned}:
 * committed offsets, listener, fetching), then the next heartbeat, sent at once, acknowledges the partitions owned. A
 * target that changes meanwhile is reconciled after the step under way.
 *
 * <p><b>Errors.</b> FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID: the partitions are reported lost and the member joins
 * again with epoch 0. GROUP_ID_NOT_FOUND to a member with an epoch as well: the coordinator lost the group (the
 * cluster behind {@code bootstrap.servers} was replaced, KIP-899, or the group was deleted), so it cannot know the
 * member and the join creates the group anew; at epoch 0 it means a group of another type and ends the member (the
 * official client ends the member on it in both cases). NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and network failures: the coordinator is looked for
 * again ({@link CoordinatorManager}), state and partitions kept. COORDINATOR_LOAD_IN_PROGRESS and other retriable
 * codes: retried after {@code retry.backoff.ms}, growing. FENCED_INSTANCE_ID ({@link FencedInstanceIdException}),
 * UNRELEASED_INSTANCE_ID, GROUP_MAX_SIZE_REACHED, GROUP_AUTHORIZATION_FAILED ({@link KafkaProtocolException}),
 * INVALID_REGULAR_EXPRESSION and UNSUPPORTED_ASSIGNOR ({@link ConfigException}) end the member
 * ({@link GroupListener#onFatalError}).
 *
 * <p><b>Leaving.</b> Everything owned is revoked, then a heartbeat with epoch -1 leaves (-2 for a static member,
 * whose partitions wait for it until the broker's session timeout).
 *
 * <p><b>Threads.</b> As {@link ClassicGroupMember}: state lives on the consumer's event loop, public methods submit
 * tasks, accessors read published snapshots.
 *
 * <p><b>Why one class past 500 lines.</b> Over half of it is the protocol's Javadoc and the error-to-exception
 * mapping; the rest is the I/O of one heartbeat loop whose answers drive reconciliation and leave, with the decisions
 * in the core. What is shared with the classic member lives beside it ({@link AbstractGroupMember}, {@link CoordinatorLink},
 * {@link ListenerCalls}, {@link SessionTimer}, {@link SubscribedTopicErrors}).
 */
public final class ConsumerGroupMember extends AbstractGroupMember<ConsumerMemberState> {
    private static final Logger log = LoggerFactory.getLogger(ConsumerGroupMember.class);

    private final ConsumerGroupConfig config;
    private final ListenerCalls listenerCalls;
    private final ConsumerMembership core;

    // Loop-only state: the driver's handles.
    private final CoordinatorLink link;
    private Disposable metadataWatch;
    private Disposable heartbeatTimer;
    private Disposable heartbeatCall;
    /** System.nanoTime() when the rebalance under way began (a reconciliation started), 0 when none is. */
    private long rebalanceStartedNanos;
    /** The metadata refreshes while assigned topic ids are not known yet. */
    private final SubscriptionWatch unknownIds;
    /** The session as this member can know it: heartbeat answers confirm it; none for the session timeout ends it. */
    private final SessionTimer session;

    /**
     * A member that uses the consumer's connections, metadata and coordinator manager.
     *
     * @param metadata     the consumer's metadata; the member sets its interest to the subscribed topics (all topics
     *                     for a pattern), so the consumer must not narrow it while the member runs
     * @param coordinators the consumer's coordinator manager for {@code config.groupId()}, shared with commits
     * @param loop         the consumer's event loop; tasks must not block
     * @param listener     told of revoked, assigned and lost partitions and of fatal errors, always on {@code loop}
     */
    public ConsumerGroupMember(ConsumerGroupConfig config, NodeConnections connections, MetadataManager metadata,
                               CoordinatorManager coordinators, Executor loop, GroupListener listener) {
        this(config, new NetworkGroupIo(connections, metadata), coordinators, loop, listener, IoLoops.timers());
    }

    ConsumerGroupMember(ConsumerGroupConfig config, GroupIo io, CoordinatorManager coordinators, Executor loop,
                        GroupListener listener, Scheduler scheduler) {
        super(log, Objects.requireNonNull(config, "config").groupId(), config.groupInstanceId(),
                new Backoff(config.retryBackoffMs(), config.retryBackoffMaxMs()), io, coordinators, loop, listener,
                scheduler, new States<>(ConsumerMemberState.UNSUBSCRIBED, Set.of(ConsumerMemberState.UNSUBSCRIBED,
                        ConsumerMemberState.LEFT, ConsumerMemberState.STALE), ConsumerMemberState.STABLE,
                        ConsumerMemberState.LEAVING, ConsumerMemberState.FATAL, ConsumerMemberState.CLOSED));
        this.config = config;
        this.core = new ConsumerMembership(config, newMemberId(), this::moved);
        this.listenerCalls = new ListenerCalls(listener, scheduler, config.rebalanceTimeoutMs(), logPrefix, this::onLoop,
                () -> { });
        this.link = new CoordinatorLink(coordinators, this::onLoop, logPrefix, ch -> {
            core.coordinatorFound();
            heartbeatNow();
        }, this::fail, this::onCoordinatorLost);
        // No request is held before its answer under KIP-848 (heartbeats are answered at once): nothing awaited.
        this.session = new SessionTimer(config.sessionTimeoutMs(), () -> scheduler.now(TimeUnit.MILLISECONDS),
                this::schedule, core::sessionHeld, () -> false, listener::onSessionInDoubt, this::sessionExpired);
        // each snapshot (or failure) reconciles again; ids still unknown ask for the next refresh
        this.unknownIds = subscriptionWatch(() -> !state().isTerminal(), c -> reconcileIfNeeded(), e -> {
            log.debug("{}metadata refresh failed: {}", logPrefix, e.toString());
            reconcileIfNeeded();
        });
    }

    /** KIP-1082: a random UUID in Kafka's text form (URL-safe base64 of its 16 bytes, no padding). */
    static String newMemberId() {
        UUID u = UUID.randomUUID();
        ByteBuffer b = ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    // ------------------------------------------------------------------------------------------------ public API

    @Override
    public void subscribe(Collection<String> topics) {
        Set<String> copy = new TreeSet<>(topics);
        onLoop(() -> {
            core.subscribe(copy);
            io.interest(copy, false);
            heartbeatNow(); // the next heartbeat carries the new subscription
        });
    }

    /**
     * Subscribes by a regular expression the broker evaluates (KIP-848: RE2J syntax, the whole topic name must
     * match). The consumer checks at {@code create} that RE2J can parse it; a pattern the broker refuses ends the
     * member with {@link ConfigException}.
     */
    @Override
    public void subscribe(Pattern pattern) {
        Objects.requireNonNull(pattern, "pattern");
        onLoop(() -> {
            core.subscribe(pattern);
            io.interest(Set.of(), true); // assigned topic ids must resolve to names
            heartbeatNow();
        });
    }

    @Override
    public void start() {
        onLoop(() -> {
            if (core.phase() != ConsumerPhase.UNSUBSCRIBED) {
                return;
            }
            link.start();
            metadataWatch = io.metadataUpdates().subscribe(c -> onLoop(() -> {
                if (failOnTopicErrors(c)) {
                    reconcileIfNeeded();
                }
            }));
            core.start();
            heartbeatNow();
        });
    }

    @Override
    public Mono<Void> leave(String reason) {
        return Mono.create(sink -> onLoop(() -> doLeave(reason, sink, false)));
    }

    /**
     * As the official client does, the member leaves (epoch -1; a static member -2) and its partitions are reported
     * lost at once (the group hands them to others right away). It joins again with epoch 0 on {@link #pollResumed()}.
     */
    @Override
    void leaveOnPollTimeout() {
        doLeave(ClassicGroupMember.POLL_TIMEOUT_REASON, null, true);
    }

    @Override
    boolean active() {
        return core.phase().isActive();
    }

    /** The rebalance timeout a KIP-848 member sends is {@code max.poll.interval.ms}. */
    @Override
    int maxPollIntervalMs() {
        return config.rebalanceTimeoutMs();
    }

    @Override
    public void pollResumed() {
        onLoop(() -> {
            if (core.pollResumed()) {
                heartbeatNow();
            }
        });
    }

    /** The member epoch (what OffsetCommit carries as generation under KIP-848), -1 without membership. */
    @Override
    public int generationId() {
        // Also while LEAVING: the revocation's commits must carry the epoch the coordinator still knows.
        int epoch = core.epoch();
        return epoch > 0 ? epoch : -1;
    }

    @Override
    public String memberId() {
        return core.everJoined() ? core.memberId() : "";
    }

    @Override
    public Optional<String> groupInstanceId() {
        return Optional.ofNullable(config.groupInstanceId());
    }

    @Override
    public boolean everJoined() {
        return core.everJoined();
    }

    /** KIP-848: OffsetFetch v9+ carries the member id and epoch. */
    @Override
    public boolean fetchesOffsetsAsMember() {
        return true;
    }

    @Override
    public Set<TopicPartition> assignment() {
        return core.owned();
    }

    // ------------------------------------------------------------------------------------------------ the machine

    /** The core moved to {@code next}: publish the state it shows as (a checked move when that changes). */
    private void moved(ConsumerPhase next) {
        log.trace("{}phase {}", logPrefix, next);
        transitionTo(next.visible());
    }

    /**
     * {@code fail()} or {@code close()} moved the member to a terminal state: the core follows. And a rebalance, for
     * the metrics, as the official KIP-848 consumer counts one: from the start of a reconciliation until the member
     * is STABLE again; it failed when the member is fenced, fails or leaves before that.
     */
    @Override
    void entered(ConsumerMemberState next) {
        if (next.isTerminal() && !core.phase().isTerminal()) {
            core.terminated(next == ConsumerMemberState.FATAL ? ConsumerPhase.FATAL : ConsumerPhase.CLOSED);
        }
        if (next == ConsumerMemberState.RECONCILING) {
            if (rebalanceStartedNanos == 0L) {
                rebalanceStartedNanos = Math.max(1L, System.nanoTime());
            }
        } else if (rebalanceStartedNanos != 0L && next == ConsumerMemberState.STABLE) {
            metrics().rebalanced(System.nanoTime() - rebalanceStartedNanos);
            rebalanceStartedNanos = 0L;
        } else if (rebalanceStartedNanos != 0L && next != ConsumerMemberState.ACKNOWLEDGING) {
            metrics().rebalanceFailed();
            rebalanceStartedNanos = 0L;
        }
    }

    @Override
    void cleanup() {
        unknownIds.cancel();
        for (Disposable d : new Disposable[] {metadataWatch, heartbeatTimer, heartbeatCall}) {
            if (d != null) {
                d.dispose();
            }
        }
        metadataWatch = heartbeatTimer = heartbeatCall = null;
        core.heartbeatEnded();
        session.stop(state() == ConsumerMemberState.FATAL);
        listenerCalls.cancel();
        link.cancel();
    }

    // ------------------------------------------------------------------------------------------------ coordinator

    private void coordinatorLost(CoordinatorChannel ch, String reason) {
        if (!state().isTerminal()) {
            link.lose(ch, reason);
        }
    }

    /** The coordinator is gone: the member keeps its state, epoch and partitions, and heartbeats to the next one. */
    private void onCoordinatorLost(CoordinatorChannel gone, String reason) {
        cancelHeartbeatTimer();
        if (heartbeatCall != null) {
            heartbeatCall.dispose(); // its answer would come from the old coordinator; the new one gets a fresh one
        }
        endHeartbeat();
        if (core.phase().isActive()) {
            link.ensure();
        }
    }

    // ------------------------------------------------------------------------------------------------ heartbeats

    /** Sends a heartbeat as soon as possible: now, after the one in flight, or once the coordinator is known. */
    private void heartbeatNow() {
        if (!core.heartbeatAllowed()) {
            return;
        }
        if (link.current() == null) {
            link.ensure();
            return;
        }
        if (core.heartbeatAsked() == ConsumerMembership.Ask.SEND) {
            cancelHeartbeatTimer();
            sendHeartbeat();
        }
    }

    /** The heartbeat out is answered, failed or abandoned. @return whether another was asked for meanwhile */
    private boolean endHeartbeat() {
        heartbeatCall = null;
        return core.heartbeatEnded();
    }

    private void cancelHeartbeatTimer() {
        if (heartbeatTimer != null) {
            heartbeatTimer.dispose();
            heartbeatTimer = null;
        }
    }

    private void scheduleHeartbeat(long delayMs) {
        cancelHeartbeatTimer();
        heartbeatTimer = schedule(delayMs, () -> {
            heartbeatTimer = null;
            heartbeatNow();
        });
    }

    private void sendHeartbeat() {
        CoordinatorChannel ch = link.current();
        ConsumerGroupHeartbeatRequest request = core.sending();
        Set<TopicPartition> reported = core.owned();
        long sentAt = System.nanoTime();
        long sentAtMs = scheduler.now(TimeUnit.MILLISECONDS);
        heartbeatCall = ch.send(request, config.requestTimeoutMs()).subscribe(
                r -> {
                    metrics().heartbeat(System.nanoTime() - sentAt); // any answer, any error code, as the official client
                    onLoop(() -> onHeartbeatResponse(ch, request, reported, r, sentAtMs));
                },
                e -> onLoop(() -> onHeartbeatFailure(ch, e)));
    }

    private void afterHeartbeat(long nextMs) {
        boolean again = endHeartbeat();
        if (!core.heartbeatAllowed() || link.current() == null) {
            return;
        }
        if (again) {
            heartbeatNow();
        } else {
            scheduleHeartbeat(nextMs);
        }
    }

    private void onHeartbeatFailure(CoordinatorChannel ch, Throwable e) {
        endHeartbeat();
        if (ch != link.current() || state().isTerminal()) {
            return;
        }
        if (e instanceof UnsupportedVersionException) {
            fail(new io.kflux.UnsupportedVersionException(e.getMessage()
                    + " (group.protocol=consumer needs a broker with ConsumerGroupHeartbeat, Kafka 4.0 or later)", e));
        } else if (e instanceof NetworkException) {
            coordinatorLost(ch, "ConsumerGroupHeartbeat failed: " + e.getMessage());
        } else {
            retryHeartbeat(e.toString());
        }
    }

    private void retryHeartbeat(String why) {
        core.heartbeatFailed();
        long delay = core.heartbeatRetryDelayMs();
        log.info("{}ConsumerGroupHeartbeat failed ({}); retrying in {} ms", logPrefix, why, delay);
        endHeartbeat();
        if (core.heartbeatAllowed() && link.current() != null) {
            scheduleHeartbeat(delay);
        }
    }

    private void onHeartbeatResponse(CoordinatorChannel ch, ConsumerGroupHeartbeatRequest sent,
                                     Set<TopicPartition> reported, ConsumerGroupHeartbeatResponse response,
                                     long sentAtMs) {
        Errors error = Errors.forCode(response.errorCode());
        switch (core.judge(sent, error, ch == link.current())) {
            case STALE_ANSWER -> {
                if (endHeartbeat()) {
                    heartbeatNow();
                }
            }
            case ACCEPT -> {
                if (core.accept(reported, response, io.cluster()::topicName)) {
                    log.info("{}joined with member id {}, epoch {}", logPrefix, core.memberId(), core.epoch());
                }
                session.confirmed(sentAtMs); // after the epoch: a first answer at epoch 0 confirms the new session
                afterHeartbeat(core.intervalMs());
                reconcileIfNeeded();
            }
            case FENCED -> {
                endHeartbeat();
                fenced(error + (response.errorMessage() == null ? "" : ": " + response.errorMessage()));
            }
            case COORDINATOR_LOST -> {
                endHeartbeat();
                coordinatorLost(ch, error + " from ConsumerGroupHeartbeat");
            }
            case FENCED_INSTANCE -> fail(fencedInstance("ConsumerGroupHeartbeat"));
            case INVALID_PATTERN -> fail(new ConfigException("subscription pattern",
                    core.pattern() == null ? null : core.pattern().pattern(), "a regular expression the broker can "
                    + "parse (RE2J syntax, KIP-848): " + response.errorMessage()));
            case UNSUPPORTED_ASSIGNOR -> fail(new ConfigException("group.remote.assignor", config.remoteAssignor(),
                    "an assignor the broker offers (group.consumer.assignors): " + response.errorMessage()));
            case TOPIC_AUTHORIZATION -> topicAuthorizationFailed(response.errorMessage());
            case RETRY -> retryHeartbeat(error.toString()); // COORDINATOR_LOAD_IN_PROGRESS among others
            case FATAL -> fail(protocolError(error, response.errorMessage()));
        }
    }

    // ------------------------------------------------------------------------------------------------ reconciliation

    /**
     * The broker checks DESCRIBE on the subscribed topics but its heartbeat answer does not say which it refused;
     * metadata does, so the error names them from a fresh Metadata response when the last one did not show them.
     */
    private void topicAuthorizationFailed(String brokerMessage) {
        String message = "ConsumerGroupHeartbeat for group " + config.groupId() + " answered TOPIC_AUTHORIZATION_FAILED"
                + (brokerMessage == null || brokerMessage.isEmpty() ? "" : ": " + brokerMessage);
        Set<String> known = SubscribedTopicErrors.unauthorized(core.subscribedTopics(), io.cluster());
        if (!known.isEmpty() || core.pattern() != null) {
            fail(new TopicAuthorizationException(message, known));
            return;
        }
        io.refreshMetadata().subscribe(
                c -> onLoop(() -> fail(new TopicAuthorizationException(message,
                        SubscribedTopicErrors.unauthorized(core.subscribedTopics(), c)))),
                e -> onLoop(() -> fail(new TopicAuthorizationException(message, Set.of()))));
    }

    /** @return false when the member failed ({@link SubscribedTopicErrors}; as under the classic protocol) */
    private boolean failOnTopicErrors(Cluster cluster) {
        return core.pattern() != null || state().isTerminal()
                || topicErrorsPass(core.subscribedTopics(), cluster);
    }

    /**
     * Carries out the core's next reconciliation step: revoke what left the target, take what is new, acknowledge at
     * once (the coordinator waits for it to move partitions on); or refresh metadata for unknown topic ids.
     */
    private void reconcileIfNeeded() {
        ConsumerMembership.Step step = core.reconcile(io.cluster()::topicName);
        if (step instanceof ConsumerMembership.Idle) {
            return;
        }
        if (step instanceof ConsumerMembership.AwaitTopicIds await) {
            awaitTopicIds(await.unknown());
            return;
        }
        unknownIds.satisfied();
        if (!(step instanceof ConsumerMembership.Move move)) {
            return; // Settled
        }
        listenerCalls.drop(ListenerCalls.Drop.REVOKED, () -> move.move().revoked(), dropped -> {
            core.dropped(dropped);
            if (!core.take(move)) {
                return; // fenced, leaving or closed meanwhile: the new partitions are not taken
            }
            listenerCalls.assigned(move.move().added(), core.owned(), () -> {
                if (!core.current(move.flowEpoch())) {
                    return;
                }
                log.info("{}epoch {}: owns {}", logPrefix, core.epoch(), new TreeSet<>(core.owned().stream()
                        .map(TopicPartition::toString).toList()));
                core.acknowledge(move);
                heartbeatNow(); // acknowledge at once: the coordinator waits for it to move partitions on
            });
        });
    }

    /**
     * The assignment names topics by id that metadata does not know yet (e.g. just created): refresh, at once the
     * first time, then after {@code retry.backoff.ms} growing to {@code retry.backoff.max.ms}; each new snapshot
     * reconciles again.
     */
    private void awaitTopicIds(Set<UUID> unknown) {
        long delay = unknownIds.request();
        if (delay >= 0) {
            log.debug("{}assigned topic ids {} are not in metadata yet; refreshing in {} ms", logPrefix, unknown, delay);
        }
    }

    /**
     * No heartbeat answer for the broker's session timeout ({@code session.timeout.ms}, see {@link ConsumerGroupConfig}),
     * nor for as long again while the member held back its records and tried its coordinator ({@link SessionTimer}):
     * the coordinator has fenced this member and given its partitions to others, whether or not this member could hear
     * it. As if FENCED_MEMBER_EPOCH had come: the partitions are reported lost at once (not committed; the consumer
     * stops fetching and emitting them), and the member joins again with epoch 0 once a coordinator answers
     * (issue #15). The coordinator is looked up afresh: it may have moved meanwhile.
     */
    private void sessionExpired(String reason) {
        if (!core.sessionHeld()) {
            return;
        }
        coordinatorLost(null, "session expired: " + reason);
        fenced("session expired: " + reason);
    }

    /**
     * FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID / GROUP_ID_NOT_FOUND at an epoch: the partitions are gone; report them
     * lost, join again at epoch 0.
     */
    private void fenced(String why) {
        log.warn("{}fenced ({}); partitions {} are lost, joining again", logPrefix, why, core.owned());
        core.fenced();
        cancelHeartbeatTimer();
        listenerCalls.drop(ListenerCalls.Drop.LOST, core::owned, dropped -> {
            core.dropped(dropped);
            if (core.lostReported()) {
                heartbeatNow();
            }
        });
    }

    // ------------------------------------------------------------------------------------------------ leave

    /** @param stale true on a poll timeout (ends in STALE), false on {@code leave()} (ends in LEFT) */
    private void doLeave(String reason, MonoSink<Void> sink, boolean stale) {
        if (!core.phase().isActive()) {
            if (sink != null) {
                if (state() == ConsumerMemberState.LEAVING) {
                    awaitLeave(sink);
                } else {
                    sink.success();
                }
            }
            return;
        }
        if (sink != null) {
            awaitLeave(sink);
        }
        ConsumerMembership.Leave plan = core.leave(stale);
        cancelHeartbeatTimer();
        listenerCalls.drop(plan.lost() ? ListenerCalls.Drop.LOST : ListenerCalls.Drop.REVOKED, core::owned, dropped -> {
            core.dropped(dropped);
            Runnable done = () -> {
                core.leaveDone();
                leaveEnded();
            };
            CoordinatorChannel ch = link.current();
            if (ch == null || !plan.sendLeave() || !core.phase().isPreparingToLeave()) {
                log.info("{}leaving the group without a leave heartbeat (no coordinator or no membership)", logPrefix);
                done.run();
                return;
            }
            ConsumerGroupHeartbeatRequest leave = core.leaveSending();
            log.info("{}member {} leaves the group (epoch {}): {}", logPrefix, core.memberId(), leave.memberEpoch(),
                    reason);
            bestEffortLeave(ch.send(leave, config.requestTimeoutMs()), "leave heartbeat",
                    ConsumerGroupHeartbeatResponse::errorCode)
                    .subscribe(null, null, () -> onLoop(done));
        });
    }

    private KafkaProtocolException protocolError(Errors error, String message) {
        return BrokerErrors.of(error.code(), "ConsumerGroupHeartbeat for group " + config.groupId() + " answered " + error
                + (message == null || message.isEmpty() ? "" : ": " + message), null, config.groupId());
    }

    @Override
    public String toString() {
        return "ConsumerGroupMember[" + config.groupId() + ", " + state() + ", epoch " + core.epoch() + ", member '"
                + core.memberId() + "']";
    }
}
