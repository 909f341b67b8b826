package io.kflux.network;

import reactor.netty.resources.LoopResources;

/**
 * The one set of Netty event loops that every kflux connection in the JVM runs on. Sharing them
 * keeps a JVM with many consumers at a fixed number of I/O threads (reactor-netty's default worker
 * count, tunable with {@code -Dreactor.netty.ioWorkerCount}). Threads are named {@code kflux-io-*}
 * and are daemons, so they never keep a JVM alive; they are never disposed.
 *
 * <p>Nothing may block these threads: response callbacks run on them, so callers that do real work
 * with a response should move to their own scheduler.
 */
public final class IoLoops {
    /** The prefix of every kflux I/O thread's name. */
    public static final String THREAD_PREFIX = "kflux-io";

    private static final LoopResources SHARED = LoopResources.create(THREAD_PREFIX, count(), true);

    private IoLoops() {
    }

    /**
     * How many event loops there are: reactor-netty's default worker count (the number of available processors, at
     * least 4), or {@code -Dreactor.netty.ioWorkerCount}. Other thread pools of kflux are sized from it.
     *
     * @return the number of {@code kflux-io} threads there may be, at least 1
     */
    public static int count() {
        return LoopResources.DEFAULT_IO_WORKER_COUNT;
    }

    /** The JVM-wide kflux event loops. */
    public static LoopResources shared() {
        return SHARED;
    }
}
