package io.kflux.compat.support;

import io.kflux.ConsumerRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * A subscriber whose demand the test drives ({@link #request}); received records queue up for
 * {@link #take}. Created with an initial demand (0 for none, Long.MAX_VALUE for unbounded).
 */
public final class RecordQueue<K, V> extends BaseSubscriber<ConsumerRecord<K, V>> {
    private final BlockingQueue<ConsumerRecord<K, V>> queue = new LinkedBlockingQueue<>();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final long initialDemand;
    private volatile Throwable error;
    private volatile boolean completed;

    private RecordQueue(long initialDemand) {
        this.initialDemand = initialDemand;
    }

    public static <K, V> RecordQueue<K, V> subscribe(Flux<ConsumerRecord<K, V>> records, long initialDemand) {
        RecordQueue<K, V> q = new RecordQueue<>(initialDemand);
        records.subscribe(q);
        return q;
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
        if (initialDemand > 0) {
            subscription.request(initialDemand);
        }
    }

    @Override
    protected void hookOnNext(ConsumerRecord<K, V> value) {
        queue.add(value);
    }

    @Override
    protected void hookOnError(Throwable throwable) {
        error = throwable;
        terminated.countDown();
    }

    @Override
    protected void hookOnComplete() {
        completed = true;
        terminated.countDown();
    }

    /** The next {@code n} records; fails if they do not arrive within {@code timeout}. */
    public List<ConsumerRecord<K, V>> take(int n, Duration timeout) throws InterruptedException {
        List<ConsumerRecord<K, V>> out = new ArrayList<>(n);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (out.size() < n) {
            ConsumerRecord<K, V> r = queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (r == null) {
                throw new AssertionError("got " + out.size() + " of " + n + " records within " + timeout
                        + (error != null ? "; the flux failed: " + error : "") + "; got " + out);
            }
            out.add(r);
        }
        return out;
    }

    /** Takes records until one matches, returning all taken (the match last). */
    public List<ConsumerRecord<K, V>> takeUntil(Predicate<ConsumerRecord<K, V>> match, Duration timeout)
            throws InterruptedException {
        List<ConsumerRecord<K, V>> out = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (;;) {
            ConsumerRecord<K, V> r = queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (r == null) {
                throw new AssertionError("no matching record within " + timeout
                        + (error != null ? "; the flux failed: " + error : "") + "; got " + out);
            }
            out.add(r);
            if (match.test(r)) {
                return out;
            }
        }
    }

    /** Records that arrive within {@code window} (use to check that nothing arrives). */
    public List<ConsumerRecord<K, V>> drainFor(Duration window) throws InterruptedException {
        List<ConsumerRecord<K, V>> out = new ArrayList<>();
        long deadline = System.nanoTime() + window.toNanos();
        for (;;) {
            ConsumerRecord<K, V> r = queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (r == null) {
                return out;
            }
            out.add(r);
        }
    }

    public int queued() {
        return queue.size();
    }

    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return terminated.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public Throwable error() {
        return error;
    }

    public boolean isCompleted() {
        return completed;
    }
}
