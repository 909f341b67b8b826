package io.kflux;

import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * A SASL mechanism that kflux does not build in (e.g. a cloud vendor's IAM mechanism), plugged in with
 * {@link ConsumerOptions#withSaslMechanism(SaslMechanism)} or found with {@link java.util.ServiceLoader} when
 * {@code sasl.mechanism} names it. kflux runs SaslHandshake with {@link #name()} and one SaslAuthenticate per
 * token the {@link Exchange} produces (KIP-43, KIP-152); the built-in GSSAPI, PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and
 * OAUTHBEARER cannot be replaced.
 */
public interface SaslMechanism {

    /**
     * The mechanism name sent in SaslHandshake and matched against {@code sasl.mechanism}.
     *
     * @return e.g. {@code AWS_MSK_IAM}
     */
    String name();

    /**
     * Starts one authentication (each connection, and each re-authentication of it, gets its own).
     *
     * @param brokerHost  the host name connected to
     * @param jaasOptions the options of the {@code sasl.jaas.config} entry, empty when none is set
     * @return the exchange
     */
    Exchange start(String brokerHost, Map<String, String> jaasOptions);

    /** The client side of one SASL exchange. */
    interface Exchange {
        /**
         * The next token to send. Called on a network event loop: must not block.
         *
         * @param challenge the broker's last token; empty for the first call
         * @return the token for the next SaslAuthenticate, or an empty Mono when nothing more is to be sent; an
         * error fails the connection attempt with an {@link AuthenticationException}
         */
        Mono<byte[]> respond(byte[] challenge);
    }
}
