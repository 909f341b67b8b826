package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.compat.support.FaultProxy;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

/**
 * The network misbehaving between a healthy broker and kflux (issue #15, manual assignment, no group): a
 * {@link FaultProxy} sits in front of a listener the broker advertises as the proxy's address, so every kflux
 * connection goes through it; the producer uses the broker's own listener and is not disturbed. A producer runs
 * throughout and kflux acknowledges every record. Each scenario asserts that every produced record was consumed,
 * none twice (the positions live in the consumer, no group: a fault may cost a fetch, never re-deliver), that
 * {@code receive()} never ended (no retriable fault surfaced), and that consumption resumed within a bound once the
 * fault cleared.
 *
 * <p>In the default build, each scenario as long as its assertion needs (said at each); the minute of resets runs
 * only with {@code -Pfaults} (tag {@code faults}, see README).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class NetworkFaultTest {
    private static final int PARTITIONS = 3;
    private static final int PER_SECOND = 300;
    private static final int REQUEST_TIMEOUT_MS = 5_000;
    /** Consumption must resume this soon after a fault clears: a request timeout, a reconnect backoff, a fetch. */
    private static final Duration RESUME_BOUND = Duration.ofSeconds(15);

    private static FaultProxy proxy;
    private static EmbeddedKafkaCluster kafka;

    private KafkaFluxConsumer<String, String> consumer;
    private Disposable subscription;
    private final Set<String> consumed = ConcurrentHashMap.newKeySet();
    /** Deliveries per partition and offset: a count above 1 is a re-delivery. */
    private final Map<String, Integer> deliveries = new ConcurrentHashMap<>();
    private final AtomicLong lastReceivedNanos = new AtomicLong();
    private final AtomicReference<Throwable> ended = new AtomicReference<>();

    @BeforeAll
    static void startBrokerBehindProxy() throws IOException {
        proxy = FaultProxy.onFreePort();
        kafka = proxy.brokerBehind()
                .start();
    }

    @AfterAll
    static void stop() throws IOException {
        FaultProxy.closeBoth(kafka, proxy);
    }

    @AfterEach
    void closeConsumer() {
        proxy.heal();
        if (subscription != null) {
            subscription.dispose();
        }
        if (consumer != null) {
            consumer.close(Duration.ofSeconds(10)).block(Duration.ofSeconds(20));
        }
    }

    private void startConsuming(String topic) {
        consumer = Kflux.strings(Kflux.props(proxy.address(), "request.timeout.ms", REQUEST_TIMEOUT_MS,
                "fetch.max.wait.ms", 500, "reconnect.backoff.ms", 50, "reconnect.backoff.max.ms", 1000,
                "retry.backoff.ms", 50), Kflux.partitions(topic, PARTITIONS));
        subscription = consumer.receive()
                .doOnNext(r -> {
                    consumed.add(r.value());
                    deliveries.merge(r.partition() + "@" + r.offset(), 1, Integer::sum);
                    lastReceivedNanos.set(System.nanoTime());
                    r.acknowledge();
                })
                .map(ConsumerRecord::offset)
                .subscribe(o -> { }, ended::set, () -> ended.set(new AssertionError("receive() completed")));
    }

    /** Produces throughout {@code fault}, checks resumption after it and the full ledger at the end. */
    private void runScenario(String topic, ThrowingRunnable fault) throws Exception {
        kafka.createTopic(topic, PARTITIONS, 1);
        startConsuming(topic);
        try (ContinuousProducer producer = new ContinuousProducer(kafka.bootstrapServers(), topic, PARTITIONS,
                PER_SECOND, topic + "-")) {
            awaitConsumption(Duration.ofSeconds(30));
            fault.run();
            proxy.heal();
            long healed = System.nanoTime();
            awaitConsumptionAfter(healed, RESUME_BOUND);
            System.out.printf("%s: consumption resumed %d ms after the fault cleared%n", topic,
                    TimeUnit.NANOSECONDS.toMillis(lastReceivedNanos.get() - healed));
            Thread.sleep(2_000);
            Set<String> produced = producer.stop();
            assertThat(producer.failed()).as("producer failures (it bypasses the proxy)").isZero();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!consumed.containsAll(produced) && System.nanoTime() < deadline && ended.get() == null) {
                Thread.sleep(100);
            }
            assertThat(ended.get()).as("receive() must not end on a retriable fault").isNull();
            assertThat(produced).as("produced").isNotEmpty();
            assertThat(produced).as("every produced record consumed").allMatch(consumed::contains);
            assertThat(deliveries).as("records delivered more than once (partition@offset: times)")
                    .allSatisfy((at, times) -> assertThat(times).as(at).isEqualTo(1));
        }
    }

    private void awaitConsumption(Duration within) throws InterruptedException {
        awaitConsumptionAfter(System.nanoTime(), within);
    }

    private void awaitConsumptionAfter(long sinceNanos, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (lastReceivedNanos.get() <= sinceNanos) {
            assertThat(ended.get()).as("receive() must not end on a retriable fault").isNull();
            assertThat(System.nanoTime()).as("consumption resumed within %s", within).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /**
     * Eight rounds (four of each kind of reset) in 20 s: every round cuts the connections kflux fetches on, so each
     * kind is met several times, each while a fetch is in flight (fetch.max.wait.ms 500 ms, 300 records/s); a longer
     * run repeats the same rounds (the minute-long variant below, with {@code -Pfaults}).
     */
    @Test
    void connectionsResetEveryFewSecondsIncludingMidFetchResponse() throws Exception {
        runResets("resets", Duration.ofSeconds(20), Duration.ofMillis(2_500));
    }

    @Test
    @Tag("faults")
    void connectionsResetEveryFewSecondsForAMinuteIncludingMidFetchResponse() throws Exception {
        runResets("resets-minute", Duration.ofSeconds(60), Duration.ofSeconds(3));
    }

    private void runResets(String topic, Duration length, Duration every) throws Exception {
        runScenario(topic, () -> {
            int before = proxy.acceptedConnections();
            long end = System.nanoTime() + length.toNanos();
            int round = 0;
            while (System.nanoTime() < end) {
                Thread.sleep(every.toMillis());
                if (round++ % 2 == 0) {
                    proxy.resetAll();
                } else {
                    // cut each connection a few bytes into what the broker sends next: inside a Fetch response
                    proxy.links().forEach(l -> l.resetAfterResponseBytes(ThreadLocalRandom.current().nextInt(1, 200)));
                }
            }
            // every round cut at least the connection kflux fetches on, which it then made again (the last round's
            // reconnect may still be under way)
            assertThat(proxy.acceptedConnections() - before).as("connections made again through the proxy")
                    .isGreaterThanOrEqualTo(round - 1);
        });
    }

    /** As long as the assertion needs: a request timeout and 2 s (the reconnect that follows), about 8 s. */
    @Test
    void blackHoleLongerThanTheRequestTimeout() throws Exception {
        runScenario("black-hole", () -> {
            proxy.blackHole(true);
            Thread.sleep(1_000); // what was already on its way may still arrive
            int during = consumed.size();
            Thread.sleep(REQUEST_TIMEOUT_MS + 2_000L);
            assertThat(consumed.size()).as("records through a black hole").isEqualTo(during);
            assertThat(proxy.acceptedConnections()).as("reconnects after request.timeout.ms").isGreaterThan(1);
        });
    }

    /**
     * 6 s of slow link after 2 s to settle: at 400 ms a round trip and fetch.max.wait.ms 500 ms, a dozen fetches or
     * more, enough to see records flow over it (asserted) and the round trip measured below.
     */
    @Test
    void latencyOf200MsWithA1MBPerSecondCap() throws Exception {
        runScenario("slow-link", () -> {
            proxy.latency(Duration.ofMillis(200));
            proxy.bandwidth(1_000_000);
            Thread.sleep(2_000);
            long before = consumed.size();
            Thread.sleep(6_000);
            assertThat(consumed.size()).as("records consumed over the slow link").isGreaterThan((int) before);
            // each round trip through the proxy now takes at least 2 x 200 ms
            long probeStart = System.nanoTime();
            try (Socket probe = new Socket("127.0.0.1", proxy.port())) {
                probe.setSoTimeout(5_000);
                probe.getOutputStream().write(apiVersionsV0Request());
                assertThat(probe.getInputStream().read()).as("first byte of the answer").isNotNegative();
            }
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - probeStart)).as("round trip through the proxy")
                    .isGreaterThanOrEqualTo(400);
        });
    }

    /**
     * 10 s of refusal: at 300 records/s about 3,000 records, which established connections must carry (over 1,000
     * asserted); longer than reconnect.backoff.max.ms (1 s) many times over, so a client that needed a new connection
     * meanwhile would stall visibly.
     */
    @Test
    void newConnectionsRefusedFor10sWhileEstablishedOnesKeepWorking() throws Exception {
        runScenario("refused", () -> {
            int before = consumed.size();
            proxy.refuseNewConnections(Duration.ofSeconds(10));
            Thread.sleep(1_000);
            assertThatThrownBy(() -> new Socket("127.0.0.1", proxy.port()).close())
                    .as("a new connection while refusing").isInstanceOf(ConnectException.class);
            Thread.sleep(9_000);
            assertThat(consumed.size()).as("established connections kept delivering").isGreaterThan(before + 1000);
        });
    }

    /** An ApiVersions v0 request frame (size, api key 18, version 0, correlation id 1, client id "probe"). */
    private static byte[] apiVersionsV0Request() {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4 + 2 + 2 + 4 + 2 + 5);
        b.putInt(2 + 2 + 4 + 2 + 5).putShort((short) 18).putShort((short) 0).putInt(1).putShort((short) 5)
                .put("probe".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        return b.array();
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
