package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.AuthenticationException;
import io.kflux.network.FakeBroker.Exchange;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.message.SaslAuthenticateRequest;
import io.kflux.protocol.message.SaslAuthenticateResponse;
import io.kflux.protocol.message.SaslHandshakeResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * SASL on a connection against the fake broker: the exchange runs after ApiVersions and before the connection is
 * handed out; refusals are {@link AuthenticationException}s naming broker and mechanism; and KIP-368
 * re-authentication holds new requests back while it runs, so nothing but SASL is in flight then, while every
 * request is still answered on the one connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SaslConnectionTest {
    private static final byte[] TOKEN = "token-1".getBytes(StandardCharsets.UTF_8);

    private FakeBroker broker;
    private BrokerConnection connection;

    /** Sends one token and is done: PLAIN's shape. */
    private static final SaslAuthenticator ONE_TOKEN = new SaslAuthenticator() {
        @Override
        public String mechanism() {
            return "TEST-MECH";
        }

        @Override
        public Exchange newExchange(String brokerHost) {
            return Exchange.clientFirst(Mono.just(TOKEN), challenge -> Mono.empty());
        }
    };

    @BeforeEach
    void start() {
        broker = new FakeBroker()
                .range(ApiKey.SASL_HANDSHAKE, 0, 1)
                .range(ApiKey.SASL_AUTHENTICATE, 0, 2)
                .on(ApiKey.SASL_HANDSHAKE, ex -> ex.respond(SaslHandshakeResponse.SPEC,
                        new SaslHandshakeResponse((short) 0, List.of("TEST-MECH"))));
    }

    @AfterEach
    void stop() {
        if (connection != null) {
            connection.close().block(Duration.ofSeconds(5));
        }
        broker.close();
    }

    private BrokerConnection connect() {
        NetworkOptions options = TestNetworkOptions.defaults().withRequestTimeoutMs(5_000)
                .withSecurity(new ConnectionSecurity(null, ONE_TOKEN));
        connection = BrokerConnection.connect("127.0.0.1", broker.port(), options).block(Duration.ofSeconds(10));
        return connection;
    }

    @Test
    void authenticatesAfterApiVersionsBeforeTheConnectionIsHandedOut() {
        broker.on(ApiKey.SASL_AUTHENTICATE, ex -> ex.respond(SaslAuthenticateResponse.SPEC,
                new SaslAuthenticateResponse((short) 0, null, new byte[0], 0L)));
        connect();
        List<ApiKey> order = broker.received.stream().map(e -> e.apiKey).toList();
        assertThat(order).containsExactly(ApiKey.API_VERSIONS, ApiKey.SASL_HANDSHAKE, ApiKey.SASL_AUTHENTICATE);
        assertThat(((SaslAuthenticateRequest) broker.received(ApiKey.SASL_AUTHENTICATE).get(0).body).authBytes())
                .isEqualTo(TOKEN);
    }

    @Test
    void aRefusedExchangeIsAnAuthenticationErrorNamingBrokerAndMechanism() {
        broker.on(ApiKey.SASL_AUTHENTICATE, ex -> ex.respond(SaslAuthenticateResponse.SPEC,
                new SaslAuthenticateResponse((short) 58, "Authentication failed: Invalid username or password",
                        new byte[0], 0L)));
        Throwable error = BrokerConnection.connect("127.0.0.1", broker.port(), TestNetworkOptions.defaults()
                        .withSecurity(new ConnectionSecurity(null, ONE_TOKEN)))
                .then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block(Duration.ofSeconds(10));
        assertThat(error).isExactlyInstanceOf(AuthenticationException.class)
                .hasMessageContaining("TEST-MECH").hasMessageContaining("127.0.0.1:" + broker.port())
                .hasMessageContaining("SASL_AUTHENTICATION_FAILED");
    }

    @Test
    void aMechanismTheBrokerDoesNotEnableIsAnAuthenticationError() {
        broker.on(ApiKey.SASL_HANDSHAKE, ex -> ex.respond(SaslHandshakeResponse.SPEC,
                new SaslHandshakeResponse((short) 33, List.of("PLAIN"))));
        Throwable error = BrokerConnection.connect("127.0.0.1", broker.port(), TestNetworkOptions.defaults()
                        .withSecurity(new ConnectionSecurity(null, ONE_TOKEN)))
                .then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block(Duration.ofSeconds(10));
        assertThat(error).isExactlyInstanceOf(AuthenticationException.class)
                .hasMessageContaining("does not enable SASL mechanism TEST-MECH").hasMessageContaining("[PLAIN]");
    }

    /** A listener without SASL answers the handshake with ILLEGAL_SASL_STATE: the error says what to check. */
    @Test
    void aListenerWithoutSaslIsNamedAsTheLikelyCause() {
        broker.on(ApiKey.SASL_HANDSHAKE, ex -> ex.respond(SaslHandshakeResponse.SPEC,
                new SaslHandshakeResponse((short) 34, List.of())));
        Throwable error = BrokerConnection.connect("127.0.0.1", broker.port(), TestNetworkOptions.defaults()
                        .withSecurity(new ConnectionSecurity(null, ONE_TOKEN)))
                .then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block(Duration.ofSeconds(10));
        assertThat(error).isExactlyInstanceOf(AuthenticationException.class)
                .hasMessageContaining("127.0.0.1:" + broker.port()).hasMessageContaining("ILLEGAL_SASL_STATE")
                .hasMessageContaining("does not use SASL").hasMessageContaining("security.protocol");
    }

    @Test
    void reauthenticationHoldsNewRequestsBackAndKeepsTheConnection() {
        // a 300 ms session: re-authentication every 255-285 ms; pings answered after 40 ms, so some are in
        // flight when it becomes due and others are submitted while it runs
        broker.on(ApiKey.SASL_AUTHENTICATE, ex -> ex.ctx.executor().schedule(() -> ex.respond(
                SaslAuthenticateResponse.SPEC, new SaslAuthenticateResponse((short) 0, null, new byte[0], 300L)),
                20, TimeUnit.MILLISECONDS));
        // broker side, one event loop: pings not yet answered, and how many were when a handshake arrived
        int[] outstanding = new int[1];
        List<Integer> outstandingAtHandshake = new ArrayList<>();
        broker.on(ApiKey.SASL_HANDSHAKE, ex -> {
            outstandingAtHandshake.add(outstanding[0]);
            ex.respond(SaslHandshakeResponse.SPEC, new SaslHandshakeResponse((short) 0, List.of("TEST-MECH")));
        });
        broker.on(ApiKey.HEARTBEAT, ex -> {
            outstanding[0]++;
            ex.ctx.executor().schedule(() -> {
                outstanding[0]--;
                TestMessages.PingRequest ping = (TestMessages.PingRequest) ex.body;
                ex.respond(TestMessages.PingResponse.SPEC,
                        new TestMessages.PingResponse((short) 0, ping.value(), ping.text()));
            }, 40, TimeUnit.MILLISECONDS);
        });
        BrokerConnection c = connect();

        List<Integer> answered = Flux.interval(Duration.ofMillis(7)).take(200).onBackpressureBuffer()
                .flatMap(i -> c.exchange(new TestMessages.PingRequest(i.intValue(), "p")), 16)
                .map(TestMessages.PingResponse::value)
                .collectList().block(Duration.ofSeconds(30));

        assertThat(answered).hasSize(200);
        assertThat(broker.connections.get()).isEqualTo(1);
        assertThat(c.reauthentications()).isGreaterThanOrEqualTo(3);
        // no ping was unanswered when a (re-)authentication began, and between its SaslHandshake and its
        // SaslAuthenticate nothing else was sent
        assertThat(outstandingAtHandshake).hasSizeGreaterThanOrEqualTo(4).containsOnly(0);
        List<Exchange> all = new ArrayList<>(broker.received);
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).apiKey == ApiKey.SASL_HANDSHAKE) {
                assertThat(all.get(i + 1).apiKey).isEqualTo(ApiKey.SASL_AUTHENTICATE);
            }
        }
    }
}
