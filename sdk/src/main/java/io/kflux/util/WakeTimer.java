package io.kflux.util;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * One timer that follows a pure core's next wake-up: {@link #at} moves it (or leaves it when the time is the same),
 * and when it fires the task runs on the owner's loop. Owned by one loop; not thread-safe.
 */
public final class WakeTimer {
    private final Scheduler clock;
    private final Executor loop;
    private final Runnable task;
    private Disposable timer;
    private long atMs = Long.MAX_VALUE;

    /**
     * @param clock the owner's clock and timer source (ms)
     * @param loop  where {@code task} runs
     * @param task  what runs when the timer fires
     */
    public WakeTimer(Scheduler clock, Executor loop, Runnable task) {
        this.clock = clock;
        this.loop = loop;
        this.task = task;
    }

    /** Fires at {@code wakeAtMs} on the clock; {@link Long#MAX_VALUE} cancels. */
    public void at(long wakeAtMs) {
        if (wakeAtMs == atMs) {
            return;
        }
        cancel();
        atMs = wakeAtMs;
        if (wakeAtMs != Long.MAX_VALUE) {
            timer = clock.schedule(() -> loop.execute(() -> {
                timer = null;
                atMs = Long.MAX_VALUE;
                task.run();
            }), Math.max(0, wakeAtMs - clock.now(TimeUnit.MILLISECONDS)), TimeUnit.MILLISECONDS);
        }
    }

    /** Stops the timer. */
    public void cancel() {
        if (timer != null) {
            timer.dispose();
            timer = null;
        }
        atMs = Long.MAX_VALUE;
    }
}
