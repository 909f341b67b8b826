package io.kflux;

import reactor.core.publisher.Mono;

/**
 * Supplies the tokens of SASL/OAUTHBEARER programmatically (set with
 * {@link ConsumerOptions#withOAuthBearerTokenProvider(OAuthBearerTokenProvider)}); it replaces the token that
 * {@code sasl.jaas.config} would otherwise describe (unsecured or KIP-768 client credentials).
 *
 * <p>kflux asks for a token before each authentication and re-authentication and caches it until 80% of
 * its lifetime has passed. The Mono is subscribed on a network event loop: it must not block (use
 * {@code subscribeOn} for blocking work). Its error ends the connection attempt with an
 * {@link AuthenticationException}.
 */
@FunctionalInterface
public interface OAuthBearerTokenProvider {

    /**
     * A valid token.
     *
     * @return one token; an empty Mono counts as a failure
     */
    Mono<OAuthBearerToken> token();
}
