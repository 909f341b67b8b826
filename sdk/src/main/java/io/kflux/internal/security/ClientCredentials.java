package io.kflux.internal.security;

import io.kflux.AuthenticationException;
import io.kflux.OAuthBearerToken;
import io.kflux.OAuthBearerTokenProvider;
import io.kflux.internal.config.Password;
import io.kflux.network.IoLoops;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;

/**
 * OAuth 2 client credentials grant (RFC 6749 section 4.4) for OAUTHBEARER, as KIP-768 configures it: a POST of
 * {@code grant_type=client_credentials} (and {@code scope}) to {@code sasl.oauthbearer.token.endpoint.url} with
 * the client id and secret in HTTP Basic authentication; the answer's {@code access_token} is the token, its
 * subject claim ({@code sasl.oauthbearer.sub.claim.name}, {@code sub}) the principal, its {@code exp} claim (or
 * {@code expires_in}) the expiry. Runs on reactor-netty's HTTP client on kflux's event loops: nothing blocks.
 *
 * <p>A 4xx answer (e.g. a wrong secret) is an {@link AuthenticationException}; an unreachable endpoint or a
 * 5xx answer is an {@link IllegalStateException}, which the connection treats as retriable. Neither message
 * quotes the secret or the token.
 */
final class ClientCredentials implements OAuthBearerTokenProvider {
    private final URI endpoint;
    private final String clientId;
    private final Password clientSecret;
    private final String scope;
    private final String subClaim;
    private final HttpClient http;

    ClientCredentials(URI endpoint, String clientId, Password clientSecret, String scope, String subClaim,
                      Duration connectTimeout, Duration readTimeout) {
        this.endpoint = endpoint;
        this.clientId = clientId;
        this.clientSecret = clientSecret;
        this.scope = scope;
        this.subClaim = subClaim;
        this.http = HttpClient.create()
                .runOn(IoLoops.shared())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .responseTimeout(readTimeout);
    }

    @Override
    public Mono<OAuthBearerToken> token() {
        String basic = Base64.getEncoder().encodeToString((form(clientId) + ":" + form(clientSecret.value()))
                .getBytes(StandardCharsets.UTF_8));
        String body = "grant_type=client_credentials" + (scope == null || scope.isEmpty() ? "" : "&scope=" + form(scope));
        return http.headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Basic " + basic)
                        .set(HttpHeaderNames.CONTENT_TYPE, "application/x-www-form-urlencoded")
                        .set(HttpHeaderNames.ACCEPT, "application/json"))
                .post()
                .uri(endpoint)
                .send(ByteBufFlux.fromString(Mono.just(body)))
                .responseSingle((response, content) -> content.asByteArray().defaultIfEmpty(new byte[0])
                        .map(bytes -> parse(response.status().code(), bytes)))
                .onErrorMap(e -> !(e instanceof AuthenticationException) && !(e instanceof IllegalStateException),
                        e -> new IllegalStateException("the OAuth token endpoint " + endpoint + " could not be reached: "
                                + e.getClass().getSimpleName(), e));
    }

    private OAuthBearerToken parse(int status, byte[] body) {
        if (status >= 400 && status < 500) {
            throw new AuthenticationException("the OAuth token endpoint " + endpoint + " refused client id " + clientId
                    + " with HTTP " + status);
        }
        if (status != 200) {
            throw new IllegalStateException("the OAuth token endpoint " + endpoint + " answered HTTP " + status);
        }
        Map<String, Object> answer;
        try {
            answer = JwtClaims.scalars(body);
        } catch (IllegalArgumentException e) {
            throw new AuthenticationException("the OAuth token endpoint " + endpoint + " sent no JSON object: " + e.getMessage());
        }
        if (!(answer.get("access_token") instanceof String token) || token.isEmpty()) {
            throw new AuthenticationException("the OAuth token endpoint " + endpoint + " sent no access_token");
        }
        Map<String, Object> claims;
        try {
            claims = JwtClaims.ofJwt(token);
        } catch (IllegalArgumentException e) {
            throw new AuthenticationException("the access token from " + endpoint + " is not a JWT: " + e.getMessage());
        }
        long now = System.currentTimeMillis();
        long expiresAtMs;
        if (claims.get("exp") instanceof Number exp) {
            expiresAtMs = (long) (exp.doubleValue() * 1000);
        } else if (answer.get("expires_in") instanceof Number in) {
            expiresAtMs = now + (long) (in.doubleValue() * 1000);
        } else {
            throw new AuthenticationException("the access token from " + endpoint + " has no exp claim and no expires_in");
        }
        Object sub = claims.get(subClaim);
        if (!(sub instanceof String principal) || principal.isEmpty()) {
            throw new AuthenticationException("the access token from " + endpoint + " has no " + subClaim + " claim");
        }
        return new OAuthBearerToken(token, principal, expiresAtMs);
    }

    private static String form(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "ClientCredentials[" + endpoint + ", clientId=" + clientId + "]";
    }
}
