package io.kflux.network;

import io.kflux.AuthenticationException;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.SaslAuthenticateRequest;
import io.kflux.protocol.message.SaslAuthenticateResponse;
import io.kflux.protocol.message.SaslHandshakeRequest;
import io.kflux.protocol.message.SaslHandshakeResponse;
import reactor.core.publisher.Mono;

/**
 * One SASL authentication on a connection: SaslHandshake v1 naming the mechanism, then SaslAuthenticate
 * requests carrying the mechanism's tokens until it has nothing more to send (KIP-43, KIP-152). Used for the
 * first authentication after ApiVersions and for every re-authentication (KIP-368).
 *
 * <p>Every refusal is an {@link AuthenticationException} that names the broker and the mechanism and never
 * a credential: the broker's own error message is quoted, and brokers do not put secrets there.
 */
final class SaslSession {
    private final BrokerConnection connection;
    private final SaslAuthenticator sasl;
    private final String broker;
    private long sessionLifetimeMs;

    private SaslSession(BrokerConnection connection, SaslAuthenticator sasl) {
        this.connection = connection;
        this.sasl = sasl;
        this.broker = io.kflux.util.HostPort.of(connection.address());
    }

    /**
     * Authenticates {@code connection} with {@code sasl}.
     *
     * @return the session lifetime the broker granted, in ms (0: no re-authentication needed); fails with
     * {@link AuthenticationException} when the broker refuses, or with the network error that ended an exchange
     */
    static Mono<Long> authenticate(BrokerConnection connection, SaslAuthenticator sasl) {
        return Mono.defer(() -> new SaslSession(connection, sasl).run());
    }

    private Mono<Long> run() {
        String mechanism = sasl.mechanism();
        if (connection.version(SaslHandshakeRequest.SPEC) < 1 || connection.version(SaslAuthenticateRequest.SPEC) < 0) {
            return Mono.error(new AuthenticationException("broker " + broker + " does not offer SaslHandshake v1 and "
                    + "SaslAuthenticate, so SASL mechanism " + mechanism + " cannot be used (a listener without SASL?)"));
        }
        return connection.sendAuthentication(new SaslHandshakeRequest(mechanism))
                .flatMap(this::afterHandshake)
                .then(Mono.fromSupplier(() -> sessionLifetimeMs));
    }

    private Mono<Void> afterHandshake(SaslHandshakeResponse response) {
        short code = response.errorCode();
        if (code == Errors.UNSUPPORTED_SASL_MECHANISM.code()) {
            return Mono.error(new AuthenticationException("broker " + broker + " does not enable SASL mechanism "
                    + sasl.mechanism() + " on this listener; it enables " + response.mechanisms()));
        }
        if (code == Errors.ILLEGAL_SASL_STATE.code()) {
            // a PLAINTEXT or SSL listener answers a SaslHandshake so: its connections are authenticated already
            return Mono.error(new AuthenticationException("broker " + broker + " refused the SaslHandshake for mechanism "
                    + sasl.mechanism() + " with ILLEGAL_SASL_STATE (" + code + "): its listener most likely does not use"
                    + " SASL; check security.protocol (SASL_PLAINTEXT or SASL_SSL need a SASL listener)"));
        }
        if (code != 0) {
            return Mono.error(new AuthenticationException("SaslHandshake for mechanism " + sasl.mechanism() + " with broker "
                    + broker + " failed with " + Errors.nameOf(code) + " (" + code + ")"));
        }
        return step(sasl.newExchange(connection.address().getHostString()), new byte[0]);
    }

    private Mono<Void> step(SaslAuthenticator.Exchange exchange, byte[] challenge) {
        return exchange.respond(challenge)
                .flatMap(token -> connection.sendAuthentication(new SaslAuthenticateRequest(token)))
                .flatMap(response -> {
                    if (response.errorCode() != 0) {
                        return Mono.error(refused(response));
                    }
                    sessionLifetimeMs = response.sessionLifetimeMs();
                    return step(exchange, response.authBytes() == null ? new byte[0] : response.authBytes())
                            .thenReturn(Boolean.TRUE);
                })
                .then();
    }

    private AuthenticationException refused(SaslAuthenticateResponse response) {
        String why = response.errorMessage() == null || response.errorMessage().isEmpty() ? ""
                : ": " + response.errorMessage();
        return new AuthenticationException("SASL authentication with mechanism " + sasl.mechanism() + " to broker "
                + broker + " failed with " + Errors.nameOf(response.errorCode()) + why);
    }
}
