package io.kflux.internal;

import io.kflux.network.IoLoops;
import io.kflux.util.SharedScheduler;
import reactor.core.scheduler.Scheduler;

/**
 * The one default scheduler every consumer in the JVM emits records on (deserializers and the subscriber's
 * {@code onNext} run there) unless {@code ConsumerOptions.withEmitScheduler} names another. Each subscription takes
 * one worker of it, pinned to one thread; threads are shared once there are more subscriptions than threads.
 *
 * <p><b>Why {@value #THREADS_PER_IO_LOOP} threads per I/O loop.</b> kflux's own work on these threads (decoding,
 * deserializing) is CPU work, and there are as many I/O loops as cores ({@link IoLoops#count()}), so one
 * thread per loop already keeps every core busy. The second covers subscribers that wait briefly in {@code onNext}
 * (a log appender, a contended lock): while one waits, another thread can use the core. More would add memory and
 * context switches, not throughput; a subscriber that really blocks needs a scheduler of its own (see
 * {@code withEmitScheduler}). Reactor's {@code boundedElastic}, used before, is sized for blocking work: 10 threads
 * per core, 160 on a 16-core machine. With this cap kflux's threads stay a small multiple of the I/O loops whatever
 * the core count and the number of consumers (issue #17).
 *
 * <p>Threads are named {@value #THREAD_PREFIX}{@code -N}, are daemons (never keep a JVM alive) and end after
 * {@value #TTL_SECONDS} s without a subscription pinned to them. The task queue is unbounded: a refused task would
 * leave an emitter without its drain, and each subscription queues at most one drain (its work-in-progress counter
 * allows no second) plus the release of its worker, so the queue is bounded by the number of subscriptions anyway.
 * Creation, and recreation after a disposal (subscriptions already running on the old one end with an error, see
 * {@code RecordEmitter}), are {@link SharedScheduler}'s.
 */
public final class EmitScheduler {
    /** The prefix of every default emit thread's name. */
    public static final String THREAD_PREFIX = "kflux-emit";
    /** Threads per I/O loop; see the class comment for why. */
    static final int THREADS_PER_IO_LOOP = 2;
    /** How long a thread no subscription uses lives on. */
    static final int TTL_SECONDS = SharedScheduler.TTL_SECONDS;

    private static final SharedScheduler SHARED = new SharedScheduler(THREAD_PREFIX, EmitScheduler::threadCap);

    private EmitScheduler() {
    }

    /**
     * The most threads the default emit scheduler runs at once.
     *
     * @return {@value #THREADS_PER_IO_LOOP} times {@link IoLoops#count()}
     */
    public static int threadCap() {
        return THREADS_PER_IO_LOOP * Math.max(1, IoLoops.count());
    }

    /** A new scheduler as {@link #shared()} makes it: capped, daemon threads, idle ones ending. */
    static Scheduler create() {
        return SHARED.create();
    }

    /** The JVM-wide default emit scheduler, created on first use and again if it was disposed. Never dispose it. */
    static Scheduler shared() {
        return SHARED.get();
    }
}
