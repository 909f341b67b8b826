package io.kflux.internal.security;

import io.kflux.OAuthBearerToken;
import io.kflux.network.SaslAuthenticator;
import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Mono;

/**
 * SASL/OAUTHBEARER (RFC 7628, KIP-255): the client's first message carries the bearer token; a broker that
 * refuses it answers with an error challenge, to which the client sends the single byte {@code 0x01}, and the
 * broker then fails the exchange (SASL_AUTHENTICATION_FAILED).
 */
final class OAuthBearerMechanism implements SaslAuthenticator {
    private static final byte[] ERROR_ACK = {0x01};

    private final Mono<OAuthBearerToken> tokens;

    OAuthBearerMechanism(Mono<OAuthBearerToken> tokens) {
        this.tokens = tokens;
    }

    @Override
    public String mechanism() {
        return "OAUTHBEARER";
    }

    @Override
    public Exchange newExchange(String brokerHost) {
        return Exchange.clientFirst(tokens.map(t -> ("n,,\u0001auth=Bearer " + t.value() + "\u0001\u0001")
                        .getBytes(StandardCharsets.UTF_8)),
                challenge -> challenge.length == 0 ? Mono.empty() : Mono.just(ERROR_ACK));
    }

    @Override
    public String toString() {
        return "OAUTHBEARER";
    }
}
