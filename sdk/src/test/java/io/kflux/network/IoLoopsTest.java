package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Home loops and kflux's timers (issue #27): what decides how many {@code kflux-io} threads a consumer starts. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IoLoopsTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** Bootstrap, two nodes and a coordinator of one manager: every connection on the manager's one loop. */
    @Test
    void everyConnectionOfOneManagerRunsOnItsHomeLoop() {
        try (FakeBroker one = new FakeBroker(); FakeBroker two = new FakeBroker()) {
            NodeConnections connections = new NodeConnections(TestNetworkOptions.defaults());
            try {
                List<BrokerConnection> opened = List.of(
                        connections.connection(1, "127.0.0.1", one.port()).block(WAIT),
                        connections.connection(2, "127.0.0.1", two.port()).block(WAIT),
                        connections.coordinatorConnection(1, "127.0.0.1", one.port()).block(WAIT));
                Set<EventLoop> loops = new HashSet<>();
                opened.forEach(c -> loops.add(c.channel().eventLoop()));
                assertThat(loops).hasSize(1);
            } finally {
                connections.closeAll().block(WAIT);
            }
        }
    }

    /** Managers made one after another take the loops in turn, so many consumers spread over all of them. */
    @Test
    void managersTakeTheLoopsInTurn() {
        int count = IoLoops.count();
        Set<EventLoop> homes = new HashSet<>();
        for (int i = 0; i < count; i++) {
            homes.add((EventLoop) IoLoops.home().onClient(true));
        }
        assertThat(homes).hasSize(count);
        assertThat(IoLoops.home().onClient(true)).isIn(homes);
    }

    /**
     * A timer set on a kflux loop fires on that loop; one set elsewhere fires on a kflux loop too, never on Reactor's
     * {@code parallel} threads; the clock is monotonic nanos.
     */
    @Test
    void timersFireOnTheLoopTheyWereSetOnAndNeverOnReactorsParallelThreads() throws Exception {
        EventLoop home = (EventLoop) IoLoops.home().onClient(true);
        CompletableFuture<Thread> fromLoop = new CompletableFuture<>();
        CompletableFuture<Thread> loopThread = new CompletableFuture<>();
        home.execute(() -> {
            loopThread.complete(Thread.currentThread());
            Mono.delay(Duration.ofMillis(5), IoLoops.timers())
                    .subscribe(v -> fromLoop.complete(Thread.currentThread()));
        });
        assertThat(fromLoop.get(10, TimeUnit.SECONDS)).isSameAs(loopThread.get());

        String elsewhere = Mono.delay(Duration.ofMillis(5), IoLoops.timers())
                .map(v -> Thread.currentThread().getName()).block(WAIT);
        assertThat(elsewhere).startsWith(IoLoops.THREAD_PREFIX);
        List<String> ticks = Flux.interval(Duration.ofMillis(1), IoLoops.timers()).take(3)
                .map(v -> Thread.currentThread().getName()).collectList().block(WAIT);
        assertThat(ticks).allSatisfy(name -> assertThat(name).startsWith(IoLoops.THREAD_PREFIX));

        long before = System.nanoTime();
        long now = IoLoops.timers().now(TimeUnit.NANOSECONDS);
        assertThat(now).isBetween(before, System.nanoTime());
    }
}
