package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.network.FakeBroker.Exchange;
import io.kflux.network.TestMessages.PingRequest;
import io.kflux.network.TestMessages.PingResponse;
import io.kflux.protocol.ApiKey;
import io.kflux.util.LogContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;

/**
 * The official connection settings kflux applies: {@code connections.max.idle.ms}, {@code client.dns.lookup},
 * the growing {@code socket.connection.setup.timeout.ms} (KIP-601), {@code send/receive.buffer.bytes}. Real
 * sockets on loopback against the fake broker.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionSettingsTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final NetworkOptions OPTIONS = TestNetworkOptions.defaults()
            .withRequestTimeoutMs(5_000)
            .withConnectionSetupTimeoutMs(3_000)
            .withReconnectBackoff(2_000, 4_000);

    private FakeBroker broker;
    private NodeConnections connections;

    @BeforeEach
    void start() {
        broker = new FakeBroker();
    }

    @AfterEach
    void stop() {
        if (connections != null) {
            connections.closeAll().block(WAIT);
        }
        broker.close();
    }

    private static void awaitClosed(BrokerConnection c) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (c.isOpen() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    @Test
    void anIdleConnectionIsClosedAndReopenedWithoutBackoff() throws InterruptedException {
        connections = new NodeConnections(OPTIONS.withConnectionsMaxIdleMs(300));
        BrokerConnection first = connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);
        assertThat(first.exchange(new PingRequest(1, "x")).block(WAIT).value()).isEqualTo(1);

        awaitClosed(first);

        assertThat(first.isOpen()).as("closed after connections.max.idle.ms").isFalse();
        assertThat(first.closedWhileIdle()).isTrue();
        assertThat(first.closeCause()).hasMessageContaining("connections.max.idle.ms");
        long t0 = System.nanoTime();
        BrokerConnection second = connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);
        // reconnect.backoff.ms is 2 s here: an idle close is no failure, so no backoff is due.
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(1_500));
        assertThat(second).isNotSameAs(first);
        assertThat(connections.failures(1)).isZero();
        assertThat(second.exchange(new PingRequest(2, "y")).block(WAIT).value()).isEqualTo(2);
    }

    @Test
    void aConnectionWaitingForAnAnswerIsNotIdle() throws InterruptedException {
        List<Exchange> held = new CopyOnWriteArrayList<>();
        broker.on(ApiKey.HEARTBEAT, held::add);
        connections = new NodeConnections(OPTIONS.withConnectionsMaxIdleMs(500));
        BrokerConnection c = connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);
        Mono<PingResponse> answer = c.exchange(new PingRequest(7, "slow")).cache();
        answer.subscribe(r -> { }, e -> { });

        Thread.sleep(1_500); // three idle times: a busy machine may delay the request after the connect (idle 200 ms failed once under load)

        assertThat(c.isOpen()).as("a request in flight keeps the connection").isTrue();
        held.get(0).respond(PingResponse.SPEC, new PingResponse((short) 0, 7, "slow"));
        assertThat(answer.block(WAIT).value()).isEqualTo(7);
        awaitClosed(c);
        assertThat(c.closedWhileIdle()).as("idle once answered").isTrue();
    }

    @Test
    void aNegativeMaxIdleKeepsConnectionsOpen() throws InterruptedException {
        connections = new NodeConnections(OPTIONS.withConnectionsMaxIdleMs(-1));
        BrokerConnection c = connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);
        Thread.sleep(500);
        assertThat(c.isOpen()).isTrue();
        assertThat(c.channel().pipeline().get("kflux.idle")).isNull();
    }

    @Test
    void useAllDnsIpsTriesEveryAddressOfANameInTurn() throws IOException {
        // 127.0.0.2 is loopback too, but the fake broker listens on 127.0.0.1 only: that address refuses.
        InetAddress dead = InetAddress.getByAddress("broker.test", new byte[] {127, 0, 0, 2});
        InetAddress live = InetAddress.getByAddress("broker.test", new byte[] {127, 0, 0, 1});
        List<InetSocketAddress> asked = new CopyOnWriteArrayList<>();
        AddressResolver twoAddresses = a -> {
            asked.add(a);
            return Mono.just(List.of(new InetSocketAddress(dead, a.getPort()), new InetSocketAddress(live, a.getPort())));
        };
        connections = new NodeConnections(OPTIONS, IoLoops.shared(), LogContext.NONE, twoAddresses);

        BrokerConnection c = connections.connection(1, "broker.test", broker.port()).block(WAIT);

        assertThat(c.exchange(new PingRequest(3, "z")).block(WAIT).value()).isEqualTo(3);
        assertThat(c.address().getAddress()).isEqualTo(live);
        assertThat(c.address().getHostString()).as("the name stays, for TLS hostname checks").isEqualTo("broker.test");
        assertThat(asked).extracting(InetSocketAddress::getHostString).containsExactly("broker.test");
        assertThat(broker.connections.get()).isEqualTo(1);
    }

    @Test
    void resolveCanonicalBootstrapServersOnlyConnectsThroughTheFirstAddressOnly() throws IOException {
        InetAddress dead = InetAddress.getByAddress("broker.test", new byte[] {127, 0, 0, 2});
        InetAddress live = InetAddress.getByAddress("broker.test", new byte[] {127, 0, 0, 1});
        AddressResolver twoAddresses = a -> Mono.just(List.of(new InetSocketAddress(dead, a.getPort()),
                new InetSocketAddress(live, a.getPort())));
        connections = new NodeConnections(OPTIONS.withDnsLookup(DnsLookup.RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY),
                IoLoops.shared(), LogContext.NONE, twoAddresses);

        Throwable error = errorOf(connections.connection(1, "broker.test", broker.port()));

        assertThat(error).isInstanceOf(ConnectionFailedException.class).hasMessageContaining("broker.test");
        assertThat(broker.connections.get()).isZero();
    }

    @Test
    void whenNoAddressOfANameAnswersTheErrorNamesThemAll() throws IOException {
        int port = BrokerConnectionTest.refusingPort();
        AddressResolver twoAddresses = a -> Mono.just(List.of(
                new InetSocketAddress(addr("broker.test", 2), a.getPort()),
                new InetSocketAddress(addr("broker.test", 3), a.getPort())));
        connections = new NodeConnections(OPTIONS, IoLoops.shared(), LogContext.NONE, twoAddresses);

        Throwable error = errorOf(connections.connection(1, "broker.test", port));

        assertThat(error).isInstanceOf(ConnectionFailedException.class)
                .hasMessageContaining("2 addresses of broker.test:" + port)
                .hasMessageContaining("127.0.0.2").hasMessageContaining("127.0.0.3");
        assertThat(error.getSuppressed()).filteredOn(ConnectionFailedException.class::isInstance).hasSize(2);
    }

    @Test
    void aNameThatDoesNotResolveFailsWithATypedError() {
        connections = new NodeConnections(OPTIONS);
        Throwable error = errorOf(connections.connection(1, "no-such-host.invalid", 9092));
        assertThat(error).isInstanceOf(ConnectionFailedException.class)
                .hasMessageContaining("could not resolve no-such-host.invalid");
    }

    @Test
    void theSetupTimeoutDoublesPerFailureUpToItsMaximum() {
        NodeConnections o = new NodeConnections(OPTIONS.withConnectionSetupTimeoutMs(1_000)
                .withConnectionSetupTimeoutMaxMs(5_000));
        for (int round = 0; round < 200; round++) {
            assertThat(o.setupTimeoutMs(0)).isBetween(800L, 1_200L);
            assertThat(o.setupTimeoutMs(1)).isBetween(1_600L, 2_400L);
            assertThat(o.setupTimeoutMs(2)).isBetween(3_200L, 4_800L);
            assertThat(o.setupTimeoutMs(3)).isBetween(4_000L, 5_000L);
            assertThat(o.setupTimeoutMs(1_000)).isBetween(4_000L, 5_000L);
        }
        NodeConnections fixed = new NodeConnections(OPTIONS.withConnectionSetupTimeoutMs(1_000)
                .withConnectionSetupTimeoutMaxMs(500));
        assertThat(fixed.setupTimeoutMs(5)).as("a maximum below the initial means fixed").isBetween(800L, 1_000L);
    }

    @Test
    void socketBuffersAreAppliedAndMinusOneLeavesTheOsDefault() {
        connections = new NodeConnections(OPTIONS.withSocketBuffers(32 * 1024, 16 * 1024));
        BrokerConnection c = connections.connection(1, "127.0.0.1", broker.port()).block(WAIT);
        io.netty.channel.socket.SocketChannelConfig config = (io.netty.channel.socket.SocketChannelConfig) c.channel().config();
        // Linux reports twice the size asked for (its bookkeeping overhead); other systems report it as asked.
        assertThat(config.getSendBufferSize()).isBetween(32 * 1024, 64 * 1024);
        assertThat(config.getReceiveBufferSize()).isBetween(16 * 1024, 32 * 1024);

        NodeConnections osDefault = new NodeConnections(OPTIONS.withSocketBuffers(-1, -1));
        try {
            BrokerConnection d = osDefault.connection(1, "127.0.0.1", broker.port()).block(WAIT);
            io.netty.channel.socket.SocketChannelConfig dc = (io.netty.channel.socket.SocketChannelConfig) d.channel().config();
            assertThat(dc.getReceiveBufferSize()).as("the OS default, not the 16 KiB above").isNotEqualTo(config.getReceiveBufferSize());
        } finally {
            osDefault.closeAll().block(WAIT);
        }
    }

    private static InetAddress addr(String name, int last) {
        try {
            return InetAddress.getByAddress(name, new byte[] {127, 0, 0, (byte) last});
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Throwable errorOf(Mono<?> mono) {
        try {
            mono.block(WAIT);
        } catch (RuntimeException e) {
            return Exceptions.unwrap(e);
        }
        throw new AssertionError("expected an error");
    }
}
