package io.kflux.compat.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small OAuth 2 authorization server on loopback for OAUTHBEARER tests: {@code POST /token} answers the client
 * credentials grant (HTTP Basic with {@link #CLIENT_ID} / {@link #CLIENT_SECRET}) with an RS256-signed JWT whose
 * subject is the client id, and {@code GET /jwks} publishes the verification key, which the broker checks tokens
 * against (its {@code OAuthBearerValidatorCallbackHandler}).
 */
public final class TokenEndpoint implements AutoCloseable {
    public static final String CLIENT_ID = "cc-client";
    public static final String CLIENT_SECRET = "cc-secret-Tq42";
    /** The audience every token names; brokers from 4.4 on insist on checking it. */
    public static final String AUDIENCE = "kflux-test-cluster";
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    private final HttpServer server;
    private final KeyPair keys;
    private final AtomicInteger tokensIssued = new AtomicInteger();
    private final long lifetimeSeconds;

    public TokenEndpoint(long lifetimeSeconds) {
        this.lifetimeSeconds = lifetimeSeconds;
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            keys = generator.generateKeyPair();
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        server.createContext("/token", this::token);
        server.createContext("/jwks", this::jwks);
        server.start();
    }

    public String tokenUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/token";
    }

    /** The issuer every token names ({@code iss}); brokers from 4.4 on insist on checking it. */
    public String issuer() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public String jwksUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/jwks";
    }

    public int tokensIssued() {
        return tokensIssued.get();
    }

    private void token(HttpExchange ex) throws IOException {
        String expected = "Basic " + Base64.getEncoder().encodeToString((CLIENT_ID + ":" + CLIENT_SECRET)
                .getBytes(StandardCharsets.UTF_8));
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        if (!"POST".equals(ex.getRequestMethod()) || !expected.equals(ex.getRequestHeaders().getFirst("Authorization"))
                || !body.contains("grant_type=client_credentials")) {
            send(ex, 401, "{\"error\":\"invalid_client\"}");
            return;
        }
        tokensIssued.incrementAndGet();
        send(ex, 200, "{\"access_token\":\"" + jwt() + "\",\"token_type\":\"Bearer\",\"expires_in\":" + lifetimeSeconds + "}");
    }

    private void jwks(HttpExchange ex) throws IOException {
        RSAPublicKey pub = (RSAPublicKey) keys.getPublic();
        send(ex, 200, "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"test-key\",\"use\":\"sig\",\"alg\":\"RS256\",\"n\":\""
                + B64.encodeToString(unsigned(pub.getModulus())) + "\",\"e\":\""
                + B64.encodeToString(unsigned(pub.getPublicExponent())) + "\"}]}");
    }

    private String jwt() {
        long now = System.currentTimeMillis() / 1000;
        String header = B64.encodeToString("{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"test-key\"}"
                .getBytes(StandardCharsets.UTF_8));
        String claims = B64.encodeToString(("{\"sub\":\"" + CLIENT_ID + "\",\"iss\":\"" + issuer() + "\",\"aud\":\""
                + AUDIENCE + "\",\"iat\":" + now + ",\"exp\":" + (now + lifetimeSeconds) + ",\"scope\":\"kafka\"}")
                .getBytes(StandardCharsets.UTF_8));
        try {
            Signature rs256 = Signature.getInstance("SHA256withRSA");
            rs256.initSign(keys.getPrivate());
            rs256.update((header + "." + claims).getBytes(StandardCharsets.US_ASCII));
            return header + "." + claims + "." + B64.encodeToString(rs256.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] unsigned(BigInteger n) {
        byte[] bytes = n.toByteArray();
        if (bytes[0] == 0 && bytes.length > 1) {
            byte[] trimmed = new byte[bytes.length - 1];
            System.arraycopy(bytes, 1, trimmed, 0, trimmed.length);
            return trimmed;
        }
        return bytes;
    }

    private static void send(HttpExchange ex, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
