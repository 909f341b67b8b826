package io.kflux;

import java.util.Objects;

/**
 * An OAuth 2 bearer token for SASL/OAUTHBEARER (KIP-255), as an {@link OAuthBearerTokenProvider} hands it out.
 *
 * @param value         the compact token (usually a JWT) sent to the broker; never printed by {@link #toString()}
 * @param principalName who the token stands for (its subject), for logs and messages
 * @param expiresAtMs   when the token expires, in ms since the epoch; kflux asks the provider for a new one
 *                      before then (and brokers end sessions when it passes, KIP-368)
 */
public record OAuthBearerToken(String value, String principalName, long expiresAtMs) {

    /**
     * @throws NullPointerException     if {@code value} or {@code principalName} is null
     * @throws IllegalArgumentException if {@code value} is empty
     */
    public OAuthBearerToken {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(principalName, "principalName");
        if (value.isEmpty()) {
            throw new IllegalArgumentException("an OAuth bearer token must not be empty");
        }
    }

    /** Leaves the token itself out: it is a credential. */
    @Override
    public String toString() {
        return "OAuthBearerToken[principalName=" + principalName + ", expiresAtMs=" + expiresAtMs + ", value=[hidden]]";
    }
}
