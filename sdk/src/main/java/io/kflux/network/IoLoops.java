package io.kflux.network;

import reactor.netty.ReactorNetty;
import reactor.netty.resources.LoopResources;

/**
 * The one set of Netty event loops that every kflux connection in the JVM runs on. Sharing them
 * keeps a JVM with many consumers at a fixed number of I/O threads: one per available processor,
 * or {@code -Dreactor.netty.ioWorkerCount}. Threads are named {@code kflux-io-*}
 * and are daemons, so they never keep a JVM alive; they are never disposed.
 *
 * <p><b>Why one per core, not reactor-netty's default of at least 4.</b> Every loop of the group starts its thread
 * when the first connection is made (reactor-netty's colocation visits each loop), so the count is the thread
 * count, whether one consumer with two connections or 1,000 consumers use them. kflux's loops only move bytes
 * and split frames (records are decoded on the emit threads), so more loops than cores add threads, not
 * throughput; on a 2-core machine reactor-netty's minimum of 4 started 4 threads for one consumer (issue #27).
 *
 * <p>Nothing may block these threads: response callbacks run on them, so callers that do real work
 * with a response should move to their own scheduler.
 */
public final class IoLoops {
    /** The prefix of every kflux I/O thread's name. */
    public static final String THREAD_PREFIX = "kflux-io";

    private static final int COUNT = Math.max(1, Integer.getInteger(ReactorNetty.IO_WORKER_COUNT,
            Runtime.getRuntime().availableProcessors()));
    private static final LoopResources SHARED = LoopResources.create(THREAD_PREFIX, COUNT, true);

    private IoLoops() {
    }

    /**
     * How many event loops there are: the number of available processors when the class loaded, or
     * {@code -Dreactor.netty.ioWorkerCount}. Other thread pools of kflux are sized from it.
     *
     * @return the number of {@code kflux-io} threads there may be, at least 1
     */
    public static int count() {
        return COUNT;
    }

    /** The JVM-wide kflux event loops. */
    public static LoopResources shared() {
        return SHARED;
    }
}
