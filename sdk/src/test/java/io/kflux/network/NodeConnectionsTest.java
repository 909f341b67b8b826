package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.network.TestMessages.PingRequest;
import io.kflux.protocol.ApiKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeConnectionsTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final NetworkOptions OPTIONS = TestNetworkOptions.defaults()
            .withRequestTimeoutMs(5_000)
            .withConnectionSetupTimeoutMs(3_000)
            .withReconnectBackoff(100, 800);

    private FakeBroker broker;
    private NodeConnections connections;

    @BeforeAll
    static void blockHound() {
        BlockHoundSupport.install();
    }

    @BeforeEach
    void start() {
        broker = new FakeBroker();
        connections = new NodeConnections(OPTIONS);
    }

    @AfterEach
    void stop() {
        connections.closeAll().block(WAIT);
        broker.close();
        assertThat(BlockHoundSupport.VIOLATIONS).as("blocking calls on kflux-io threads").isEmpty();
    }

    private static Throwable errorOf(Mono<?> mono) {
        try {
            mono.block(WAIT);
        } catch (RuntimeException e) {
            return Exceptions.unwrap(e);
        }
        throw new AssertionError("expected an error");
    }

    @Test
    void concurrentCallersShareOneConnect() throws InterruptedException {
        int callers = 16;
        CountDownLatch go = new CountDownLatch(1);

        List<BrokerConnection> got = Flux.range(0, callers)
                .flatMap(i -> Mono.fromRunnable(() -> awaitQuietly(go))
                        .subscribeOn(Schedulers.boundedElastic())
                        .then(connections.connection(1, "127.0.0.1", broker.port())), callers)
                .collectList()
                .doOnSubscribe(s -> go.countDown())
                .block(WAIT);

        assertThat(got).hasSize(callers);
        assertThat(got).allSatisfy(c -> assertThat(c).isSameAs(got.get(0)));
        assertThat(broker.connections.get()).isEqualTo(1);
        assertThat(connections.connection(1, "127.0.0.1", broker.port()).block(WAIT)).isSameAs(got.get(0));
        assertThat(broker.connections.get()).isEqualTo(1);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void reconnectBackoffGrowsBetweenAttemptsToARefusingNode() throws IOException {
        int port = BrokerConnectionTest.refusingPort();
        long[] expected = {0, 100, 200, 400, 800, 800};
        long[] took = new long[expected.length];
        long[] endedAt = new long[expected.length];

        for (int i = 0; i < expected.length; i++) {
            long start = System.nanoTime();
            Throwable error = errorOf(connections.connection(7, "127.0.0.1", port));
            endedAt[i] = System.nanoTime();
            took[i] = TimeUnit.NANOSECONDS.toMillis(endedAt[i] - start);
            assertThat(error).isInstanceOf(ConnectionFailedException.class);
            assertThat(connections.failures(7)).isEqualTo(i + 1);
        }

        // Each attempt waits the backoff +/-20% (capped at the maximum) counted from the previous failure, plus a
        // refused connect's few ms; the upper slack absorbs a busy machine.
        for (int i = 0; i < expected.length; i++) {
            assertThat(took[i]).as("attempt %d took %s ms", i + 1, java.util.Arrays.toString(took))
                    .isLessThanOrEqualTo(Math.min((long) (expected[i] * 1.2), 800) + 400);
        }
        // Not a lower bound per attempt: a failure reported late (a busy machine) makes the next call wait only what
        // is left of its backoff. The waits since the first failure still add up to at least the backoffs, which a
        // backoff that did not grow (5 x 100 ms) could not reach.
        long minimum = 0;
        for (int i = 1; i < expected.length; i++) {
            minimum += (long) (expected[i] * 0.8);
            assertThat(TimeUnit.NANOSECONDS.toMillis(endedAt[i] - endedAt[0]))
                    .as("attempts 2..%d, each took %s ms", i + 1, java.util.Arrays.toString(took))
                    .isGreaterThanOrEqualTo(minimum - 100); // the first failure may have been reported late too
        }
    }

    @Test
    void aSuccessfulConnectResetsTheBackoffAndAMovedNodeIsReconnected() throws IOException {
        int port = BrokerConnectionTest.refusingPort();
        assertThat(errorOf(connections.connection(3, "127.0.0.1", port))).isInstanceOf(ConnectionFailedException.class);
        assertThat(connections.failures(3)).isEqualTo(1);

        BrokerConnection c = connections.connection(3, "127.0.0.1", broker.port()).block(WAIT);

        assertThat(c.isOpen()).isTrue();
        assertThat(connections.failures(3)).isZero();
        try (FakeBroker moved = new FakeBroker()) {
            BrokerConnection c2 = connections.connection(3, "127.0.0.1", moved.port()).block(WAIT);
            assertThat(c2).isNotSameAs(c);
            assertThat(c2.address().getPort()).isEqualTo(moved.port());
            c.onClose().block(WAIT);
            assertThat(c.isOpen()).isFalse();
        }
    }

    @Test
    void aClosedConnectionIsReplacedOnTheNextCall() {
        BrokerConnection first = connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);
        first.close().block(WAIT);

        BrokerConnection second = connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);

        assertThat(second).isNotSameAs(first);
        assertThat(second.isOpen()).isTrue();
        assertThat(second.exchange(new PingRequest(1, "x")).block(WAIT).value()).isEqualTo(1);
        assertThat(broker.connections.get()).isEqualTo(2);
    }

    @Test
    void bootstrapTriesTheAddressesInTurn() throws IOException {
        InetSocketAddress refusing = new InetSocketAddress("127.0.0.1", BrokerConnectionTest.refusingPort());
        InetSocketAddress good = new InetSocketAddress("127.0.0.1", broker.port());

        BrokerConnection c = connections.bootstrap(List.of(refusing, good)).block(WAIT);

        assertThat(c.address().getPort()).isEqualTo(broker.port());
        assertThat(connections.bootstrap(List.of(refusing, good)).block(WAIT)).isSameAs(c);
        assertThat(broker.connections.get()).isEqualTo(1);
    }

    /** 10,000 consumers started together in one JVM all asked the first server of three, which did not keep up. */
    @Test
    void clientsStartingTogetherSpreadTheirBootstrapConnectionsOverTheServers() throws IOException {
        try (FakeBroker other = new FakeBroker()) {
            List<InetSocketAddress> both = List.of(new InetSocketAddress("127.0.0.1", broker.port()),
                    new InetSocketAddress("127.0.0.1", other.port()));
            List<NodeConnections> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 40; i++) {
                    NodeConnections client = new NodeConnections(OPTIONS);
                    clients.add(client);
                    client.bootstrap(both).block(WAIT);
                }
                // each client picks one at random: all 40 on one server has a chance of 2 in 2^40
                assertThat(broker.connections.get()).isPositive();
                assertThat(other.connections.get()).isPositive();
                assertThat(broker.connections.get() + other.connections.get()).isEqualTo(40);
            } finally {
                clients.forEach(c -> c.closeAll().block(WAIT));
            }
        }
    }

    @Test
    void bootstrapFailsWithEveryAddressesErrorWhenNoneAnswers() throws IOException {
        List<InetSocketAddress> addresses = new ArrayList<>();
        addresses.add(new InetSocketAddress("127.0.0.1", BrokerConnectionTest.refusingPort()));
        addresses.add(InetSocketAddress.createUnresolved("127.0.0.1", BrokerConnectionTest.refusingPort()));

        Throwable error = errorOf(connections.bootstrap(addresses));

        assertThat(error).isInstanceOf(ConnectionFailedException.class).hasMessageContaining("bootstrap");
        assertThat(error.getSuppressed()).filteredOn(ConnectionFailedException.class::isInstance).hasSize(2);
    }

    @Test
    void closeAllClosesEveryConnectionAndRefusesNewOnes() {
        BrokerConnection a = connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);
        BrokerConnection b = connections.bootstrap(List.of(new InetSocketAddress("127.0.0.1", broker.port()))).block(WAIT);

        connections.closeAll().block(WAIT);

        assertThat(a.isOpen()).isFalse();
        assertThat(b.isOpen()).isFalse();
        assertThat(errorOf(connections.connection(1, "127.0.0.1", broker.port())))
                .isInstanceOf(DisconnectedException.class);
        assertThat(errorOf(connections.connection(2, "127.0.0.1", broker.port())))
                .isInstanceOf(DisconnectedException.class);
    }

    @Test
    void aBrokerWhoseRequestTimedOutIsTroubledUntilAConnectToItSucceedsAgain() {
        assertThat(connections.load(1)).isEqualTo(NodeLoad.UNKNOWN);
        BrokerConnection first = connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);
        assertThat(connections.load(1)).isEqualTo(new NodeLoad(true, 0, false, 0));

        broker.on(ApiKey.HEARTBEAT, ex -> { }); // accepts the request, never answers: a frozen broker
        assertThat(errorOf(first.exchange(new PingRequest(1, "x"), 300))).isInstanceOf(RequestTimeoutException.class);

        NodeLoad afterTimeout = connections.load(1);
        assertThat(afterTimeout.troubled()).as("a request timeout closes the connection: trouble").isTrue();
        assertThat(afterTimeout.connected()).isFalse();
        assertThat(afterTimeout.lastFailureNanos()).isNotZero();

        broker.answerNormally(ApiKey.HEARTBEAT);
        BrokerConnection second = connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);
        assertThat(second.exchange(new PingRequest(2, "y")).block(WAIT).value()).isEqualTo(2);
        assertThat(connections.load(1).troubled()).as("a new connect succeeded after the failure").isFalse();
        assertThat(connections.load(1).connected()).isTrue();
    }

    @Test
    void aTimeoutOnTheCoordinatorConnectionMarksTheBrokerTroubled() {
        connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);
        BrokerConnection coordinator = connections.coordinatorConnection(1, "127.0.0.1", broker.port()).block(WAIT);
        assertThat(broker.connections.get()).as("the coordinator connection is a second one").isEqualTo(2);

        broker.on(ApiKey.HEARTBEAT, ex -> { });
        assertThat(errorOf(coordinator.exchange(new PingRequest(1, "x"), 300)))
                .isInstanceOf(RequestTimeoutException.class);

        NodeLoad load = connections.load(1);
        assertThat(load.connected()).as("the general connection is still open").isTrue();
        assertThat(load.troubled()).as("the broker's latest event is the coordinator connection's failure").isTrue();
    }

    @Test
    void requestsWaitingCountsTheUnansweredRequestsOfTheGeneralConnection() {
        BrokerConnection c = connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);
        broker.on(ApiKey.HEARTBEAT, ex -> { });
        c.exchange(new PingRequest(1, "x")).subscribe(r -> { }, e -> { });
        c.exchange(new PingRequest(2, "y")).subscribe(r -> { }, e -> { });

        long deadline = System.nanoTime() + WAIT.toNanos();
        while (connections.load(1).requestsWaiting() < 2 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(connections.load(1)).isEqualTo(new NodeLoad(true, 2, false, 0));
    }
}
