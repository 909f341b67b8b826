package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.network.IoLoops;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Scannable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** The default emit scheduler: its cap, its threads, and that it outlives what users do to Reactor's schedulers. */
class EmitSchedulerTest {

    @Test
    void theCapIsTwiceTheIoLoopsAndBelowReactorsBoundedElastic() {
        assertThat(EmitScheduler.threadCap()).isEqualTo(2 * IoLoops.count());
        assertThat(Scannable.from(EmitScheduler.shared()).scan(Scannable.Attr.CAPACITY))
                .as("the shared scheduler's thread cap").isEqualTo(EmitScheduler.threadCap());
        assertThat(Scannable.from(EmitScheduler.shared()).scan(Scannable.Attr.NAME)).contains("kflux-emit");
        // the point: with at least 4 loops and 10 per core for boundedElastic, never more than the old bound
        assertThat(EmitScheduler.threadCap()).isLessThanOrEqualTo(
                Math.max(2 * 4, 10 * Runtime.getRuntime().availableProcessors()));
    }

    /**
     * Three times as many workers as the cap, each running a task that waits: only cap tasks start (one per
     * thread), the others queue behind them on the threads their workers are pinned to, and every task runs once
     * the first ones return, on at most cap daemon threads named kflux-emit-N.
     */
    @Test
    void workersBeyondTheCapShareItsThreads() throws Exception {
        int cap = EmitScheduler.threadCap();
        int workers = 3 * cap;
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostRunning = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(workers);
        // the shared one may serve consumers of other tests in this JVM: a fresh one, made the same way
        Scheduler scheduler = EmitScheduler.create();
        List<Scheduler.Worker> created = new ArrayList<>();
        try {
            for (int i = 0; i < workers; i++) {
                Scheduler.Worker w = scheduler.createWorker();
                created.add(w);
                w.schedule(() -> {
                    threads.add(Thread.currentThread());
                    mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    running.decrementAndGet();
                    done.countDown();
                });
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (running.get() < cap && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            Thread.sleep(200); // a task beyond the cap would start now if it could
            assertThat(running.get()).as("tasks running at once").isEqualTo(cap);
            release.countDown();
            assertThat(done.await(30, TimeUnit.SECONDS)).as("every worker's task ran").isTrue();
            assertThat(mostRunning.get()).isEqualTo(cap);
            assertThat(threads).hasSize(cap).allSatisfy(t -> {
                assertThat(t.getName()).matches(EmitScheduler.THREAD_PREFIX + "-\\d+");
                assertThat(t.isDaemon()).as("%s is a daemon", t.getName()).isTrue();
            });
        } finally {
            release.countDown();
            created.forEach(Scheduler.Worker::dispose);
            scheduler.dispose();
        }
    }

    @Test
    void sharedIsOneSchedulerThatOutlivesShutdownNowAndDisposal() throws Exception {
        Scheduler shared = EmitScheduler.shared();
        assertThat(EmitScheduler.shared()).isSameAs(shared);

        Schedulers.shutdownNow(); // what a user (or a test framework) may do to Reactor's own schedulers
        assertThat(shared.isDisposed()).as("kflux's scheduler after Schedulers.shutdownNow()").isFalse();
        assertThat(EmitScheduler.shared()).isSameAs(shared);
        assertRunsATask(EmitScheduler.shared());

        shared.dispose(); // nobody should; if it happens, later consumers get a new one
        Scheduler next = EmitScheduler.shared();
        assertThat(next).isNotSameAs(shared);
        assertThat(next.isDisposed()).isFalse();
        assertRunsATask(next);
    }

    private static void assertRunsATask(Scheduler scheduler) throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        String[] name = new String[1];
        Scheduler.Worker w = scheduler.createWorker();
        try {
            w.schedule(() -> {
                name[0] = Thread.currentThread().getName();
                ran.countDown();
            });
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(name[0]).startsWith(EmitScheduler.THREAD_PREFIX + "-");
        } finally {
            w.dispose();
        }
    }
}
