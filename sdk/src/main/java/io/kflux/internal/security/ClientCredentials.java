package io.kflux.internal.security;

import io.kflux.AuthenticationException;
import io.kflux.OAuthBearerToken;
import io.kflux.OAuthBearerTokenProvider;
import io.kflux.internal.config.Password;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * OAuth 2 client credentials grant (RFC 6749 section 4.4) for OAUTHBEARER, as KIP-768 configures it: a POST of
 * {@code grant_type=client_credentials} (and {@code scope}) to {@code sasl.oauthbearer.token.endpoint.url} with
 * the client id and secret in HTTP Basic authentication; the answer's {@code access_token} is the token, its
 * subject claim ({@code sasl.oauthbearer.sub.claim.name}, {@code sub}) the principal, its {@code exp} claim (or
 * {@code expires_in}) the expiry. Runs on the JDK's {@link HttpClient} ({@code sendAsync}): nothing blocks, and kflux
 * needs no HTTP library for one POST per token lifetime.
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
    private final Duration readTimeout;
    private final HttpClient http;

    ClientCredentials(URI endpoint, String clientId, Password clientSecret, String scope, String subClaim,
                      Duration connectTimeout, Duration readTimeout) {
        this.endpoint = endpoint;
        this.clientId = clientId;
        this.clientSecret = clientSecret;
        this.scope = scope;
        this.subClaim = subClaim;
        this.readTimeout = readTimeout;
        // one client per provider: its connection pool and selector thread live as long as the consumer holds it
        this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).build();
    }

    @Override
    public Mono<OAuthBearerToken> token() {
        String basic = Base64.getEncoder().encodeToString((form(clientId) + ":" + form(clientSecret.value()))
                .getBytes(StandardCharsets.UTF_8));
        String body = "grant_type=client_credentials" + (scope == null || scope.isEmpty() ? "" : "&scope=" + form(scope));
        HttpRequest request = HttpRequest.newBuilder(endpoint)
                .timeout(readTimeout)
                .header("Authorization", "Basic " + basic)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build();
        // fromFuture with a supplier: each subscription (each refresh) sends its own request
        return Mono.fromFuture(() -> http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()))
                .map(response -> parse(response.statusCode(), response.body() == null ? new byte[0] : response.body()))
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
