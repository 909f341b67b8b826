package io.kflux.fetch;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The consumer's event loop as the fetch classes share it: the clock and timers (the injected {@link Scheduler},
 * virtual time in tests), the timers still pending (disposed on close) and whether the fetcher is closed. Every
 * method but {@link #execute} runs on the loop.
 */
final class FetchLoop {
    private final Executor loop;
    private final Scheduler scheduler;
    private final Set<Disposable> timers = new HashSet<>();
    private boolean closed;

    FetchLoop(Executor loop, Scheduler scheduler) {
        this.loop = loop;
        this.scheduler = scheduler;
    }

    /** Now on the fetcher's clock, in ns (differences only: deadlines, leases, throttles). */
    long nowNanos() {
        return scheduler.now(TimeUnit.NANOSECONDS);
    }

    /** The clock and timer source, for timeouts of Monos. */
    Scheduler scheduler() {
        return scheduler;
    }

    /** Runs {@code task} on the loop (any thread). */
    void execute(Runnable task) {
        loop.execute(task);
    }

    /** Runs {@code task} on the loop after {@code delayMs}, unless the loop is closed first. */
    void schedule(long delayMs, Runnable task) {
        Disposable[] holder = new Disposable[1];
        holder[0] = Mono.delay(Duration.ofMillis(delayMs), scheduler).subscribe(v -> loop.execute(() -> {
            timers.remove(holder[0]);
            task.run();
        }));
        timers.add(holder[0]);
    }

    boolean isClosed() {
        return closed;
    }

    /** Closes the loop for the fetcher: pending timers are disposed, {@link #isClosed()} is true from now on. */
    void close() {
        closed = true;
        timers.forEach(Disposable::dispose);
        timers.clear();
    }
}
