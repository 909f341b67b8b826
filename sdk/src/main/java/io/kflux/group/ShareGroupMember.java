package io.kflux.group;

import io.kflux.KafkaFluxException;
import io.kflux.TopicPartition;
import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.SubscriptionWatch;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.message.ShareGroupHeartbeatRequest;
import io.kflux.util.Backoff;
import io.kflux.network.IoLoops;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * Drives a {@link ShareMemberCore} (KIP-932 share group member) on the consumer's loop: sends the heartbeats it asks
 * for over the group's coordinator connection ({@link CoordinatorManager} through a {@link CoordinatorLink}, shared
 * with the consumer group members), runs its timer on the injected clock, refreshes metadata for assigned topic ids
 * it does not know ({@link SubscriptionWatch}) and tells the share consumer each new assignment and a fatal error.
 * Its session is timed by the {@link SessionTimer} the consumer group members use: heartbeat answers confirm it, and
 * none for the session timeout and as long again ends it here ({@link ShareMemberCore#sessionExpired}: the assignment
 * is lost, the member joins again with epoch 0). Every core call and every action runs on the loop.
 */
public final class ShareGroupMember {
    private static final Logger log = LoggerFactory.getLogger(ShareGroupMember.class);

    /** What the member tells the share consumer, always on the loop. */
    public interface Listener {
        /**
         * The member's whole assignment is now {@code partitions}, each with its topic id (empty: none).
         *
         * @param lost whether the coordinator took the previous assignment away (fenced, or the session expired): the
         *             records acquired on it are not this member's any more
         */
        void onAssignment(Map<TopicPartition, UUID> partitions, boolean lost);

        /** The member stopped on an error no retry mends (authorization, unsupported broker, ...). */
        void onFatalError(KafkaFluxException error);
    }

    private final ShareMemberCore core;
    private final GroupIo io;
    private final Executor loop;
    private final Scheduler clock;
    private final Listener listener;
    private final long requestTimeoutMs;
    private final String logPrefix;
    private final CoordinatorLink link;
    private final SubscriptionWatch unknownIds;
    private final Sinks.Empty<Void> left = Sinks.empty();
    private final List<String> topics;
    private final io.kflux.util.WakeTimer timer;
    /** The session as this member can know it: heartbeat answers confirm it; none for the session timeout ends it. */
    private final SessionTimer session;
    private Disposable heartbeatCall;
    private Disposable metadataWatch;

    /**
     * @param groupId          the share group
     * @param topics           the subscribed topic names
     * @param rackId           {@code client.rack}, or null
     * @param coordinators     the consumer's coordinator manager for {@code groupId}
     * @param loop             the consumer's event loop; tasks must not block
     * @param requestTimeoutMs how long a heartbeat answer may take
     * @param sessionTimeoutMs the broker's session timeout for the group ({@code group.share.session.timeout.ms},
     *                         which KIP-932 does not send to the client; the consumer's {@code session.timeout.ms}
     *                         stands for it, as for KIP-848 members): after this long without an answer, and as long
     *                         again, the member treats its assignment as lost
     */
    public ShareGroupMember(String groupId, List<String> topics, String rackId, Backoff backoff,
                            NodeConnections connections, MetadataManager metadata, CoordinatorManager coordinators,
                            Executor loop, long requestTimeoutMs, long sessionTimeoutMs, Listener listener) {
        this(groupId, topics, rackId, backoff, new NetworkGroupIo(connections, metadata), coordinators, loop,
                IoLoops.timers(), requestTimeoutMs, sessionTimeoutMs, listener);
    }

    ShareGroupMember(String groupId, List<String> topics, String rackId, Backoff backoff, GroupIo io,
                     CoordinatorManager coordinators, Executor loop, Scheduler clock, long requestTimeoutMs,
                     long sessionTimeoutMs, Listener listener) {
        // KIP-932: the client chooses its member id, in the form KIP-1082 gives consumer group members
        this.core = new ShareMemberCore(groupId, ConsumerGroupMember.newMemberId(), topics, rackId, backoff);
        this.io = io;
        this.loop = loop;
        this.clock = clock;
        this.topics = List.copyOf(topics);
        this.listener = Objects.requireNonNull(listener, "listener");
        this.requestTimeoutMs = requestTimeoutMs;
        this.logPrefix = "[share group " + groupId + "] ";
        this.link = new CoordinatorLink(coordinators, this::onLoop, logPrefix,
                ch -> apply(core.coordinatorFound(now())),
                e -> apply(List.of(new ShareMemberCore.Fail(e instanceof KafkaFluxException k ? k
                        : new KafkaFluxException("share group coordinator lookup failed: " + e, e)))),
                (ch, reason) -> {
                    cancelCall();
                    apply(core.coordinatorLost(reason));
                });
        this.timer = new io.kflux.util.WakeTimer(clock, this::onLoop, () -> apply(core.tick(now())));
        // a share member holds back nothing while its session is in doubt: a record emitted from a session that turns
        // out to be over is delivered again to another member (at least once), and its acknowledgement fails typed
        this.session = new SessionTimer(sessionTimeoutMs, this::now,
                (delayMs, task) -> clock.schedule(() -> onLoop(task), delayMs, TimeUnit.MILLISECONDS),
                core::sessionHeld, () -> false,
                doubt -> log.info("{}session {}", logPrefix, doubt ? "in doubt: no heartbeat answer for the session "
                        + "timeout" : "no longer in doubt"),
                this::sessionExpired);
        this.unknownIds = new SubscriptionWatch(this::onLoop, clock, io::refreshMetadata, backoff::delayMs,
                () -> !core.state().isTerminal(), c -> apply(core.metadata(c::topicName)),
                e -> apply(core.metadata(io.cluster()::topicName)));
    }

    /** The member id this member chose (KIP-932: the client generates it). */
    public String memberId() {
        return core.memberId();
    }

    /** The member epoch the coordinator gave, 0 before it joined; read on the loop. */
    public int memberEpoch() {
        return core.epoch();
    }

    /** Starts joining; the listener hears of assignments from here on. */
    public void start() {
        onLoop(() -> {
            link.start();
            io.interest(java.util.Set.copyOf(topics), false);
            metadataWatch = io.metadataUpdates().subscribe(c -> onLoop(() -> apply(core.metadata(c::topicName))));
            apply(core.start(now()));
        });
    }

    /**
     * Leaves the group (heartbeat with epoch -1) and stops.
     *
     * @return completes when the coordinator answered the leave, or it could not be sent; never fails
     */
    public Mono<Void> leave() {
        onLoop(() -> apply(core.leave(now())));
        return left.asMono();
    }

    private void apply(List<ShareMemberCore.Action> actions) {
        for (ShareMemberCore.Action a : actions) {
            if (a instanceof ShareMemberCore.Send send) {
                send(send.request());
            } else if (a instanceof ShareMemberCore.Assign assign) {
                unknownIds.satisfied();
                listener.onAssignment(assign.partitions(), assign.lost());
            } else if (a instanceof ShareMemberCore.FindCoordinator) {
                link.ensure();
            } else if (a instanceof ShareMemberCore.AwaitTopicIds wait) {
                log.debug("{}assigned topic ids {} not in metadata yet", logPrefix, wait.unknown());
                unknownIds.request();
            } else if (a instanceof ShareMemberCore.Fail fail) {
                log.error("{}share member stops: {}", logPrefix, fail.error().toString());
                stop();
                listener.onFatalError(fail.error());
            } else if (a instanceof ShareMemberCore.Left) {
                log.info("{}left the share group", logPrefix);
                stop();
            }
        }
        timer.at(core.wakeAtMs());
    }

    private void send(ShareGroupHeartbeatRequest request) {
        CoordinatorChannel ch = link.current();
        if (request.memberEpoch() == ShareGroupHeartbeatRequest.JOIN_EPOCH) {
            log.debug("{}joining as {}", logPrefix, request.memberId());
        }
        long sentAtMs = now();
        heartbeatCall = ch.send(request, requestTimeoutMs).subscribe(
                r -> onLoop(() -> {
                    if (link.current() == ch) {
                        heartbeatCall = null;
                        boolean current = request.memberEpoch() == core.epoch();
                        apply(core.answered(request, r, now(), io.cluster()::topicName));
                        if (current && r.errorCode() == 0) {
                            session.confirmed(sentAtMs); // after the epoch: a first answer confirms the new session
                        }
                    }
                }),
                e -> onLoop(() -> {
                    if (link.current() == ch) {
                        heartbeatCall = null;
                        apply(core.failed(e, now()));
                    }
                }));
    }

    /**
     * No heartbeat answer for the session timeout nor for as long again ({@link SessionTimer}): the coordinator has
     * removed this member and released what it acquired, whether or not it could say so. The coordinator is looked up
     * afresh (it may have moved), the assignment is dropped as lost and the member joins again with epoch 0.
     */
    private void sessionExpired(String reason) {
        if (!core.sessionHeld()) {
            return;
        }
        log.warn("{}session expired ({}); assignment {} is lost, joining again", logPrefix, reason,
                core.assigned().keySet());
        link.lose(null, "session expired: " + reason);
        apply(core.sessionExpired(now()));
    }

    private void stop() {
        session.stop(core.state() == ShareMemberState.FATAL);
        cancelCall();
        timer.cancel();
        link.cancel();
        unknownIds.cancel();
        if (metadataWatch != null) {
            metadataWatch.dispose();
        }
        left.tryEmitEmpty();
    }

    private void cancelCall() {
        if (heartbeatCall != null) {
            heartbeatCall.dispose();
            heartbeatCall = null;
        }
    }

    private long now() {
        return clock.now(TimeUnit.MILLISECONDS);
    }

    private void onLoop(Runnable task) {
        loop.execute(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.error("{}share member failed unexpectedly", logPrefix, e);
                stop();
                listener.onFatalError(new KafkaFluxException("share group member failed unexpectedly: " + e, e));
            }
        });
    }
}
