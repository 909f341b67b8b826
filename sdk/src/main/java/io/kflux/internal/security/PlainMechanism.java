package io.kflux.internal.security;

import io.kflux.internal.config.Password;
import io.kflux.network.SaslAuthenticator;
import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Mono;

/** SASL/PLAIN (RFC 4616): one token, {@code \0username\0password}; the broker answers with no token. */
final class PlainMechanism implements SaslAuthenticator {
    private final String username;
    private final Password password;

    PlainMechanism(String username, Password password) {
        this.username = username;
        this.password = password;
    }

    @Override
    public String mechanism() {
        return "PLAIN";
    }

    @Override
    public Exchange newExchange(String brokerHost) {
        return Exchange.clientFirst(Mono.fromSupplier(() -> ("\0" + username + "\0" + password.value())
                .getBytes(StandardCharsets.UTF_8)), challenge -> Mono.empty());
    }

    @Override
    public String toString() {
        return "PLAIN[username=" + username + "]";
    }
}
