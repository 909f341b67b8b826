package io.kflux.util;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import reactor.core.scheduler.Scheduler;

/**
 * A JVM-wide scheduler that kflux owns: a {@link PinnedScheduler} with a fixed thread cap (each worker pinned to one
 * thread, as with Reactor's bounded-elastic scheduler, but with no evictor thread: issue #27), daemon threads named
 * {@code prefix-N} that end after {@value #TTL_SECONDS} s unused, and an unbounded task queue (a refused task would
 * leave kflux work without a thread; what kflux queues is bounded by its consumers and connections). Created on first
 * use. It is not one of Reactor's cached schedulers, so {@code Schedulers.shutdownNow()} leaves it alone; should
 * it be disposed all the same, the next {@link #get()} makes a new one.
 *
 * <p>kflux's threads beyond its I/O loops come only from instances of this class, each capped at a small multiple of
 * the I/O loops: that is what keeps kflux's thread count independent of the number of consumers and of the core
 * count's factor of 10 that {@code boundedElastic} applies (issue #17).
 */
public final class SharedScheduler {
    /** How long a thread without work lives on (Reactor's default for {@code boundedElastic}). */
    public static final int TTL_SECONDS = 60;

    private final String threadPrefix;
    private final IntSupplier threadCap;
    private final AtomicReference<Scheduler> current = new AtomicReference<>();

    /**
     * @param threadPrefix the threads' name prefix
     * @param threadCap    the most threads at once, read at each creation
     */
    public SharedScheduler(String threadPrefix, IntSupplier threadCap) {
        this.threadPrefix = threadPrefix;
        this.threadCap = threadCap;
    }

    /** A new scheduler as {@link #get()} makes it (tests). */
    public Scheduler create() {
        return new PinnedScheduler(threadPrefix, threadCap.getAsInt(), TTL_SECONDS);
    }

    /** The shared scheduler, created on first use and again if it was disposed. Never dispose it. */
    public Scheduler get() {
        for (;;) {
            Scheduler scheduler = current.get();
            if (scheduler != null && !scheduler.isDisposed()) {
                return scheduler;
            }
            Scheduler created = create();
            if (current.compareAndSet(scheduler, created)) {
                return created;
            }
            created.dispose(); // another thread won; this one never ran a task
        }
    }
}
