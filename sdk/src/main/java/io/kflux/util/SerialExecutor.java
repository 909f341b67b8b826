package io.kflux.util;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A consumer's event loop: runs submitted tasks one at a time, in submission order, on whichever
 * thread submitted while no other task was running (no thread of its own, so a consumer costs no
 * thread). All mutable consumer state is touched only from tasks of one such executor, which is
 * why the state machines need no locks. Tasks must be short and never block: they run on Netty
 * event loops and timer threads.
 */
public final class SerialExecutor implements Executor {
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicInteger wip = new AtomicInteger();
    private final Consumer<Throwable> onTaskError;
    private final LogContext logContext;
    private final Runnable drain = this::drain;

    /** @param onTaskError told of any exception a task throws; the loop goes on with the next task */
    public SerialExecutor(Consumer<Throwable> onTaskError) {
        this(onTaskError, LogContext.NONE);
    }

    /**
     * @param onTaskError told of any exception a task throws; the loop goes on with the next task
     * @param logContext  set in the MDC while tasks run (once per drain, not per task)
     */
    public SerialExecutor(Consumer<Throwable> onTaskError, LogContext logContext) {
        this.onTaskError = onTaskError;
        this.logContext = logContext;
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        if (wip.getAndIncrement() != 0) {
            return;
        }
        logContext.run(drain);
    }

    private void drain() {
        int missed = 1;
        for (;;) {
            for (int i = 0; i < missed; i++) {
                Runnable next = tasks.poll();
                try {
                    next.run();
                } catch (Throwable t) {
                    onTaskError.accept(t);
                }
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }
}
