package io.kflux.util;

import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One attempt at something every caller wants once (a metadata round trip, a connection), shared by the callers that
 * ask while it is in flight. The rules, the same for every owner:
 * <ul>
 *   <li>callers that {@link #join} while an attempt is in flight get its outcome; the first one to subscribe starts
 *       it (lazily, on the subscriber's thread, outside any lock of the owner's);</li>
 *   <li>a finished attempt is not cached: the slot is cleared before its outcome reaches any caller, so a caller that
 *       asks again from its {@code onNext} or {@code onError} starts a new attempt instead of being handed the same
 *       outcome again (an owner that keeps the result, such as an open connection, keeps it itself);</li>
 *   <li>the attempt is subscribed here, not by the callers: one caller that cancels does not cancel the others';</li>
 *   <li>{@link #abandon} (the owner closes) cancels the attempt and fails its callers;</li>
 *   <li>made {@link #whileWanted()}, the attempt is cancelled when its last subscribed caller cancels (a retry loop
 *       nobody waits for any more stops); a caller subscribing after that starts a new one.</li>
 * </ul>
 * Thread-safe.
 *
 * @param <T> what an attempt yields
 */
public final class SharedAttempt<T> {
    private final boolean onlyWhileWanted;
    private Attempt<T> current;

    /** Attempts that run to their end whether or not anyone still waits (the owner keeps what they bring). */
    public SharedAttempt() {
        this(false);
    }

    private SharedAttempt(boolean onlyWhileWanted) {
        this.onlyWhileWanted = onlyWhileWanted;
    }

    /** Attempts cancelled when the last caller subscribed to them cancels. */
    public static <T> SharedAttempt<T> whileWanted() {
        return new SharedAttempt<>(true);
    }

    /**
     * The outcome of the attempt in flight, or of a new one made by {@code start} (called once, when the first caller
     * subscribes). An attempt that completes empty completes its callers empty.
     */
    public Mono<T> join(Supplier<? extends Mono<? extends T>> start) {
        Attempt<T> a;
        synchronized (this) {
            if (current == null) {
                current = new Attempt<>(start);
            }
            a = current;
        }
        return Mono.defer(() -> {
            synchronized (this) {
                if (a.unwanted) {
                    return join(a.start); // its callers all left before this one came: start again
                }
                a.subscribers++;
            }
            launch(a);
            return onlyWhileWanted ? a.sink.asMono().doOnCancel(() -> release(a)) : a.sink.asMono();
        });
    }

    /** A caller of {@code a} cancelled: when it was the last one, {@code a} is cancelled too ({@link #whileWanted}). */
    private void release(Attempt<T> a) {
        Disposable subscription;
        synchronized (this) {
            if (--a.subscribers > 0 || a.finished || a.abandoned) {
                return;
            }
            a.abandoned = true;
            a.unwanted = true;
            if (current == a) {
                current = null;
            }
            subscription = a.subscription;
            a.subscription = null;
        }
        if (subscription != null) {
            subscription.dispose();
        }
    }

    /** Whether an attempt is in flight (asked for and not finished). */
    public synchronized boolean inFlight() {
        return current != null;
    }

    /** Cancels the attempt in flight, if any, and fails its callers with {@code error}. */
    public void abandon(Throwable error) {
        Attempt<T> a;
        Disposable subscription;
        synchronized (this) {
            a = current;
            if (a == null) {
                return;
            }
            current = null;
            a.abandoned = true;
            subscription = a.subscription;
            a.subscription = null;
        }
        if (subscription != null) {
            subscription.dispose();
        }
        a.sink.tryEmitError(error);
    }

    private void launch(Attempt<T> a) {
        synchronized (this) {
            if (a.started || a.abandoned) {
                return;
            }
            a.started = true;
        }
        Mono<? extends T> source;
        try {
            source = a.start.get();
        } catch (RuntimeException e) {
            source = Mono.error(e);
        }
        // An error arriving after the attempt was abandoned or cancelled goes nowhere, quietly: a hook on the error's
        // way (the connect's "refused authentication ends the consumer") may abandon the attempt before the error
        // reaches this subscriber, which Reactor would then report as dropped (an ERROR log for a handled failure).
        source = source.onErrorResume(e -> ended(a) ? Mono.empty() : Mono.error(e));
        Disposable subscription = source.subscribe(
                value -> {
                    if (finish(a)) {
                        a.sink.tryEmitValue(value);
                    }
                },
                error -> {
                    if (finish(a)) {
                        a.sink.tryEmitError(error);
                    }
                },
                () -> {
                    if (finish(a)) {
                        a.sink.tryEmitEmpty();
                    }
                });
        boolean dispose;
        synchronized (this) {
            dispose = a.abandoned; // abandon() ran before the subscription could be recorded
            if (!dispose && current == a) {
                a.subscription = subscription;
            }
        }
        if (dispose) {
            subscription.dispose();
        }
    }

    private synchronized boolean ended(Attempt<T> a) {
        return a.finished || a.abandoned;
    }

    /** @return whether {@code a} was still to be finished (a value is followed by completion; abandoned is done) */
    private boolean finish(Attempt<T> a) {
        synchronized (this) {
            if (a.finished || a.abandoned) {
                return false;
            }
            a.finished = true;
            a.subscription = null;
            if (current == a) {
                current = null;
            }
            return true;
        }
    }

    private static final class Attempt<T> {
        final Supplier<? extends Mono<? extends T>> start;
        final Sinks.One<T> sink = Sinks.one();
        boolean started;
        boolean finished;
        boolean abandoned;
        /** Abandoned because its last caller cancelled ({@link #whileWanted}). */
        boolean unwanted;
        int subscribers;
        Disposable subscription;

        Attempt(Supplier<? extends Mono<? extends T>> start) {
            this.start = start;
        }
    }
}
