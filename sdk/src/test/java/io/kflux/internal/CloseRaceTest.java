package io.kflux.internal;

import static io.kflux.internal.MalformedResponseTest.batch;
import static io.kflux.internal.MalformedResponseTest.concat;
import static io.kflux.testsupport.LeftBehind.assertClosesWithinTimeout;
import static io.kflux.testsupport.LeftBehind.assertNoLeaks;
import static io.kflux.testsupport.LeftBehind.awaitTrue;
import static io.kflux.testsupport.LeftBehind.kfluxThreads;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.network.FakeKafkaBroker;
import io.kflux.testsupport.NettyLeaks;
import io.kflux.testsupport.ParanoidLeakDetection;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;

/**
 * Cancel and close races without a group (issue #15), against a fake broker on loopback: a subscription disposed
 * while its connection is still being set up, and {@code close()} while a Fetch is in flight or its response is
 * arriving. Each round must leave no connection open at the broker, no buffer unreleased (Netty's leak detector on
 * PARANOID, its reports captured by a {@link NettyLeaks} listener) and no kflux thread behind, and {@code close(timeout)} must complete
 * within its timeout.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(ParanoidLeakDetection.class)
class CloseRaceTest {
    private static final String TOPIC = "races";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int ROUNDS = 15;

    private FakeKafkaBroker broker;
    private NettyLeaks leaks;

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
        assertNoLeaks(leaks);
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
        assertNoLeaks(leaks);
    }
}
