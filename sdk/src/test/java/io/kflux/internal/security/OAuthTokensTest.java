package io.kflux.internal.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.OAuthBearerToken;
import io.kflux.OAuthBearerTokenProvider;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredJws;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** Unsecured tokens as the official module reads them, and the token cache. */
class OAuthTokensTest {

    @Test
    void unsecuredTokensParseWithTheOfficialUnsecuredJwsReader() throws Exception {
        OAuthBearerToken token = TokenSources.unsecured(Map.of("unsecuredLoginStringClaim_sub", "alice",
                "unsecuredLoginLifetimeSeconds", "120")).token().block();
        OAuthBearerUnsecuredJws official = new OAuthBearerUnsecuredJws(token.value(), "sub", "scope");
        assertThat(official.principalName()).isEqualTo("alice");
        assertThat(official.lifetimeMs()).isEqualTo(token.expiresAtMs());
        assertThat(official.lifetimeMs() - official.startTimeMs()).isEqualTo(120_000L);
        assertThat(token.principalName()).isEqualTo("alice");
        assertThat(token.toString()).doesNotContain(token.value());
    }

    @Test
    void jwtClaimsAreReadFromTheMiddlePart() {
        String jwt = TokenSources.unsecured(Map.of("unsecuredLoginStringClaim_sub", "bob")).token().block().value();
        Map<String, Object> claims = JwtClaims.ofJwt(jwt);
        assertThat(claims).containsEntry("sub", "bob").containsKeys("iat", "exp");
        assertThat(JwtClaims.scalars("{\"a\":\"x\",\"n\":3,\"nested\":{\"b\":1},\"list\":[1,2]}".getBytes()))
                .containsOnlyKeys("a", "n").containsEntry("a", "x");
    }

    @Test
    void aTokenIsSharedUntilTheRefreshWindowPassed() throws InterruptedException {
        AtomicInteger fetched = new AtomicInteger();
        OAuthBearerTokenProvider provider = () -> Mono.fromSupplier(() -> {
            fetched.incrementAndGet();
            return new OAuthBearerToken("t" + fetched.get(), "p", System.currentTimeMillis() + 4_000);
        });
        Mono<OAuthBearerToken> cached = TokenSources.cached(provider, 0.5);
        assertThat(cached.block().value()).isEqualTo("t1");
        assertThat(cached.block().value()).isEqualTo("t1");
        Thread.sleep(2_500); // past 50% of the 4 s lifetime (a 500 ms one failed under load: the second call came late)
        assertThat(cached.block().value()).isEqualTo("t2");
        assertThat(fetched.get()).isEqualTo(2);
    }
}
