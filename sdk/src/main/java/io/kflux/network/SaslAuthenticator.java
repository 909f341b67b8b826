package io.kflux.network;

import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * One SASL mechanism as the network layer drives it: {@link BrokerConnection} sends SaslHandshake
 * with {@link #mechanism()}, then one SaslAuthenticate per token the {@link Exchange} produces
 * (KIP-43, KIP-152). A fresh exchange is made for every authentication, including each
 * re-authentication on the same connection (KIP-368).
 */
public interface SaslAuthenticator {

    /** The mechanism name sent in SaslHandshake, e.g. {@code SCRAM-SHA-256}. */
    String mechanism();

    /**
     * A new exchange for one authentication.
     *
     * @param brokerHost the host name the connection was opened to (for mechanisms that bind to it)
     */
    Exchange newExchange(String brokerHost);

    /** The client side of one SASL exchange. Called on an event loop: must not block. */
    interface Exchange {
        /**
         * The next token to send.
         *
         * @param challenge the broker's last token; empty for the first call
         * @return the token to send in the next SaslAuthenticate, or an empty Mono when the exchange is
         * complete and nothing more is to be sent; fails with {@link io.kflux.AuthenticationException} when the
         * broker's token is not acceptable (e.g. a wrong SCRAM server signature) or credentials cannot be had
         */
        Mono<byte[]> respond(byte[] challenge);

        /**
         * An exchange whose client speaks first: {@code first} is sent, then each broker token goes to
         * {@code afterwards} (PLAIN and OAUTHBEARER have this shape).
         */
        static Exchange clientFirst(Mono<byte[]> first, Function<byte[], Mono<byte[]>> afterwards) {
            return new Exchange() {
                private boolean sent;

                @Override
                public Mono<byte[]> respond(byte[] challenge) {
                    if (sent) {
                        return afterwards.apply(challenge);
                    }
                    sent = true;
                    return first;
                }
            };
        }
    }
}
