package io.kflux.share;

import io.kflux.KafkaFluxException;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The acknowledgement waiters a broker answer (or a failure) settles, completed in one pass on the fetcher's loop.
 *
 * <p>Why a pass and not a loop over each partition's waiters: the usual subscriber is
 * {@code flatMap(r -> r.accept(), n)}, and Reactor's {@code flatMap} walks all of its up to {@code n} inner
 * subscribers each time one of them completes while it is not draining already, so N confirmations completed one
 * after another cost N walks (57 % of the JVM's CPU in the explicit-accept benchmark at n = 1,024, JFR). Such a walk
 * asks the consumer for more records ({@code request}, which reaches {@link ShareFetcher#wake}) from inside itself;
 * {@link #help} then completes the rest of the pass right there, on the same thread, so each of those completions
 * only marks the {@code flatMap} to drain again and the N confirmations cost two walks. Nothing changes for any other
 * subscriber: every waiter is completed once, in the order added, on the loop's thread, before the pass returns.
 *
 * <p>Loop-only, except {@link #help}, which any thread may call (it does nothing outside a pass on its own thread).
 */
final class AckCompletions {
    /** One partition's waiters and the outcome they all hear (null: confirmed); {@code next} is the next to complete. */
    private static final class Outcome {
        final List<ShareBroker.Waiter> waiters;
        final KafkaFluxException error;
        int next;

        Outcome(List<ShareBroker.Waiter> waiters, KafkaFluxException error) {
            this.waiters = waiters;
            this.error = error;
        }
    }

    private final ArrayDeque<Outcome> queue = new ArrayDeque<>();
    /** The thread running {@link #run}, null outside a pass. */
    private volatile Thread runner;
    /** {@link #help} is completing on the runner's thread: a request from deeper down adds nothing. */
    private boolean helping;

    /** Queues {@code waiters} to hear {@code error} (null: confirmed) in the next {@link #run}. Loop only. */
    void add(List<ShareBroker.Waiter> waiters, KafkaFluxException error) {
        if (!waiters.isEmpty()) {
            queue.add(new Outcome(waiters, error));
        }
    }

    /** Completes every queued waiter. Loop only. */
    void run() {
        if (runner == Thread.currentThread()) {
            completeQueued(); // reached again from a completion's own code: the pass goes on here
            return;
        }
        runner = Thread.currentThread();
        try {
            completeQueued();
        } finally {
            runner = null;
        }
    }

    /**
     * A subscriber asked for more records: if that happens inside a pass on this thread (from within a completion),
     * completes the rest of the pass now. Any thread; does nothing otherwise.
     */
    void help() {
        if (runner != Thread.currentThread() || helping) {
            return;
        }
        helping = true;
        try {
            completeQueued();
        } finally {
            helping = false;
        }
    }

    /** Safe to re-enter: each waiter is taken (its index advanced) before it is completed. */
    private void completeQueued() {
        Outcome o;
        while ((o = queue.peek()) != null) {
            if (o.next >= o.waiters.size()) {
                queue.poll();
                continue;
            }
            ShareBroker.complete(o.waiters.get(o.next++), o.error);
        }
    }
}
