package io.kflux.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.scheduler.Scheduler;

/** The guarantees kflux took from Reactor's bounded-elastic scheduler, without its evictor thread (issue #27). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PinnedSchedulerTest {

    /** A task cancelled before it ran never runs and is not held by its worker (a long-lived emit worker). */
    @Test
    void aTaskCancelledBeforeItRanIsForgottenByItsWorker() throws InterruptedException {
        using(new PinnedScheduler("pinned-cancel", 1, 60), scheduler -> {
            Scheduler.Worker worker = scheduler.createWorker();
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch blocking = new CountDownLatch(1);
            worker.schedule(() -> {
                blocking.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(blocking.await(10, TimeUnit.SECONDS)).isTrue();
            java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
            for (int i = 0; i < 100; i++) {
                worker.schedule(ran::incrementAndGet).dispose();
            }
            assertThat(reactor.core.Scannable.from(worker).scan(reactor.core.Scannable.Attr.BUFFERED))
                    .as("only the running task is held").isEqualTo(1);
            CountDownLatch last = new CountDownLatch(1);
            worker.schedule(last::countDown);
            release.countDown();
            assertThat(last.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(ran).as("no cancelled task ran").hasValue(0);
            worker.dispose();
        });
    }

    /** A worker's tasks run in order, one at a time, all on one thread, whatever the other workers do. */
    @Test
    void aWorkersTasksRunInOrderOnOneThread() throws InterruptedException {
        using(new PinnedScheduler("pinned-order", 2, 60), scheduler -> {
            Scheduler.Worker worker = scheduler.createWorker();
            List<Integer> ran = new CopyOnWriteArrayList<>();
            Set<Thread> threads = ConcurrentHashMap.newKeySet();
            CountDownLatch done = new CountDownLatch(1000);
            for (int i = 0; i < 1000; i++) {
                int n = i;
                worker.schedule(() -> {
                    threads.add(Thread.currentThread());
                    ran.add(n);
                    done.countDown();
                });
            }
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(ran).isSorted().hasSize(1000);
            assertThat(threads).singleElement().satisfies(t -> {
                assertThat(t.getName()).matches("pinned-order-\\d+");
                assertThat(t.isDaemon()).isTrue();
            });
            worker.dispose();
        });
    }

    /**
     * One worker alone always uses the first thread, so a single consumer starts one; more workers than threads
     * share the cap's threads, each new one on the thread with the fewest.
     */
    @Test
    void workersSpreadOverTheCapAndNeverBeyond() throws InterruptedException {
        using(new PinnedScheduler("pinned-spread", 3, 60), scheduler -> {
            Set<Thread> threads = ConcurrentHashMap.newKeySet();
            List<Scheduler.Worker> workers = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                Scheduler.Worker alone = scheduler.createWorker();
                runOn(alone, threads);
                alone.dispose();
            }
            assertThat(threads).hasSize(1);

            for (int i = 0; i < 9; i++) {
                Scheduler.Worker worker = scheduler.createWorker();
                workers.add(worker);
                runOn(worker, threads);
            }
            assertThat(threads).hasSize(3);
            workers.forEach(Scheduler.Worker::dispose);
        });
    }

    /** A thread without work ends after the time to live, by its executor: no other thread watches it. */
    @Test
    void idleThreadsEndAfterTheTimeToLive() throws InterruptedException {
        using(new PinnedScheduler("pinned-ttl", 1, 1), scheduler -> {
            Set<Thread> threads = ConcurrentHashMap.newKeySet();
            Scheduler.Worker worker = scheduler.createWorker();
            runOn(worker, threads);
            Thread first = threads.iterator().next();
            first.join(10_000);
            assertThat(first.isAlive()).isFalse();
            assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("pinned-ttl"));

            runOn(worker, threads); // the same worker goes on, on a new thread
            assertThat(threads).hasSize(2);
            worker.dispose();
        });
    }

    /** A disposed worker runs nothing queued; a disposed scheduler refuses work, as Reactor's do. */
    @Test
    void disposedWorkersAndSchedulersRunNothingMore() throws InterruptedException {
        PinnedScheduler scheduler = new PinnedScheduler("pinned-dispose", 1, 60);
        Scheduler.Worker worker = scheduler.createWorker();
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> ran = new CopyOnWriteArrayList<>();
        worker.schedule(() -> {
            blocked.countDown();
            await(release);
            ran.add("first");
        });
        worker.schedule(() -> ran.add("queued"));
        assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
        worker.dispose();
        release.countDown();
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        runOn(scheduler.createWorker(), threads); // after the first task on the one thread
        assertThat(ran).containsExactly("first");
        assertThat(worker.isDisposed()).isTrue();
        assertThatThrownBy(() -> worker.schedule(() -> { })).isInstanceOf(RejectedExecutionException.class);

        scheduler.dispose();
        assertThat(scheduler.isDisposed()).isTrue();
        assertThatThrownBy(scheduler::createWorker).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> scheduler.schedule(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    /** Delayed work is refused: kflux's timers are on its I/O loops. */
    @Test
    void delayedWorkIsRefused() throws InterruptedException {
        using(new PinnedScheduler("pinned-delay", 1, 60), scheduler -> {
            assertThatThrownBy(() -> scheduler.schedule(() -> { }, 1, TimeUnit.SECONDS))
                    .isInstanceOf(RejectedExecutionException.class);
            assertThatThrownBy(() -> scheduler.createWorker().schedule(() -> { }, 1, TimeUnit.SECONDS))
                    .isInstanceOf(RejectedExecutionException.class);
        });
    }

    /** Runs {@code test} with {@code scheduler}, then disposes it. */
    private static void using(PinnedScheduler scheduler, SchedulerTest test) throws InterruptedException {
        try {
            test.run(scheduler);
        } finally {
            scheduler.dispose();
        }
    }

    private interface SchedulerTest {
        void run(PinnedScheduler scheduler) throws InterruptedException;
    }

    private static void runOn(Scheduler.Worker worker, Set<Thread> threads) throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        worker.schedule(() -> {
            threads.add(Thread.currentThread());
            ran.countDown();
        });
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
