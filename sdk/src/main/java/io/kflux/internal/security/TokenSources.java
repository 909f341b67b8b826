package io.kflux.internal.security;

import io.kflux.AuthenticationException;
import io.kflux.OAuthBearerToken;
import io.kflux.OAuthBearerTokenProvider;
import java.time.Duration;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * Where OAUTHBEARER tokens come from, each cached until {@code sasl.login.refresh.window.factor} (0.8 by
 * default) of its lifetime has passed, so every connection and re-authentication before then shares one token and
 * the first one after it fetches a fresh one. Concurrent callers share one fetch.
 */
final class TokenSources {

    private TokenSources() {
    }

    /** {@code provider}'s tokens, cached. */
    static Mono<OAuthBearerToken> cached(OAuthBearerTokenProvider provider, double refreshWindowFactor) {
        Mono<OAuthBearerToken> fetch = Mono.defer(provider::token)
                .switchIfEmpty(Mono.error(() -> new AuthenticationException("the OAuthBearerTokenProvider gave no token")));
        return fetch.cache(token -> refreshIn(token, refreshWindowFactor), e -> Duration.ZERO, () -> Duration.ZERO);
    }

    private static Duration refreshIn(OAuthBearerToken token, double factor) {
        long now = System.currentTimeMillis();
        long left = token.expiresAtMs() - now;
        return left <= 0 ? Duration.ZERO : Duration.ofMillis((long) (left * factor));
    }

    /**
     * The official module's unsecured tokens (for development only): {@code unsecuredLoginStringClaim_sub},
     * {@code unsecuredLoginLifetimeSeconds} (3600), {@code unsecuredLoginPrincipalClaimName} ({@code sub}),
     * {@code unsecuredLoginScopeClaimName} ({@code scope}) with {@code unsecuredLoginListClaim_scope} ignored.
     */
    static OAuthBearerTokenProvider unsecured(Map<String, String> jaas) {
        String principalClaim = jaas.getOrDefault("unsecuredLoginPrincipalClaimName", "sub");
        String principal = jaas.get("unsecuredLoginStringClaim_" + principalClaim);
        long lifetimeMs = Long.parseLong(jaas.getOrDefault("unsecuredLoginLifetimeSeconds", "3600")) * 1000L;
        String scopeClaim = jaas.getOrDefault("unsecuredLoginScopeClaimName", "scope");
        String scope = jaas.get("unsecuredLoginStringClaim_" + scopeClaim);
        return () -> Mono.fromSupplier(() -> {
            long now = System.currentTimeMillis();
            return new OAuthBearerToken(JwtClaims.unsecured(principalClaim, principal, scopeClaim, scope, now, lifetimeMs),
                    principal, now + lifetimeMs);
        });
    }
}
