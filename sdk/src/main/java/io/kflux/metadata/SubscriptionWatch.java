package io.kflux.metadata;

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
 * <p>Not thread-safe: every method runs on the owner's event loop, and the answers come back through it.
 */
public final class SubscriptionWatch {
    private final Executor loop;
    private final Scheduler clock;
    private final Supplier<Mono<Cluster>> refresh;
    private final IntToLongFunction gapMs;
    private final BooleanSupplier active;
    private final Consumer<Cluster> onSnapshot;
    private final Consumer<Throwable> onFailure;

    /** Bumped by each refresh and by {@link #cancel()}: an answer or timer of an older one is ignored. */
    private long attempt;
    /** A refresh is scheduled or out. */
    private boolean pending;
    private Disposable timerOrCall;
    /** Refreshes since the owner was last {@link #satisfied()}. */
    private int refreshes;
    /** On the clock (ns): when the last refresh went out, once {@link #sentOnce}. */
    private long lastNanos;
    private boolean sentOnce;

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
        if (pending || !active.getAsBoolean()) {
            return -1;
        }
        long delayMs = 0;
        if (refreshes > 0 && sentOnce) {
            long leftNanos = TimeUnit.MILLISECONDS.toNanos(gapMs.applyAsLong(refreshes))
                    - (clock.now(TimeUnit.NANOSECONDS) - lastNanos);
            delayMs = leftNanos <= 0 ? 0 : (leftNanos + 999_999L) / 1_000_000L; // never sooner than the gap
        }
        if (refreshes < Integer.MAX_VALUE) {
            refreshes++;
        }
        pending = true;
        long id = ++attempt;
        if (delayMs == 0) {
            send(id);
        } else {
            timerOrCall = clock.schedule(() -> loop.execute(() -> {
                if (id == attempt && pending) {
                    send(id);
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
        return pending;
    }

    /** Drops the refresh scheduled or out (its answer reaches no one); later requests are served again. */
    public void cancel() {
        attempt++;
        pending = false;
        Disposable d = timerOrCall;
        timerOrCall = null;
        if (d != null) {
            d.dispose();
        }
    }

    private void send(long id) {
        if (!active.getAsBoolean()) {
            pending = false;
            return;
        }
        lastNanos = clock.now(TimeUnit.NANOSECONDS);
        sentOnce = true;
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
        if (id == attempt && pending) {
            timerOrCall = call; // the answer may have come on this thread already (then nothing is left to cancel)
        }
    }

    private boolean done(long id) {
        if (id != attempt || !pending) {
            return false;
        }
        pending = false;
        timerOrCall = null;
        return true;
    }
}
