package io.kflux.metadata;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntToLongFunction;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The one owner of "refresh metadata until what the consumer needs appears, with backoff": a topic subscribed to by
 * name that is not in metadata yet (classic member), an assigned topic id metadata does not know (KIP-848 member),
 * a partition without a known leader (fetcher). The owner says what it is waiting for; this says when the next
 * refresh goes out: the first one at once, each further one no sooner than {@code gapMs(n)} after the previous one
 * went out ({@code n} refreshes since the owner last saw what it waited for, {@link #satisfied()}). A request while
 * a refresh is scheduled or out is not dropped and not repeated: that refresh serves it. Without such a limit an
 * unknown topic or leader made every check ask again (a tight Metadata loop). The round trips themselves are
 * {@link MetadataManager}'s (concurrent ones share one); this is when an owner asks, on its own clock (virtual time
 * in tests).
 *
 * <p>Its state is one checked {@link Phase}: whether a refresh is scheduled or out, and whether one ever went out
 * (only then does a gap apply).
 *
 * <p>Not thread-safe: every method runs on the owner's event loop, and the answers come back through it.
 */
public final class SubscriptionWatch {
    /**
     * Where the watch is.
     *
     * <pre>
     * NEVER_SENT -> IN_FLIGHT                 (the first request goes at once)
     * IDLE -> IN_FLIGHT | SCHEDULED           (at once, or once the gap passed)
     * SCHEDULED -> IN_FLIGHT                  (the gap passed and the owner is still active)
     * SCHEDULED -> IDLE                       (cancelled, or the owner no longer active when its time came)
     * IN_FLIGHT -> IDLE                       (answered, failed, or cancelled)
     * </pre>
     */
    enum Phase implements StateTransitions<Phase> {
        /** No refresh ever went out: the next one goes at once, whatever the count. */
        NEVER_SENT,
        /** None scheduled or out; the last one went out at {@code lastNanos}. */
        IDLE,
        /** One waits for its gap to pass. */
        SCHEDULED,
        /** One is out. */
        IN_FLIGHT;

        private Set<Phase> previous;

        static {
            NEVER_SENT.previous = EnumSet.noneOf(Phase.class);
            IDLE.previous = EnumSet.of(SCHEDULED, IN_FLIGHT);
            SCHEDULED.previous = EnumSet.of(IDLE);
            IN_FLIGHT.previous = EnumSet.of(NEVER_SENT, IDLE, SCHEDULED);
        }

        @Override
        public Set<Phase> previousValidStates() {
            return previous;
        }
    }

    private final Executor loop;
    private final Scheduler clock;
    private final Supplier<Mono<Cluster>> refresh;
    private final IntToLongFunction gapMs;
    private final BooleanSupplier active;
    private final Consumer<Cluster> onSnapshot;
    private final Consumer<Throwable> onFailure;

    /** Bumped by each refresh and by {@link #cancel()}: an answer or timer of an older one is ignored. */
    private long attempt;
    private Phase phase = Phase.NEVER_SENT;
    private Disposable timerOrCall;
    /** Refreshes since the owner was last {@link #satisfied()}. */
    private int refreshes;
    /** On the clock (ns): when the last refresh went out, unless {@link Phase#NEVER_SENT}. */
    private long lastNanos;

    /**
     * @param loop       the owner's event loop; the timers and answers run there
     * @param clock      the owner's clock and timer source
     * @param refresh    one metadata round trip (e.g. {@code MetadataManager.refresh})
     * @param gapMs      the least time in ms between the {@code n}th refresh (n >= 1) since the owner was satisfied
     *                   and the one before it, e.g. {@code retry.backoff.ms} growing to {@code retry.backoff.max.ms}
     * @param active     whether a refresh is still wanted when its time comes (false once the owner closed or left)
     * @param onSnapshot the snapshot a refresh brought, on the loop: the owner checks again and asks again if needed
     * @param onFailure  a failed refresh, on the loop: the owner asks again if it still needs to (the gap applies)
     */
    public SubscriptionWatch(Executor loop, Scheduler clock, Supplier<Mono<Cluster>> refresh, IntToLongFunction gapMs,
                             BooleanSupplier active, Consumer<Cluster> onSnapshot, Consumer<Throwable> onFailure) {
        this.loop = loop;
        this.clock = clock;
        this.refresh = refresh;
        this.gapMs = gapMs;
        this.active = active;
        this.onSnapshot = onSnapshot;
        this.onFailure = onFailure;
    }

    /**
     * Something the owner needs is missing: a refresh goes out now, or once the gap since the previous one passed.
     *
     * @return the delay in ms before that refresh, or -1 when one is already scheduled or out (it serves this request)
     *         or the owner is not {@code active}
     */
    public long request() {
        if (pending() || !active.getAsBoolean()) {
            return -1;
        }
        long delayMs = 0;
        if (refreshes > 0 && phase == Phase.IDLE) {
            long leftNanos = TimeUnit.MILLISECONDS.toNanos(gapMs.applyAsLong(refreshes))
                    - (clock.now(TimeUnit.NANOSECONDS) - lastNanos);
            delayMs = leftNanos <= 0 ? 0 : (leftNanos + 999_999L) / 1_000_000L; // never sooner than the gap
        }
        if (refreshes < Integer.MAX_VALUE) {
            refreshes++;
        }
        long id = ++attempt;
        if (delayMs == 0) {
            send(id);
        } else {
            move(Phase.SCHEDULED);
            timerOrCall = clock.schedule(() -> loop.execute(() -> {
                if (id != attempt || phase != Phase.SCHEDULED) {
                    return;
                }
                if (active.getAsBoolean()) {
                    send(id);
                } else {
                    timerOrCall = null;
                    move(Phase.IDLE);
                }
            }), delayMs, TimeUnit.MILLISECONDS);
        }
        return delayMs;
    }

    /** What the owner waited for is there: the next {@link #request()} goes out at once. */
    public void satisfied() {
        refreshes = 0;
    }

    /** Refreshes since the owner was last satisfied, the one scheduled or out included (for its log lines). */
    public int refreshes() {
        return refreshes;
    }

    /** Whether a refresh is scheduled or out. */
    public boolean pending() {
        return phase == Phase.SCHEDULED || phase == Phase.IN_FLIGHT;
    }

    /** Where the watch is (tests). */
    Phase phase() {
        return phase;
    }

    /** Drops the refresh scheduled or out (its answer reaches no one); later requests are served again. */
    public void cancel() {
        attempt++;
        if (pending()) {
            move(Phase.IDLE);
        }
        Disposable d = timerOrCall;
        timerOrCall = null;
        if (d != null) {
            d.dispose();
        }
    }

    /** Sends refresh {@code id}; the caller checked that the owner is active. */
    private void send(long id) {
        move(Phase.IN_FLIGHT);
        lastNanos = clock.now(TimeUnit.NANOSECONDS);
        Disposable call = refresh.get().subscribe(
                c -> loop.execute(() -> {
                    if (done(id)) {
                        onSnapshot.accept(c);
                    }
                }),
                e -> loop.execute(() -> {
                    if (done(id)) {
                        onFailure.accept(e);
                    }
                }),
                () -> loop.execute(() -> {
                    if (done(id)) { // completed without a snapshot
                        onFailure.accept(new IllegalStateException("metadata refresh ended without a snapshot"));
                    }
                }));
        if (id == attempt && phase == Phase.IN_FLIGHT) {
            timerOrCall = call; // the answer may have come on this thread already (then nothing is left to cancel)
        }
    }

    private boolean done(long id) {
        if (id != attempt || phase != Phase.IN_FLIGHT) {
            return false;
        }
        move(Phase.IDLE);
        timerOrCall = null;
        return true;
    }

    private void move(Phase next) {
        phase = StateTransitions.check(phase, next);
    }
}
