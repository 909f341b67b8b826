package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Scannable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

class BlockingSchedulerTest {

    @Test
    void hostNameLookupsRunOnTheCappedKfluxBlockingThreads() {
        String thread = AddressResolver.JDK.resolve(InetSocketAddress.createUnresolved("localhost", 9092))
                .map(addresses -> Thread.currentThread().getName())
                .block(Duration.ofSeconds(10));
        assertThat(thread).matches(BlockingScheduler.THREAD_PREFIX + "-\\d+");
        assertThat(BlockingScheduler.threadCap()).isEqualTo(IoLoops.count());
        assertThat(Scannable.from(BlockingScheduler.shared()).scan(Scannable.Attr.CAPACITY))
                .isEqualTo(BlockingScheduler.threadCap());
    }

    /** An IP literal needs no lookup: it is parsed on the calling thread, and keeps its text as the host name. */
    @Test
    void ipLiteralsAreResolvedOnTheCallingThreadWithoutABlockingThread() {
        for (String literal : List.of("127.0.0.1", "::1", "10.1.2.3")) {
            String caller = Thread.currentThread().getName();
            List<InetSocketAddress> resolved = AddressResolver.JDK.resolve(
                            InetSocketAddress.createUnresolved(literal, 9092))
                    .doOnNext(a -> assertThat(Thread.currentThread().getName()).isEqualTo(caller))
                    .block(Duration.ofSeconds(10));
            assertThat(resolved).singleElement().satisfies(a -> {
                assertThat(a.isUnresolved()).isFalse();
                assertThat(a.getPort()).isEqualTo(9092);
                assertThat(a.getHostString()).isEqualTo(literal);
                assertThat(a.getAddress().getHostAddress()).isIn(literal, "0:0:0:0:0:0:0:1");
            });
        }
    }

    /** Three times as many blocking calls as the cap: they queue, and never run on more threads than the cap. */
    @Test
    void moreBlockingCallsThanTheCapQueueInsteadOfAddingThreads() throws InterruptedException {
        int cap = BlockingScheduler.threadCap();
        Set<Thread> used = ConcurrentHashMap.newKeySet();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        Scheduler scheduler = BlockingScheduler.shared();
        var calls = Flux.range(0, 3 * cap)
                .flatMap(i -> Mono.fromCallable(() -> {
                    used.add(Thread.currentThread());
                    mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                    release.await(10, TimeUnit.SECONDS);
                    running.decrementAndGet();
                    return i;
                }).subscribeOn(scheduler), 3 * cap)
                .collectList()
                .toFuture();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (running.get() < cap && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(running.get()).as("calls running while all block").isEqualTo(cap);
        release.countDown();
        List<Integer> done = calls.join();
        assertThat(done).hasSize(3 * cap);
        assertThat(mostAtOnce.get()).isEqualTo(cap);
        assertThat(used).hasSizeLessThanOrEqualTo(cap)
                .allSatisfy(t -> assertThat(t.isDaemon()).isTrue());
    }
}
