package io.kflux.internal;

import static io.kflux.internal.MalformedResponseTest.batch;
import static io.kflux.internal.MalformedResponseTest.concat;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.network.FakeKafkaBroker;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

/**
 * Cancel and close races without a group (issue #15), against a fake broker on loopback: a subscription disposed
 * while its connection is still being set up, and {@code close()} while a Fetch is in flight or its response is
 * arriving. Each round must leave no connection open at the broker, no buffer unreleased (Netty's leak detector on
 * PARANOID, its reports captured by a {@link NettyLeaks} listener) and no kflux thread behind, and {@code close(timeout)} must complete
 * within its timeout.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CloseRaceTest {
    private static final String TOPIC = "races";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);
    private static final int ROUNDS = 15;

    private static ResourceLeakDetector.Level levelBefore;
    private FakeKafkaBroker broker;
    private NettyLeaks leaks;

    @BeforeAll
    static void paranoid() {
        levelBefore = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }

    @AfterAll
    static void restore() {
        ResourceLeakDetector.setLevel(levelBefore);
    }

    @BeforeEach
    void start() {
        broker = new FakeKafkaBroker().topic(TOPIC, 1).logRange(0, 1_000);
        leaks = new NettyLeaks();
    }

    @AfterEach
    void stop() {
        leaks.close();
        broker.close();
    }

    private KafkaFluxConsumer<String, String> consumer() {
        return broker.consumer(TP);
    }

    @Test
    void disposeDuringConnectLeavesNothingBehind() throws Exception {
        broker.holdApiVersions = true;
        int threadsBefore = -1;
        for (int round = 0; round < ROUNDS; round++) {
            int connectionsBefore = broker.connections.get();
            KafkaFluxConsumer<String, String> consumer = consumer();
            Disposable subscription = consumer.receive().subscribe();
            if (round % 3 != 0) {
                // dispose once the connection is up and its ApiVersions handshake hangs; else right away
                awaitTrue(() -> broker.connections.get() > connectionsBefore, Duration.ofSeconds(5));
                Thread.sleep(ThreadLocalRandom.current().nextInt(0, 30));
            }
            subscription.dispose();
            assertClosesWithinTimeout(consumer);
            awaitTrue(() -> broker.openConnections.get() == 0, Duration.ofSeconds(5));
            if (round == 0) {
                threadsBefore = kfluxThreads();
            }
        }
        assertThat(kfluxThreads()).as("kflux threads after %d rounds", ROUNDS).isLessThanOrEqualTo(threadsBefore);
        assertNoLeaks();
    }

    @Test
    void closeDuringAFetchLeavesNothingBehind() throws Exception {
        AtomicInteger round = new AtomicInteger();
        int threadsBefore = -1;
        for (int r = 0; r < ROUNDS; r++) {
            round.set(r);
            CountDownLatch fetchInFlight = new CountDownLatch(1);
            broker.onFetch(ex -> {
                if (ex.fetchOffset() == 0) {
                    ex.respond((short) 0, concat(batch(0, 5)));
                    return;
                }
                fetchInFlight.countDown();
                if (round.get() % 2 == 1) {
                    // a response racing the close: its records buffer must be released whoever wins
                    ex.respond((short) 0, concat(batch(ex.fetchOffset(), 50)));
                }
                // else: no answer, the Fetch stays in flight until close
            });
            KafkaFluxConsumer<String, String> consumer = consumer();
            AtomicInteger received = new AtomicInteger();
            Disposable subscription = consumer.receive().doOnNext(rec -> received.incrementAndGet()).subscribe();
            assertThat(fetchInFlight.await(10, TimeUnit.SECONDS)).as("a second Fetch was sent").isTrue();
            assertClosesWithinTimeout(consumer);
            assertThat(subscription.isDisposed() || received.get() >= 5).isTrue();
            subscription.dispose();
            awaitTrue(() -> broker.openConnections.get() == 0, Duration.ofSeconds(5));
            if (r == 0) {
                threadsBefore = kfluxThreads();
            }
        }
        assertThat(kfluxThreads()).as("kflux threads after %d rounds", ROUNDS).isLessThanOrEqualTo(threadsBefore);
        assertNoLeaks();
    }

    static void assertClosesWithinTimeout(KafkaFluxConsumer<String, String> consumer) {
        long start = System.nanoTime();
        consumer.close(CLOSE_TIMEOUT).block(CLOSE_TIMEOUT.plusSeconds(5));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(tookMs).as("close(%s) took", CLOSE_TIMEOUT).isLessThanOrEqualTo(CLOSE_TIMEOUT.toMillis() + 500);
    }

    /**
     * Threads kflux started, by name, but for the JVM-wide I/O event loops, emit threads and blocking-call threads:
     * those start one by one as connections land on them, subscriptions take workers and lookups run (so a count
     * taken early is no baseline), emit and blocking threads end only after a minute unused, and all three are
     * bounded by construction, which this checks.
     */
    static int kfluxThreads() {
        assertThat(threads(io.kflux.network.IoLoops.THREAD_PREFIX)).as("kflux I/O threads")
                .isLessThanOrEqualTo(reactor.netty.resources.LoopResources.DEFAULT_IO_WORKER_COUNT);
        assertThat(emitThreads()).as("kflux emit threads").isLessThanOrEqualTo(io.kflux.internal.EmitScheduler.threadCap());
        assertThat(threads(io.kflux.network.BlockingScheduler.THREAD_PREFIX)).as("kflux blocking-call threads")
                .isLessThanOrEqualTo(io.kflux.network.BlockingScheduler.threadCap());
        return allKfluxThreads() - threads(io.kflux.network.IoLoops.THREAD_PREFIX) - pooledThreads();
    }

    /** Live threads of kflux's default emit scheduler. */
    static int emitThreads() {
        return threads(io.kflux.internal.EmitScheduler.THREAD_PREFIX);
    }

    /** Live threads of kflux's JVM-wide schedulers that start on demand and end a minute unused: emit, blocking. */
    static int pooledThreads() {
        return emitThreads() + threads(io.kflux.network.BlockingScheduler.THREAD_PREFIX);
    }

    private static int threads(String prefix) {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(prefix)).count();
    }

    /** Every thread kflux started, the I/O event loops included. */
    static int allKfluxThreads() {
        return threads("kflux");
    }

    /**
     * Leaks are reported when a leaked buffer's phantom reference is polled, which happens on later allocations
     * after a GC: provoke both, then read what the detector reported.
     */
    private void assertNoLeaks() throws InterruptedException {
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
            for (int j = 0; j < 100; j++) {
                ByteBuf a = PooledByteBufAllocator.DEFAULT.buffer(64);
                a.release();
                ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(64);
                b.release();
            }
        }
        assertThat(leaks.reports()).as("Netty leak reports").isEmpty();
    }

    static void awaitTrue(java.util.function.BooleanSupplier condition, Duration within)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within %s", within).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
