package io.kflux.group;

import io.kflux.FencedInstanceIdException;
import io.kflux.KafkaFluxException;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.SubscriptionWatch;
import io.kflux.protocol.Errors;
import io.kflux.util.Backoff;
import io.kflux.util.ClientMetrics;
import io.kflux.util.StateTransitions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;

/**
 * What both group members ({@link ClassicGroupMember}, {@link ConsumerGroupMember}) do the same way around their own
 * state enum: the state, moved only through checked transitions ({@link StateTransitions#check}) on the member's
 * loop and published for other threads; tasks run on the loop, where a bug fails the member instead of wedging it;
 * failing and closing (both end in {@link #cleanup()}); {@link #isStable()} and {@link #isOut()} from the states
 * each enum names for them ({@link States}); the metrics the protocol reports to; a poll timeout's entry (the warning,
 * then the member's own way out, {@link #leaveOnPollTimeout()}); the callers waiting for a leave; sending the leave
 * request best effort ({@link #bestEffortLeave}).
 *
 * @param <S> the member's state enum
 */
abstract class AbstractGroupMember<S extends Enum<S> & StateTransitions<S>> implements GroupMember {

    /**
     * The states the shared code needs by name.
     *
     * @param out     where a new member starts, and where it is after leaving or a poll timeout
     * @param stable  a settled member
     * @param leaving revoking everything before it leaves
     * @param failed  terminal, after {@link #fail}
     * @param closed  terminal, after {@link #close()}
     */
    /**
     * The states the shared code needs to know by role.
     *
     * @param initial  where a member starts (not started: out of the group)
     * @param unjoined every state in which the member is out of the group without leaving or being terminal
     *                 ({@code initial} included)
     */
    record States<S>(S initial, Set<S> unjoined, S stable, S leaving, S failed, S closed) {
    }

    private final Logger log;
    final GroupIo io;
    final CoordinatorManager coordinators;
    final Executor loop;
    final GroupListener listener;
    final Scheduler scheduler;
    final Backoff backoff;
    final String logPrefix;
    private final String groupId;
    private final String groupInstanceId;
    private final States<S> states;

    // Published for other threads; written only on the loop.
    private volatile S state;

    private ClientMetrics metrics = ClientMetrics.NONE;
    /** Callers of {@code leave()} waiting for the leave under way to end (loop-only). */
    private final List<MonoSink<Void>> leaveWaiters = new ArrayList<>();

    /**
     * @param log    the member's logger (log lines keep its name)
     * @param states the member's enum's states the shared code moves to or checks for
     */
    AbstractGroupMember(Logger log, String groupId, String groupInstanceId, Backoff backoff, GroupIo io,
                        CoordinatorManager coordinators, Executor loop, GroupListener listener, Scheduler scheduler,
                        States<S> states) {
        this.log = log;
        this.io = Objects.requireNonNull(io, "io");
        this.coordinators = Objects.requireNonNull(coordinators, "coordinators");
        this.loop = Objects.requireNonNull(loop, "loop");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.backoff = backoff;
        this.logPrefix = "[group " + groupId + (groupInstanceId == null ? "" : ", instance " + groupInstanceId) + "] ";
        this.groupId = groupId;
        this.groupInstanceId = groupInstanceId;
        this.states = states;
        this.state = states.initial();
    }

    /** Stops every loop and timer of the member and abandons what is in flight; the member is terminal already. */
    abstract void cleanup();

    /** Whether the member takes part in the group, so a poll timeout takes it out; on the loop. */
    abstract boolean active();

    /** {@code max.poll.interval.ms}, ms: named in the poll timeout's warning. */
    abstract int maxPollIntervalMs();

    /** {@code max.poll.interval.ms} expired while {@link #active()}: leave into STALE, partitions lost; on the loop. */
    abstract void leaveOnPollTimeout();

    /** Called on the loop after every move into {@code next}; nothing by default. */
    void entered(S next) {
    }

    /**
     * Stops every loop and timer and abandons requests in flight, without leaving the group (see {@link #leave}) and
     * without listener calls. Connections and the coordinator manager belong to the consumer and stay open.
     * Idempotent.
     */
    @Override
    public void close() {
        onLoop(() -> {
            if (terminal()) {
                return;
            }
            transitionTo(states.closed());
            cleanup();
            leaveEnded();
        });
    }

    /**
     * {@code max.poll.interval.ms} expired: records were emitted but downstream has not asked for more for that long.
     * An active member leaves the group until {@link #pollResumed()}, as the official client does (its
     * {@code MemberState.STALE}); how it leaves is the protocol's ({@link #leaveOnPollTimeout()}).
     */
    @Override
    public final void pollTimeoutExpired() {
        onLoop(() -> {
            if (!active()) {
                return;
            }
            log.warn("{}{} This means downstream did not request more records within max.poll.interval.ms ({} ms) "
                    + "after records were emitted; leaving the group until demand returns.", logPrefix,
                    ClassicGroupMember.POLL_TIMEOUT_REASON, maxPollIntervalMs());
            leaveOnPollTimeout();
        });
    }

    /** {@code sink} completes when the leave under way ends, or the member stops; on the loop. */
    void awaitLeave(MonoSink<Void> sink) {
        leaveWaiters.add(sink);
    }

    /** The leave under way ended, or the member stopped: every caller waiting for it goes on; on the loop. */
    void leaveEnded() {
        List<MonoSink<Void>> waiters = new ArrayList<>(leaveWaiters);
        leaveWaiters.clear();
        waiters.forEach(MonoSink::success);
    }

    /**
     * A leave request is best effort (the coordinator's session timeout removes a member it did not hear leave): an
     * error in the answer or a failure is logged, and the returned Mono completes empty either way.
     *
     * @param what      the request, for the log ("LeaveGroup", "leave heartbeat")
     * @param errorCode the answer's error code
     */
    <R> Mono<Void> bestEffortLeave(Mono<R> sent, String what, ToIntFunction<R> errorCode) {
        return sent.doOnNext(r -> {
                    int code = errorCode.applyAsInt(r);
                    if (code != 0) {
                        log.warn("{}{} answered {}", logPrefix, what, Errors.nameOf((short) code));
                    }
                })
                .onErrorResume(e -> {
                    log.warn("{}{} failed: {}", logPrefix, what, e.toString());
                    return Mono.empty();
                })
                .then();
    }

    /** Where the member is; any thread. */
    public S state() {
        return state;
    }

    @Override
    public String stateName() {
        return state.name();
    }

    @Override
    public void metrics(ClientMetrics clientMetrics) {
        this.metrics = Objects.requireNonNull(clientMetrics, "clientMetrics");
    }

    ClientMetrics metrics() {
        return metrics;
    }

    /** Runs {@code task} on the loop; a bug in it makes the member fail rather than wedge. */
    void onLoop(Runnable task) {
        loop.execute(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                fail(new KafkaFluxException("group member failed unexpectedly: " + e, e));
            }
        });
    }

    /** Runs {@code task} on the loop after {@code delayMs}. */
    Disposable schedule(long delayMs, Runnable task) {
        return scheduler.schedule(() -> onLoop(task), delayMs, TimeUnit.MILLISECONDS);
    }

    /**
     * The member's watch for something it needs that metadata does not show yet (a subscribed topic, an assigned
     * topic id): refreshes on the member's loop and clock, the first at once, then after {@code retry.backoff.ms}
     * growing to {@code retry.backoff.max.ms}, as the official client asks again for unknown topics.
     */
    SubscriptionWatch subscriptionWatch(BooleanSupplier active, Consumer<Cluster> onSnapshot,
                                        Consumer<Throwable> onFailure) {
        return new SubscriptionWatch(this::onLoop, scheduler, io::refreshMetadata, backoff::delayMs, active, onSnapshot,
                onFailure);
    }

    /**
     * Ends the member through {@link #fail} when metadata answers a subscribed topic with an error no wait mends
     * ({@link SubscribedTopicErrors}), under either protocol.
     *
     * @param byName the topics subscribed to by name (a pattern only matches topics without errors)
     * @return true when none has such an error (the member goes on)
     */
    boolean topicErrorsPass(Collection<String> byName, Cluster cluster) {
        return SubscribedTopicErrors.pass(byName, cluster, groupId, this::fail);
    }

    /**
     * FENCED_INSTANCE_ID (KIP-345): another consumer joined with this member's {@code group.instance.id}; the member
     * ends with this error under either protocol.
     *
     * @param request the request that was answered so ("JoinGroup", "ConsumerGroupHeartbeat", ...)
     */
    FencedInstanceIdException fencedInstance(String request) {
        return new FencedInstanceIdException(groupInstanceId, request + " for group " + groupId
                + " answered FENCED_INSTANCE_ID: another consumer joined with group.instance.id '" + groupInstanceId
                + "'");
    }

    /** Moves to {@code next}; staying where the member is is no move. */
    void transitionTo(S next) {
        S from = state;
        if (from == next) {
            return;
        }
        state = StateTransitions.check(from, next);
        log.debug("{}state {} -> {}", logPrefix, from, next);
        entered(next);
    }

    /** True in the states that never change again. */
    boolean terminal() {
        S s = state;
        return s == states.failed() || s == states.closed();
    }

    @Override
    public boolean isStable() {
        return state == states.stable();
    }

    @Override
    public boolean isOut() {
        S s = state;
        return states.unjoined().contains(s) || s == states.leaving() || s == states.failed() || s == states.closed();
    }

    /** Ends the member on an error it cannot recover from and tells the listener, once. */
    void fail(Throwable error) {
        if (terminal()) {
            return;
        }
        log.error("{}group member stops: {}", logPrefix, error.toString());
        transitionTo(states.failed());
        cleanup();
        leaveEnded();
        try {
            listener.onFatalError(error);
        } catch (RuntimeException e) {
            log.warn("{}onFatalError threw", logPrefix, e);
        }
    }
}
