package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.network.FakeBroker.Exchange;
import io.kflux.network.TestMessages.BlobRequest;
import io.kflux.network.TestMessages.BlobResponse;
import io.kflux.network.TestMessages.PingRequest;
import io.kflux.network.TestMessages.PingResponse;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.ResponseHeader;
import io.kflux.protocol.message.ApiVersionsRequest;
import io.kflux.protocol.message.ApiVersionsResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrokerConnectionTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final NetworkOptions OPTIONS = TestNetworkOptions.defaults()
            .withClientId("net-test")
            .withRequestTimeoutMs(5_000)
            .withConnectionSetupTimeoutMs(3_000);

    private FakeBroker broker;
    private final List<BrokerConnection> opened = new ArrayList<>();

    @BeforeAll
    static void blockHound() {
        BlockHoundSupport.install();
    }

    @BeforeEach
    void start() {
        broker = new FakeBroker();
    }

    @AfterEach
    void stop() {
        opened.forEach(c -> c.close().block(WAIT));
        broker.close();
        assertThat(BlockHoundSupport.VIOLATIONS).as("blocking calls on kflux-io threads").isEmpty();
    }

    private BrokerConnection connect(NetworkOptions options) {
        BrokerConnection c = BrokerConnection.connect("127.0.0.1", broker.port(), options).block(WAIT);
        opened.add(c);
        return c;
    }

    private BrokerConnection connect() {
        return connect(OPTIONS);
    }

    private static Throwable errorOf(Mono<?> mono) {
        try {
            mono.block(WAIT);
        } catch (RuntimeException e) {
            return reactor.core.Exceptions.unwrap(e);
        }
        throw new AssertionError("expected an error");
    }

    @Test
    void connectNegotiatesApiVersionsAndSendsClientIdentity() {
        BrokerConnection c = connect();

        assertThat(c.isOpen()).isTrue();
        assertThat(c.version(ApiKey.HEARTBEAT)).isEqualTo((short) 4);
        assertThat(c.version(PingRequest.SPEC)).isEqualTo((short) 4);
        assertThat(c.version(ApiKey.METADATA)).isEqualTo((short) -1);
        List<Exchange> apiVersions = broker.received(ApiKey.API_VERSIONS);
        assertThat(apiVersions).hasSize(1);
        // without a cluster to check (KIP-1242) the highest version before v5, which every supported broker knows
        assertThat(apiVersions.get(0).version).isEqualTo((short) (ApiVersionsRequest.FIRST_CLUSTER_CHECK_VERSION - 1));
        assertThat(apiVersions.get(0).clientId).isEqualTo("net-test");
        assertThat(apiVersions.get(0).body)
                .isEqualTo(new ApiVersionsRequest("kflux", NetworkOptions.SOFTWARE_VERSION));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, 3})
    void apiVersionsUnsupportedVersionFallsBackToTheBrokersHighest(int brokerMax) {
        broker.range(ApiKey.API_VERSIONS, 0, brokerMax);

        BrokerConnection c = connect();

        assertThat(broker.received(ApiKey.API_VERSIONS)).extracting(e -> (int) e.version)
                .containsExactly(4, brokerMax);
        assertThat(c.version(ApiKey.HEARTBEAT)).isEqualTo((short) 4);
        assertThat(c.version(ApiKey.API_VERSIONS)).isEqualTo((short) brokerMax);
        assertThat(c.exchange(new PingRequest(7, "after fallback")).block(WAIT).value()).isEqualTo(7);
    }

    @Test
    void apiVersionsErrorFailsTheConnect() {
        broker.on(ApiKey.API_VERSIONS, ex -> ex.respond(ApiVersionsResponse.SPEC,
                FakeBroker.apiVersions((short) 42, List.of())));

        Throwable error = errorOf(BrokerConnection.connect("127.0.0.1", broker.port(), OPTIONS));

        assertThat(error).isInstanceOf(ConnectionFailedException.class).hasMessageContaining("error code 42");
    }

    @Test
    void unansweredApiVersionsFailsTheConnectAfterTheRequestTimeout() {
        broker.on(ApiKey.API_VERSIONS, ex -> { });
        long start = System.nanoTime();

        Throwable error = errorOf(BrokerConnection.connect("127.0.0.1", broker.port(), OPTIONS.withRequestTimeoutMs(300)));

        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(error).isInstanceOf(ConnectionFailedException.class)
                .hasCauseInstanceOf(RequestTimeoutException.class);
        assertThat(elapsedMs).isBetween(250L, 5_000L);
    }

    @Test
    void connectToAPortNobodyListensOnFailsQuicklyWithATypedError() throws IOException {
        int port = refusingPort();
        long start = System.nanoTime();

        Throwable error = errorOf(BrokerConnection.connect("127.0.0.1", port, OPTIONS));

        assertThat(error).isInstanceOf(ConnectionFailedException.class).hasMessageContaining("127.0.0.1:" + port);
        assertThat(((ConnectionFailedException) error).address().getPort()).isEqualTo(port);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_500L);
    }

    static int refusingPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void exchangeUsesTheHighestCommonVersionAndDeliversOnAKfluxThread() {
        broker.range(ApiKey.HEARTBEAT, 1, 2);
        BrokerConnection c = connect();

        String thread = c.exchange(new PingRequest(5, "hello"))
                .map(r -> {
                    assertThat(r).isEqualTo(new PingResponse((short) 0, 5, "hello"));
                    return Thread.currentThread().getName();
                })
                .block(WAIT);

        assertThat(thread).startsWith(IoLoops.THREAD_PREFIX);
        Exchange ping = broker.received(ApiKey.HEARTBEAT).get(0);
        assertThat(ping.version).isEqualTo((short) 2);
        assertThat(ping.clientId).isEqualTo("net-test");
    }

    @Test
    void noCommonVersionFailsWithoutSendingAnything() {
        broker.without(ApiKey.HEARTBEAT).range(ApiKey.FETCH, 5, 9);
        BrokerConnection c = connect();

        assertThat(errorOf(c.exchange(new PingRequest(1, "x")))).isInstanceOf(UnsupportedVersionException.class)
                .hasMessageContaining("not offered");
        assertThat(errorOf(c.exchange(new BlobRequest(1)))).isInstanceOf(UnsupportedVersionException.class)
                .hasMessageContaining("kflux supports 0-2").hasMessageContaining("broker supports 5-9");
        assertThat(errorOf(c.exchange(ApiKey.HEARTBEAT, v -> new PingRequest(v, "x"))))
                .isInstanceOf(UnsupportedVersionException.class);
        assertThat(broker.received).extracting(e -> e.apiKey).containsOnly(ApiKey.API_VERSIONS);
        assertThat(c.isOpen()).isTrue();
    }

    @Test
    void exchangeByVersionBuildsTheRequestForTheNegotiatedVersion() {
        broker.range(ApiKey.HEARTBEAT, 0, 9);
        BrokerConnection c = connect();
        List<Integer> asked = new CopyOnWriteArrayList<>();

        PingResponse r = c.exchange(ApiKey.HEARTBEAT, v -> {
            asked.add(v);
            return new PingRequest(v, "v" + v);
        }).block(WAIT);

        assertThat(asked).containsExactly(9, 4);
        assertThat(r.value()).isEqualTo(4);
        assertThat(broker.received(ApiKey.HEARTBEAT).get(0).version).isEqualTo((short) 4);
    }

    @Test
    void pipelinedRequestsAreAllInFlightAndMatchedInOrder() {
        int n = 40;
        List<Exchange> held = new ArrayList<>();
        broker.on(ApiKey.HEARTBEAT, ex -> {
            // Answers only once every request is in: proves they were pipelined, not sent one by one.
            held.add(ex);
            if (held.size() == n) {
                for (Exchange h : held) {
                    PingRequest p = (PingRequest) h.body;
                    h.respond(PingResponse.SPEC, new PingResponse((short) 0, p.value(), p.text()));
                }
            }
        });
        BrokerConnection c = connect();

        List<PingResponse> responses = Flux.range(0, n)
                .flatMap(i -> c.exchange(new PingRequest(i, "ping-" + i)).map(r -> {
                    assertThat(r.value()).isEqualTo(i);
                    assertThat(r.text()).isEqualTo("ping-" + i);
                    return r;
                }), n)
                .collectList()
                .block(WAIT);

        assertThat(responses).hasSize(n);
        List<Integer> ids = broker.received(ApiKey.HEARTBEAT).stream().map(e -> e.correlationId).toList();
        assertThat(ids).doesNotHaveDuplicates().isSorted();
        assertThat(c.isOpen()).isTrue();
    }

    @Test
    void aResponseWithTheWrongCorrelationIdFailsTheRequestAndClosesTheConnection() {
        List<Exchange> held = new ArrayList<>();
        broker.on(ApiKey.HEARTBEAT, ex -> {
            held.add(ex);
            if (held.size() == 2) {
                Exchange second = held.get(1);
                second.respond(PingResponse.SPEC, new PingResponse((short) 0, 2, "second"));
            }
        });
        BrokerConnection c = connect();

        Mono<PingResponse> first = c.exchange(new PingRequest(1, "first")).cache();
        first.subscribe(r -> { }, e -> { });
        Mono<PingResponse> second = c.exchange(new PingRequest(2, "second")).cache();
        second.subscribe(r -> { }, e -> { });

        assertThat(errorOf(first)).isInstanceOf(MalformedMessageException.class).hasMessageContaining("correlation id");
        assertThat(errorOf(second)).isInstanceOf(DisconnectedException.class)
                .hasCauseInstanceOf(MalformedMessageException.class);
        c.onClose().block(WAIT);
        assertThat(c.isOpen()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"truncated", "garbage-length", "header-only"})
    void aMalformedBodyFailsTheRequestAndClosesTheConnection(String kind) {
        List<Exchange> held = new ArrayList<>();
        broker.on(ApiKey.HEARTBEAT, ex -> {
            held.add(ex);
            if (held.size() < 2) {
                return;
            }
            Exchange first = held.get(0);
            ByteBuf content = Unpooled.buffer();
            ResponseHeader.write(content, first.correlationId, (short) 0);
            switch (kind) {
                case "truncated" -> content.writeShort(0).writeShort(0); // errorCode, half of the int32
                case "garbage-length" -> content.writeShort(0).writeInt(1).writeShort(30_000).writeBytes(new byte[3]);
                default -> { }
            }
            first.respondRaw(content);
        });
        BrokerConnection c = connect();

        Mono<PingResponse> first = c.exchange(new PingRequest(1, "first")).cache();
        first.subscribe(r -> { }, e -> { });
        Mono<PingResponse> second = c.exchange(new PingRequest(2, "second")).cache();
        second.subscribe(r -> { }, e -> { });

        assertThat(errorOf(first)).isInstanceOf(MalformedMessageException.class).hasMessageContaining("HEARTBEAT v4");
        assertThat(errorOf(second)).isInstanceOf(DisconnectedException.class);
        c.onClose().block(WAIT);
        assertThat(c.isOpen()).isFalse();
        assertThat(c.closeCause()).hasMessageContaining("can no longer be trusted");
        assertThat(errorOf(c.exchange(new PingRequest(3, "after")))).isInstanceOf(DisconnectedException.class)
                .hasMessageContaining("was not sent");
    }

    @Test
    void aNegativeFrameLengthFailsTheRequestAndClosesTheConnection() {
        broker.on(ApiKey.HEARTBEAT, ex -> ex.writeRaw(Unpooled.buffer().writeInt(-5).writeInt(ex.correlationId)));
        BrokerConnection c = connect();

        assertThat(errorOf(c.exchange(new PingRequest(1, "x")))).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("undecodable response frame");
        c.onClose().block(WAIT);
    }

    @Test
    void aResponseWithNoRequestInFlightClosesTheConnection() {
        broker.on(ApiKey.HEARTBEAT, ex -> {
            PingRequest p = (PingRequest) ex.body;
            ex.respond(PingResponse.SPEC, new PingResponse((short) 0, p.value(), p.text()));
            ex.respond(PingResponse.SPEC, new PingResponse((short) 0, p.value(), p.text()));
        });
        BrokerConnection c = connect();

        assertThat(c.exchange(new PingRequest(1, "x")).block(WAIT).value()).isEqualTo(1);

        c.onClose().block(WAIT);
        assertThat(c.closeCause()).hasMessageContaining("no request in flight");
    }

    @Test
    void anUnansweredRequestTimesOutAndTheConnectionIsClosed() throws InterruptedException {
        broker.on(ApiKey.HEARTBEAT, ex -> { });
        BrokerConnection c = connect(OPTIONS.withRequestTimeoutMs(400));
        long start = System.nanoTime();
        Mono<PingResponse> first = c.exchange(new PingRequest(1, "first")).cache();
        first.subscribe(r -> { }, e -> { });
        Thread.sleep(100);
        Mono<PingResponse> second = c.exchange(new PingRequest(2, "second")).cache();
        second.subscribe(r -> { }, e -> { });

        Throwable error = errorOf(first);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(error).isInstanceOf(RequestTimeoutException.class).hasMessageContaining("request.timeout.ms=400");
        assertThat(((RequestTimeoutException) error).apiKey()).isEqualTo(ApiKey.HEARTBEAT);
        assertThat(elapsedMs).isBetween(350L, 5_000L);
        assertThat(errorOf(second)).isInstanceOf(DisconnectedException.class)
                .hasCauseInstanceOf(RequestTimeoutException.class);
        c.onClose().block(WAIT);
        assertThat(c.isOpen()).isFalse();
    }

    @Test
    void theBrokerClosingMidRequestFailsEveryRequestInFlight() {
        int n = 3;
        List<Exchange> held = new ArrayList<>();
        broker.on(ApiKey.HEARTBEAT, ex -> {
            held.add(ex);
            if (held.size() == n) {
                ex.closeConnection();
            }
        });
        BrokerConnection c = connect();

        List<Throwable> errors = Flux.range(0, n)
                .flatMap(i -> c.exchange(new PingRequest(i, "x")).then(Mono.<Throwable>empty()).onErrorResume(Mono::just))
                .collectList()
                .block(WAIT);

        assertThat(errors).hasSize(n).allSatisfy(e -> assertThat(e).isInstanceOf(DisconnectedException.class)
                .hasMessageContaining("closed by the broker"));
        c.onClose().block(WAIT);
        assertThat(errorOf(c.exchange(new PingRequest(9, "late")))).isInstanceOf(DisconnectedException.class);
    }

    @Test
    void closeFailsRequestsInFlightAndClosesTheChannel() {
        broker.on(ApiKey.HEARTBEAT, ex -> { });
        BrokerConnection c = connect();
        Mono<PingResponse> pending = c.exchange(new PingRequest(1, "x")).cache();
        pending.subscribe(r -> { }, e -> { });
        Mono.delay(Duration.ofMillis(100)).block();

        c.close().block(WAIT);

        assertThat(errorOf(pending)).isInstanceOf(DisconnectedException.class).hasMessageContaining("closed by the client");
        assertThat(c.isOpen()).isFalse();
        StepVerifier.create(c.onClose()).expectComplete().verify(WAIT);
        c.close().block(WAIT); // idempotent
    }

    @Test
    void aCancelledExchangeKeepsTheStreamInStep() {
        List<Exchange> held = new ArrayList<>();
        broker.on(ApiKey.HEARTBEAT, ex -> {
            // Holds the first ping until the second arrives, then answers everything in order.
            held.add(ex);
            if (broker.received(ApiKey.HEARTBEAT).size() >= 2) {
                for (Exchange h : held) {
                    PingRequest p = (PingRequest) h.body;
                    h.respond(PingResponse.SPEC, new PingResponse((short) 0, p.value(), p.text()));
                }
                held.clear();
            }
        });
        BrokerConnection c = connect();

        Disposable cancelled = c.exchange(new PingRequest(1, "cancelled")).subscribe();
        Mono.delay(Duration.ofMillis(100)).block();
        cancelled.dispose();
        PingResponse second = c.exchange(new PingRequest(2, "second")).block(WAIT);

        assertThat(second.value()).isEqualTo(2);
        assertThat(c.isOpen()).isTrue();
        assertThat(c.exchange(new PingRequest(3, "third")).block(WAIT).value()).isEqualTo(3);
    }

    @Test
    void recordSetsAreRetainedSlicesThatTheCallerReleases() {
        BrokerConnection c = connect();

        BlobResponse blob = c.exchange(new BlobRequest(300)).block(WAIT);
        // The frame is released on the event loop just after delivery; a second round trip makes
        // sure that has happened, so the slice below is the only thing keeping the bytes.
        c.exchange(new PingRequest(1, "after")).block(WAIT);

        ByteBuf records = blob.records();
        assertThat(records.readableBytes()).isEqualTo(300);
        assertThat(records.getByte(299)).isEqualTo((byte) 299);
        assertThat(records.refCnt()).isEqualTo(1);
        assertThat(records.release()).isTrue();
    }

    @Test
    void aFrameOverTheLimitFailsTheRequestAndClosesTheConnection() {
        BrokerConnection c = connect(OPTIONS.withMaxFrameBytes(1024));
        BlobResponse small = c.exchange(new BlobRequest(500)).block(WAIT);
        small.records().release();

        Throwable error = errorOf(c.exchange(new BlobRequest(4_000)));

        assertThat(error).isInstanceOf(FrameTooLargeException.class).hasMessageContaining("maxFrameBytes=1024");
        c.onClose().block(WAIT);
        assertThat(c.isOpen()).isFalse();
    }

    @Test
    void manyThreadsCanExchangeAtOnce() {
        BrokerConnection c = connect();
        Set<Integer> seen = ConcurrentHashMap.newKeySet();

        Flux.range(0, 200)
                .parallel(4)
                .runOn(reactor.core.scheduler.Schedulers.parallel())
                .flatMap(i -> c.exchange(new PingRequest(i, "p")).doOnNext(r -> {
                    assertThat(r.value()).isEqualTo(i);
                    seen.add(r.value());
                }))
                .sequential()
                .blockLast(WAIT);

        assertThat(seen).hasSize(200);
    }

    @Test
    void optionsAreValidated() {
        NetworkOptions d = TestNetworkOptions.defaults();
        assertThatThrownBy(() -> d.withRequestTimeoutMs(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withReconnectBackoff(100, 50)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withMaxFrameBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NetworkOptions("c", 1, 1, 0, 0, 1, -1, -1, "bad name", "1",
                ConnectionSecurity.PLAINTEXT, 1, -1, DnsLookup.USE_ALL_DNS_IPS, d.config()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(d.requestTimeoutMs()).isEqualTo(30_000);
        assertThat(d.clientSoftwareName()).isEqualTo("kflux");
    }
}
