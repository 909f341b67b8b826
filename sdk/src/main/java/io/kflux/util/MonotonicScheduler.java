package io.kflux.util;

import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Reactor's parallel scheduler with a monotonic {@link #now}: kflux's deadlines (session expiry, throttles, backoffs,
 * read-replica leases) are measured with {@code scheduler.now(...)} so tests can drive them on virtual time, and
 * Reactor's schedulers read the wall clock there ({@code System.currentTimeMillis()}), which steps (NTP, a resumed
 * VM): a step back of an hour would postpone a session check by an hour. This one reads {@code System.nanoTime()}, so
 * its {@code now} is good only for differences, never as a timestamp. Tasks run on {@link Schedulers#parallel()},
 * looked up at each call (a test may reset Reactor's schedulers).
 */
public final class MonotonicScheduler implements Scheduler {
    private static final MonotonicScheduler PARALLEL = new MonotonicScheduler();

    private MonotonicScheduler() {
    }

    /** The shared instance over {@link Schedulers#parallel()}. */
    public static Scheduler parallel() {
        return PARALLEL;
    }

    @Override
    public long now(TimeUnit unit) {
        return unit.convert(System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public Disposable schedule(Runnable task) {
        return Schedulers.parallel().schedule(task);
    }

    @Override
    public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
        return Schedulers.parallel().schedule(task, delay, unit);
    }

    @Override
    public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
        return Schedulers.parallel().schedulePeriodically(task, initialDelay, period, unit);
    }

    @Override
    public Worker createWorker() {
        return Schedulers.parallel().createWorker();
    }

    /** Disposing the shared parallel scheduler is Reactor's business, not a user of this view's. */
    @Override
    public void dispose() {
    }

    @Override
    public String toString() {
        return "MonotonicScheduler(parallel)";
    }
}
