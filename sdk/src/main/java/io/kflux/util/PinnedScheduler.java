package io.kflux.util;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.Scannable;
import reactor.core.scheduler.Scheduler;

/**
 * A Reactor scheduler of at most {@code cap} threads, each worker pinned to one of them: the guarantees kflux took
 * from Reactor's bounded-elastic scheduler (a worker's tasks run one at a time, in order, on one thread; a new worker
 * goes to the thread with the fewest workers; idle threads end after a time to live; the task queue is unbounded),
 * without its evictor thread. Each of the {@code cap} slots is a one-thread executor whose thread starts at its
 * first task and ends after {@code ttlSeconds} without one ({@link ThreadPoolExecutor#allowCoreThreadTimeOut}), so the
 * executor itself retires idle threads and nothing has to sweep them.
 *
 * <p>Only immediate tasks: delayed and periodic scheduling are refused ({@link RejectedExecutionException}), as kflux
 * schedules timers on {@code IoLoops.timers()}. After {@link #dispose()} every schedule call is refused, as with
 * Reactor's schedulers, and tasks not yet started are dropped.
 *
 * <p>A task that throws is logged at ERROR and the thread goes on (Reactor's schedulers report it to
 * {@code Schedulers.onHandleError}; kflux's tasks catch their own errors, so this is a last resort).
 */
public final class PinnedScheduler implements Scheduler, Scannable {
    private static final Logger log = LoggerFactory.getLogger(PinnedScheduler.class);

    private final Slot[] slots;
    private final String name;
    private final AtomicBoolean disposed = new AtomicBoolean();

    /**
     * @param threadPrefix the threads' names: {@code threadPrefix-N}, N counting every thread started
     * @param cap          the most threads at once, at least 1
     * @param ttlSeconds   how long a thread without a task lives on
     */
    public PinnedScheduler(String threadPrefix, int cap, int ttlSeconds) {
        if (cap < 1 || ttlSeconds < 1) {
            throw new IllegalArgumentException("cap and ttlSeconds must be at least 1: " + cap + ", " + ttlSeconds);
        }
        this.name = threadPrefix;
        AtomicLong started = new AtomicLong();
        ThreadFactory factory = task -> {
            Thread thread = new Thread(task, threadPrefix + "-" + started.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        slots = new Slot[cap];
        for (int i = 0; i < cap; i++) {
            slots[i] = new Slot(factory, ttlSeconds);
        }
    }

    /** A task of its own counts as a worker of its thread until it ran or was cancelled. */
    @Override
    public Disposable schedule(Runnable task) {
        if (disposed.get()) {
            throw new RejectedExecutionException(name + " is disposed");
        }
        Slot slot = leastBusy();
        slot.workers.incrementAndGet();
        try {
            return slot.run(task, null, slot.workers::decrementAndGet);
        } catch (RejectedExecutionException e) {
            slot.workers.decrementAndGet();
            throw e;
        }
    }

    @Override
    public Worker createWorker() {
        if (disposed.get()) {
            throw new RejectedExecutionException(name + " is disposed");
        }
        Slot slot = leastBusy();
        slot.workers.incrementAndGet();
        return new PinnedWorker(slot);
    }

    @Override
    public void dispose() {
        if (disposed.compareAndSet(false, true)) {
            for (Slot slot : slots) {
                slot.executor.shutdownNow();
            }
        }
    }

    @Override
    public boolean isDisposed() {
        return disposed.get();
    }

    /** Its name and thread cap, as Reactor's schedulers report theirs. */
    @Override
    public Object scanUnsafe(Attr key) {
        if (key == Attr.NAME) {
            return name;
        }
        if (key == Attr.CAPACITY) {
            return slots.length;
        }
        if (key == Attr.TERMINATED || key == Attr.CANCELLED) {
            return disposed.get();
        }
        return null;
    }

    @Override
    public String toString() {
        return "PinnedScheduler(" + name + ", " + slots.length + " threads)";
    }

    /** The slot with the fewest workers, the first of equals (so one worker alone always uses the first thread). */
    private Slot leastBusy() {
        Slot best = slots[0];
        for (int i = 1; i < slots.length; i++) {
            if (slots[i].workers.get() < best.workers.get()) {
                best = slots[i];
            }
        }
        return best;
    }

    /** One thread, started at its first task and retired by its executor after the time to live. */
    private static final class Slot {
        final ThreadPoolExecutor executor;
        final AtomicInteger workers = new AtomicInteger();

        Slot(ThreadFactory factory, int ttlSeconds) {
            executor = new ThreadPoolExecutor(1, 1, ttlSeconds, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), factory);
            executor.allowCoreThreadTimeOut(true);
        }

        /**
         * Runs {@code task} on this slot's thread; {@code tasks} (a worker's, or null) tracks it until it ran,
         * {@code ended} (or null) runs once when it ran or was cancelled.
         */
        Disposable run(Runnable task, Disposable.Composite tasks, Runnable ended) {
            Task wrapped = new Task(task, tasks, ended);
            if (tasks != null && !tasks.add(wrapped)) {
                throw new RejectedExecutionException("the worker is disposed");
            }
            try {
                executor.execute(wrapped);
            } catch (RejectedExecutionException e) {
                if (tasks != null) {
                    tasks.remove(wrapped);
                }
                throw e;
            }
            return wrapped;
        }
    }

    /** A task that can be cancelled before it runs. */
    private static final class Task implements Runnable, Disposable {
        private final Runnable task;
        private final Disposable.Composite owner;
        private final Runnable ended;
        private final AtomicBoolean done = new AtomicBoolean();

        Task(Runnable task, Disposable.Composite owner, Runnable ended) {
            this.task = task;
            this.owner = owner;
            this.ended = ended;
        }

        @Override
        public void run() {
            if (!done.compareAndSet(false, true)) {
                return; // cancelled
            }
            try {
                task.run();
            } catch (Throwable e) {
                log.error("a task on {} failed", Thread.currentThread().getName(), e);
            } finally {
                if (owner != null) {
                    owner.remove(this);
                }
                if (ended != null) {
                    ended.run();
                }
            }
        }

        /**
         * Before it ran: it will not run, and its worker forgets it at once (a long-lived worker whose queued tasks
         * are cancelled would otherwise hold them until it is disposed). While or after it ran: nothing.
         */
        @Override
        public void dispose() {
            if (done.compareAndSet(false, true)) {
                if (owner != null) {
                    owner.remove(this);
                }
                if (ended != null) {
                    ended.run();
                }
            }
        }

        @Override
        public boolean isDisposed() {
            return done.get();
        }
    }

    /**
     * A worker pinned to one slot: its tasks run in order on that slot's one thread. {@link Attr#BUFFERED}: its tasks
     * not yet run (and the one running).
     */
    private final class PinnedWorker implements Worker, Scannable {
        private final Slot slot;
        private final Disposable.Composite tasks = Disposables.composite();
        private final AtomicBoolean released = new AtomicBoolean();

        PinnedWorker(Slot slot) {
            this.slot = slot;
        }

        @Override
        public Disposable schedule(Runnable task) {
            if (disposed.get()) {
                throw new RejectedExecutionException(name + " is disposed");
            }
            return slot.run(task, tasks, null);
        }

        /** Also from one of its own tasks: that task finishes, the ones queued after it do not run. */
        @Override
        public void dispose() {
            if (released.compareAndSet(false, true)) {
                tasks.dispose();
                slot.workers.decrementAndGet();
            }
        }

        @Override
        public boolean isDisposed() {
            return tasks.isDisposed();
        }

        @Override
        public Object scanUnsafe(Attr key) {
            if (key == Attr.BUFFERED) {
                return tasks.size();
            }
            if (key == Attr.TERMINATED || key == Attr.CANCELLED) {
                return tasks.isDisposed();
            }
            return null;
        }
    }
}
