package io.kflux.network;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.ReactorNetty;
import reactor.netty.resources.LoopResources;

/**
 * The one set of Netty event loops that every kflux connection in the JVM runs on, and kflux's timers. Sharing them
 * keeps a JVM with many consumers at a fixed number of I/O threads: one per available processor,
 * or {@code -Dreactor.netty.ioWorkerCount}. Threads are named {@code kflux-io-*}
 * and are daemons, so they never keep a JVM alive; they are never disposed.
 *
 * <p><b>Why one per core, not reactor-netty's default of at least 4.</b> kflux's loops only move bytes and split
 * frames (records are decoded on the emit threads), so more loops than cores add threads, not throughput; on a
 * 2-core machine reactor-netty's minimum of 4 started 4 threads for one consumer (issue #27).
 *
 * <p><b>A home loop per consumer.</b> Every connection of one {@link NodeConnections} (one consumer's: bootstrap,
 * coordinator, every leader) runs on one loop, its {@link #home()}, handed out round-robin, so consumers spread
 * over the loops and a loop starts its thread only when a consumer makes it its home: one consumer starts one
 * I/O thread, not one per core. The group is therefore not reactor-netty's colocated one (its construction submits
 * a task to every loop, starting every thread, and it places a connection on the loop of the thread that opens it).
 * The cost: one consumer's Fetches to several brokers are read on one thread; as that thread only moves bytes and
 * splits frames, it is not the limit (DESIGN.md, "Threads").
 *
 * <p><b>Timers.</b> {@link #timers()} is kflux's timer source (deadlines, backoffs, intervals, timeouts): tasks run
 * on the calling thread's loop when it is one of these, else on the first loop, so kflux never starts Reactor's
 * global {@code parallel} scheduler for its own timers, and one consumer's timers share its home loop's thread.
 * Its {@code now} reads {@code System.nanoTime()}: Reactor's schedulers read the wall clock there, which steps (NTP,
 * a resumed VM), and a step back of an hour would postpone a session check by an hour; so it is good only for
 * differences, never as a timestamp. Tasks must be short and never block: they share the thread with the I/O
 * (kflux's timers only hand work to a consumer's serial loop).
 */
public final class IoLoops {
    /** The prefix of every kflux I/O thread's name. */
    public static final String THREAD_PREFIX = "kflux-io";

    private static final int COUNT = Math.max(1, Integer.getInteger(ReactorNetty.IO_WORKER_COUNT,
            Runtime.getRuntime().availableProcessors()));
    /** Not colocated: see the class comment. Netty starts a loop's thread at its first task. */
    private static final LoopResources SHARED = LoopResources.create(THREAD_PREFIX, 1, COUNT, true, false);
    private static final EventLoop[] LOOPS = loopsOf(SHARED.onClient(true));
    private static final Scheduler[] TIMER_TARGETS = timerTargets(LOOPS);
    private static final AtomicInteger NEXT_HOME = new AtomicInteger();
    private static final Scheduler TIMERS = new Timers();

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

    /** The JVM-wide kflux event loops (connections opened on it go to any loop; a consumer uses {@link #home()}). */
    public static LoopResources shared() {
        return SHARED;
    }

    /**
     * The next home loop, round-robin over the loops: every connection opened with the returned resources runs on
     * that one loop.
     *
     * @return loop resources of one loop of the shared group; disposing them does nothing
     */
    public static LoopResources home() {
        EventLoop loop = LOOPS[Math.floorMod(NEXT_HOME.getAndIncrement(), LOOPS.length)];
        return new HomeLoop(loop);
    }

    /** kflux's timer source, on the I/O loops with a monotonic clock; see the class comment. Never dispose it. */
    public static Scheduler timers() {
        return TIMERS;
    }

    private static EventLoop[] loopsOf(EventLoopGroup group) {
        List<EventLoop> loops = new ArrayList<>();
        for (EventExecutor executor : group) {
            loops.add((EventLoop) executor);
        }
        return loops.toArray(new EventLoop[0]);
    }

    private static Scheduler[] timerTargets(EventLoop[] loops) {
        Scheduler[] targets = new Scheduler[loops.length];
        for (int i = 0; i < loops.length; i++) {
            targets[i] = Schedulers.fromExecutorService(loops[i], THREAD_PREFIX + "-timers-" + i);
        }
        return targets;
    }

    /**
     * Whether the calling thread is one of kflux's I/O loops: code that may run a user's function there (after a
     * timer fired) moves it elsewhere first, so that no user code holds up the loop's connections.
     */
    public static boolean inLoop() {
        return currentLoop() >= 0;
    }

    /** The index of the calling thread's loop when it is a kflux I/O thread, else -1. */
    private static int currentLoop() {
        for (int i = 0; i < LOOPS.length; i++) {
            if (LOOPS[i].inEventLoop()) {
                return i;
            }
        }
        return -1;
    }

    /** The loop of the calling thread when it is a kflux I/O thread, else the first loop's. */
    private static Scheduler timerTarget() {
        return TIMER_TARGETS[Math.max(0, currentLoop())];
    }

    /** One loop as loop resources: the group a {@code TcpClient.runOn} places every connection on. */
    private record HomeLoop(EventLoop loop) implements LoopResources {
        @Override
        public EventLoopGroup onServer(boolean useNative) {
            return loop;
        }

        @Override
        public boolean daemon() {
            return true;
        }

        /** The loop belongs to the shared group, which is never disposed. */
        @Override
        public void dispose() {
        }
    }

    /** {@link #timers()}: a monotonic clock over the loops. A worker stays on one loop, so its tasks run in order. */
    private static final class Timers implements Scheduler {
        @Override
        public long now(TimeUnit unit) {
            return unit.convert(System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public Disposable schedule(Runnable task) {
            return timerTarget().schedule(task);
        }

        @Override
        public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
            return timerTarget().schedule(task, delay, unit);
        }

        @Override
        public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
            return timerTarget().schedulePeriodically(task, initialDelay, period, unit);
        }

        @Override
        public Worker createWorker() {
            return timerTarget().createWorker();
        }

        /** The loops are never disposed, so neither is this view of them. */
        @Override
        public void dispose() {
        }

        @Override
        public String toString() {
            return "IoLoops.timers()";
        }
    }
}
