package io.kflux.group;

import io.kflux.KafkaProtocolException;
import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import io.kflux.metadata.BrokerErrors;
import io.kflux.metadata.MetadataManager;
import io.kflux.network.BrokerConnection;
import io.kflux.network.NodeConnections;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.FindCoordinatorResponse;
import io.kflux.util.Backoff;
import io.kflux.util.LogContext;
import io.kflux.network.IoLoops;
import io.kflux.util.SerialExecutor;
import io.kflux.util.SharedAttempt;
import io.kflux.util.StateTransitions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;

/**
 * The one owner of a group's coordinator for a consumer: FindCoordinator (single-key or batched form by version),
 * the coordinator's own connection, its loss and rediscovery. The group member (either protocol) and the commit
 * layer (with or without membership) all get the coordinator here, so they agree on where it is, a loss seen by
 * one is seen by all, and every caller waiting meanwhile shares one lookup. States in {@link CoordinatorState}.
 *
 * <p><b>Errors.</b> One classification for everyone: a network failure, a malformed answer (e.g. a batched answer
 * without an entry for the group) and a retriable error code (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR,
 * COORDINATOR_LOAD_IN_PROGRESS, ...) are retried after {@code retry.backoff.ms}, doubling up to
 * {@code retry.backoff.max.ms}, for as long as someone waits: callers bound their wait with a timeout. A
 * non-retriable error code (e.g. GROUP_AUTHORIZATION_FAILED, INVALID_GROUP_ID) fails every waiter with
 * {@link KafkaProtocolException}, a broker without a usable FindCoordinator version with
 * {@link io.kflux.UnsupportedVersionException}; the next call asks again.
 *
 * <p><b>Threads.</b> Any thread may call; state changes run one at a time on an executor of the manager's own
 * ({@link SerialExecutor}, no thread). Lost-coordinator listeners are called on that executor and must hop to
 * their own loop.
 */
public final class CoordinatorManager {
    private static final Logger log = LoggerFactory.getLogger(CoordinatorManager.class);

    private final String groupId;
    private final CoordinatorIo io;
    private final Scheduler scheduler;
    private final Backoff backoff;
    private final SerialExecutor loop;
    private final List<Consumer<CoordinatorChannel>> lostListeners = new CopyOnWriteArrayList<>();

    // Published for other threads; written only on the loop.
    private volatile CoordinatorState state = CoordinatorState.UNKNOWN;
    private volatile CoordinatorChannel current;

    // Loop-only state.
    /** The lookup every caller waiting meanwhile shares; given up when none waits any more. */
    private final SharedAttempt<CoordinatorChannel> lookups = SharedAttempt.whileWanted();
    /** The shared lookup's outcome, while someone waits for it; retries go on only while it is set. */
    private MonoSink<CoordinatorChannel> seeker;
    private int failures;
    private Disposable lookup;
    private Disposable watch;

    /**
     * The manager for one consumer's group.
     *
     * @param groupId           {@code group.id}
     * @param connections       the consumer's connections; the coordinator gets one of its own per broker
     * @param metadata          where "any broker" for FindCoordinator comes from
     * @param retryBackoffMs    {@code retry.backoff.ms}
     * @param retryBackoffMaxMs {@code retry.backoff.max.ms}
     * @param logContext        the consumer's client.id and group.id, for the MDC of this manager's log lines
     */
    public static CoordinatorManager create(String groupId, NodeConnections connections, MetadataManager metadata,
                                            long retryBackoffMs, long retryBackoffMaxMs, LogContext logContext) {
        return new CoordinatorManager(groupId, new NetworkGroupIo(connections, metadata), IoLoops.timers(),
                retryBackoffMs, retryBackoffMaxMs, logContext);
    }

    CoordinatorManager(String groupId, CoordinatorIo io, Scheduler scheduler, long retryBackoffMs,
                       long retryBackoffMaxMs) {
        this(groupId, io, scheduler, retryBackoffMs, retryBackoffMaxMs, LogContext.NONE);
    }

    private CoordinatorManager(String groupId, CoordinatorIo io, Scheduler scheduler, long retryBackoffMs,
                               long retryBackoffMaxMs, LogContext logContext) {
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        this.io = Objects.requireNonNull(io, "io");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.backoff = new Backoff(retryBackoffMs, retryBackoffMaxMs);
        this.loop = new SerialExecutor(e -> log.error("[group {}] coordinator manager task failed", groupId, e),
                logContext);
    }

    /** {@code group.id}. */
    public String groupId() {
        return groupId;
    }

    /** Where the manager is; any thread. */
    public CoordinatorState state() {
        return state;
    }

    /**
     * The coordinator's connection, for OffsetCommit and OffsetFetch. Waits while the coordinator is being looked for
     * (and starts a lookup when none runs): bound it with a timeout.
     *
     * @return the connection; fails with {@link KafkaProtocolException} (non-retriable FindCoordinator error),
     * {@link io.kflux.UnsupportedVersionException}, or {@link IllegalStateException} after {@link #close()}
     */
    public Mono<BrokerConnection> connection() {
        return channel().flatMap(ch -> ch.connection() != null ? Mono.just(ch.connection())
                : Mono.error(new IllegalStateException("the coordinator channel has no broker connection")));
    }

    /** As {@link #connection()}, the channel the group member sends on. */
    Mono<CoordinatorChannel> channel() {
        return Mono.defer(() -> {
            CoordinatorChannel known = state == CoordinatorState.KNOWN ? current : null;
            return known != null ? Mono.just(known) : lookups.join(this::lookUp);
        });
    }

    /** The coordinator once found: the lookup the callers share ({@link #lookups}), on the loop. */
    private Mono<CoordinatorChannel> lookUp() {
        return Mono.create(sink -> {
            sink.onCancel(() -> loop.execute(() -> {
                if (seeker == sink) {
                    seeker = null; // nobody waits any more: the try out ends, no retry follows it
                }
            }));
            loop.execute(() -> seek(sink));
        });
    }

    private void seek(MonoSink<CoordinatorChannel> sink) {
        if (state == CoordinatorState.CLOSED) {
            sink.error(closed());
        } else if (state == CoordinatorState.KNOWN) {
            sink.success(current);
        } else {
            seeker = sink;
            if (state == CoordinatorState.UNKNOWN) {
                discover(); // DISCOVERING: the try already out (for callers who left) serves this one
            }
        }
    }

    private IllegalStateException closed() {
        return new IllegalStateException("the coordinator manager of group " + groupId + " is closed");
    }

    /** The coordinator's channel when one is known right now, else null; any thread. */
    CoordinatorChannel current() {
        return current;
    }

    /**
     * The coordinator answered NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE, its connection failed, or it stopped
     * answering: forget it (when it is still {@code gone}; null means whichever is current). The next
     * {@link #connection()} looks for it again; lost-coordinator listeners are told.
     */
    void markUnavailable(CoordinatorChannel gone, String reason) {
        loop.execute(() -> {
            CoordinatorChannel known = current;
            if (state != CoordinatorState.KNOWN || (gone != null && gone != known)) {
                return;
            }
            log.info("[group {}] coordinator (node {}) is unavailable: {}", groupId, known.nodeId(), reason);
            current = null;
            dispose(watch);
            watch = null;
            transitionTo(CoordinatorState.UNKNOWN);
            for (Consumer<CoordinatorChannel> l : lostListeners) {
                l.accept(known);
            }
        });
    }

    /** As {@link #markUnavailable(CoordinatorChannel, String)} for whichever coordinator is current. */
    public void markUnavailable(String reason) {
        markUnavailable(null, reason);
    }

    /**
     * Registers a listener told (on the manager's executor) of each coordinator that became unavailable, whoever
     * found out.
     *
     * @return disposing it removes the listener
     */
    Disposable onLost(Consumer<CoordinatorChannel> listener) {
        lostListeners.add(listener);
        return () -> lostListeners.remove(listener);
    }

    /** Stops looking, fails every waiter with {@link IllegalStateException}; the connections belong to the consumer. */
    public void close() {
        loop.execute(() -> {
            if (state == CoordinatorState.CLOSED) {
                return;
            }
            transitionTo(CoordinatorState.CLOSED);
            dispose(lookup);
            dispose(watch);
            lookup = watch = null;
            current = null;
            failSeeker(closed());
        });
        lookups.abandon(closed()); // a lookup asked for but not started yet
    }

    // ------------------------------------------------------------------------------------------------ the machine

    private void transitionTo(CoordinatorState next) {
        CoordinatorState from = state;
        state = StateTransitions.check(from, next);
        log.debug("[group {}] coordinator {} -> {}", groupId, from, next);
    }

    private void discover() {
        transitionTo(CoordinatorState.DISCOVERING);
        long delay = failures == 0 ? 0 : backoff.delayMs(failures);
        Mono<CoordinatorChannel> find = Mono.defer(() -> io.findCoordinator(groupId)).flatMap(answer -> {
            Errors error = Errors.forCode(answer.errorCode());
            if (error != Errors.NONE) {
                return Mono.error(new LookupFailed(error, answer));
            }
            return io.connectCoordinator(answer.nodeId(), answer.host(), answer.port());
        });
        if (delay > 0) {
            find = Mono.delay(Duration.ofMillis(delay), scheduler).then(find);
        }
        lookup = find.subscribe(ch -> loop.execute(() -> onFound(ch)), e -> loop.execute(() -> onFailed(e)));
    }

    private void onFound(CoordinatorChannel ch) {
        lookup = null;
        if (state != CoordinatorState.DISCOVERING) {
            return; // closed meanwhile
        }
        failures = 0;
        current = ch;
        transitionTo(CoordinatorState.KNOWN);
        log.info("[group {}] discovered group coordinator (node {})", groupId, ch.nodeId());
        watch = ch.onClose().subscribe(null, e -> markUnavailable(ch, "the coordinator connection failed: " + e),
                () -> markUnavailable(ch, "the coordinator connection closed"));
        MonoSink<CoordinatorChannel> found = seeker;
        seeker = null;
        if (found != null) {
            found.success(ch);
        }
    }

    private void onFailed(Throwable e) {
        lookup = null;
        if (state != CoordinatorState.DISCOVERING) {
            return;
        }
        RuntimeException fatal = null;
        if (e instanceof LookupFailed lf && !lf.error.retriable()) {
            // GROUP_AUTHORIZATION_FAILED becomes GroupAuthorizationException there (the ACLs refuse the group)
            fatal = BrokerErrors.of(lf.error.code(), "FindCoordinator for group " + groupId + " answered "
                    + lf.getMessage(), null, groupId);
        } else if (e instanceof UnsupportedVersionException) {
            fatal = new io.kflux.UnsupportedVersionException(e.getMessage(), e);
        }
        if (fatal != null) {
            failures = 0;
            transitionTo(CoordinatorState.UNKNOWN);
            failSeeker(fatal);
            return;
        }
        failures++;
        log.debug("[group {}] coordinator lookup failed ({}), retrying", groupId, e.toString());
        transitionTo(CoordinatorState.UNKNOWN);
        if (seeker != null) {
            discover(); // when nobody waits any more, the next caller starts again
        }
    }

    private void failSeeker(Throwable error) {
        MonoSink<CoordinatorChannel> failed = seeker;
        seeker = null;
        if (failed != null) {
            failed.error(error);
        }
    }

    private static void dispose(Disposable d) {
        if (d != null) {
            d.dispose();
        }
    }

    /** A FindCoordinator answer with an error code. */
    private static final class LookupFailed extends RuntimeException {
        final Errors error;

        LookupFailed(Errors error, FindCoordinatorResponse.Coordinator answer) {
            super(error + (answer.errorMessage() == null || answer.errorMessage().isEmpty() ? ""
                    : ": " + answer.errorMessage()), null, false, false);
            this.error = error;
        }
    }

    @Override
    public String toString() {
        CoordinatorChannel ch = current;
        return "CoordinatorManager[" + groupId + ", " + state + (ch == null ? "" : ", node " + ch.nodeId()) + "]";
    }
}
