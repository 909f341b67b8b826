package io.kflux.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.KafkaFluxConsumer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What a closed consumer must not leave behind: kflux threads, unreleased buffers, a close that overruns its timeout.
 * The one copy for the sdk's broker-free close races ({@code io.kflux.internal.CloseRaceTest}) and compat-tests'
 * real-broker close and scale tests (SecuredCloseRaceTest, ScaleTest, EmitThreadsTest), which get it through the
 * sdk's test jar. Leak reports come from a {@link NettyLeaks} listener, with the detector on PARANOID
 * ({@link ParanoidLeakDetection}).
 */
public final class LeftBehind {
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);

    private LeftBehind() {
    }

    /** Closes {@code consumer} with a 2 s timeout and asserts it finished within that (plus 500 ms). */
    public static void assertClosesWithinTimeout(KafkaFluxConsumer<?, ?> consumer) {
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
    public static int kfluxThreads() {
        assertThat(threads(io.kflux.network.IoLoops.THREAD_PREFIX)).as("kflux I/O threads")
                .isLessThanOrEqualTo(io.kflux.network.IoLoops.count());
        assertThat(emitThreads()).as("kflux emit threads").isLessThanOrEqualTo(io.kflux.internal.EmitScheduler.threadCap());
        assertThat(threads(io.kflux.network.BlockingScheduler.THREAD_PREFIX)).as("kflux blocking-call threads")
                .isLessThanOrEqualTo(io.kflux.network.BlockingScheduler.threadCap());
        return allKfluxThreads() - threads(io.kflux.network.IoLoops.THREAD_PREFIX) - pooledThreads();
    }

    /** Live threads of kflux's default emit scheduler. */
    public static int emitThreads() {
        return threads(io.kflux.internal.EmitScheduler.THREAD_PREFIX);
    }

    /** Live threads of kflux's JVM-wide schedulers that start on demand and end a minute unused: emit, blocking. */
    public static int pooledThreads() {
        return emitThreads() + threads(io.kflux.network.BlockingScheduler.THREAD_PREFIX);
    }

    private static int threads(String prefix) {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(prefix)).count();
    }

    /** Every thread kflux started, the I/O event loops included. */
    public static int allKfluxThreads() {
        return threads("kflux");
    }

    /**
     * Leaks are reported when a leaked buffer's phantom reference is polled, which happens on later allocations
     * after a GC: provoke both, then read what the detector reported to {@code leaks}.
     */
    public static void assertNoLeaks(NettyLeaks leaks) throws InterruptedException {
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

    /** Waits until {@code condition} holds, polling every 10 ms; fails after {@code within}. */
    public static void awaitTrue(java.util.function.BooleanSupplier condition, Duration within)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within %s", within).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
