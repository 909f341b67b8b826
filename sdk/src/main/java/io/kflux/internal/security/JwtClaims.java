package io.kflux.internal.security;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * The little JSON OAUTHBEARER needs, with Jackson's streaming parser: the top-level scalar members of an
 * object (a token endpoint's answer, a JWT's claims), and the unsecured JWT of the official login module.
 */
final class JwtClaims {
    private static final JsonFactory JSON = new JsonFactory();

    private JwtClaims() {
    }

    /**
     * The top-level members of a JSON object whose values are strings or numbers (numbers as {@link Number});
     * nested values are skipped.
     *
     * @throws IllegalArgumentException when the text is not a JSON object; the message quotes none of it
     */
    static Map<String, Object> scalars(byte[] json) {
        Map<String, Object> out = new HashMap<>();
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (value == JsonToken.VALUE_STRING) {
                    out.put(name, p.getText());
                } else if (value == JsonToken.VALUE_NUMBER_INT || value == JsonToken.VALUE_NUMBER_FLOAT) {
                    out.put(name, p.getNumberValue());
                } else if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("malformed JSON (" + e.getClass().getSimpleName() + ")");
        }
        return out;
    }

    /**
     * The claims of a compact JWT (its middle part).
     *
     * @throws IllegalArgumentException when it is not a JWT; the message quotes none of it
     */
    static Map<String, Object> ofJwt(String token) {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("a JWT has three dot-separated parts, this token has " + parts.length);
        }
        try {
            return scalars(Base64.getUrlDecoder().decode(parts[1]));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the JWT's claims are not base64url JSON: " + e.getMessage());
        }
    }

    /** An unsecured JWT ({@code "alg":"none"}, empty signature), as the official login module makes them. */
    static String unsecured(String principalClaim, String principal, String scopeClaim, String scope,
                            long issuedAtMs, long lifetimeMs) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String header = b64.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream claims = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(claims)) {
            g.writeStartObject();
            g.writeNumberField("iat", issuedAtMs / 1000.0);
            g.writeNumberField("exp", (issuedAtMs + lifetimeMs) / 1000.0);
            g.writeStringField(principalClaim, principal);
            if (scope != null) {
                g.writeStringField(scopeClaim, scope);
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return header + "." + b64.encodeToString(claims.toByteArray()) + ".";
    }
}
