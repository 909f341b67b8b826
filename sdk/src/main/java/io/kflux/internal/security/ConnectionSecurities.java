package io.kflux.internal.security;

import io.kflux.ConfigException;
import io.kflux.OAuthBearerTokenProvider;
import io.kflux.SaslMechanism;
import io.kflux.internal.config.ConsumerConfig;
import io.kflux.internal.config.JaasConfig;
import io.kflux.internal.config.Password;
import io.kflux.internal.config.SecurityProtocol;
import io.kflux.network.ConnectionSecurity;
import io.kflux.network.SaslAuthenticator;
import io.netty.handler.ssl.SslContext;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Turns {@code security.protocol}, {@code ssl.*} and {@code sasl.*} (plus a programmatic token provider or SASL
 * mechanism) into the network layer's {@link ConnectionSecurity}. Every problem is a {@link ConfigException}
 * naming the key, raised when the consumer is created, never on first connect; no message quotes a secret.
 */
public final class ConnectionSecurities {

    /** The SASL mechanisms kflux builds in. */
    public static final List<String> BUILT_IN = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER");

    /**
     * The system property listing the token endpoint URLs that may be called, comma separated; as in the official
     * client from Kafka 4.0 on, a URL not listed (and every URL when it is unset) is refused.
     */
    static final String ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

    private ConnectionSecurities() {
    }

    /**
     * @param tokenProvider replaces the OAUTHBEARER token {@code sasl.jaas.config} describes; may be null
     * @param plugged       a SASL mechanism that is not built in, used when {@code sasl.mechanism} names it; may be
     *                      null
     * @throws ConfigException for any unusable setting
     */
    public static ConnectionSecurity from(ConsumerConfig c, OAuthBearerTokenProvider tokenProvider, SaslMechanism plugged) {
        SecurityProtocol protocol = c.securityProtocol();
        SslContext tls = protocol.usesTls() ? TlsContexts.build(c) : null;
        SaslAuthenticator sasl = protocol.usesSasl() ? sasl(c, tokenProvider, plugged) : null;
        return new ConnectionSecurity(tls, sasl);
    }

    private static SaslAuthenticator sasl(ConsumerConfig c, OAuthBearerTokenProvider tokenProvider, SaslMechanism plugged) {
        String mechanism = c.saslMechanism();
        Map<String, String> jaas = c.saslJaasConfig().map(JaasConfig::options).orElse(Map.of());
        switch (mechanism) {
            case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512" -> {
                String user = jaas.get("username");
                String password = jaas.get("password");
                if (user == null || password == null) {
                    throw new ConfigException("sasl.jaas.config", c.saslJaasConfig().isPresent() ? Password.HIDDEN : null,
                            "a JAAS entry such as '" + (mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain."
                                    + "PlainLoginModule" : "org.apache.kafka.common.security.scram.ScramLoginModule")
                                    + " required username=\"...\" password=\"...\";' for " + mechanism
                                    + (c.saslJaasConfig().isPresent() ? "; username or password is missing" : ""));
                }
                return mechanism.equals("PLAIN") ? new PlainMechanism(user, new Password(password))
                        : new ScramMechanism(mechanism, user, new Password(password));
            }
            case "OAUTHBEARER" -> {
                double factor = c.<Double>get("sasl.login.refresh.window.factor");
                return new OAuthBearerMechanism(TokenSources.cached(tokenProvider != null ? tokenProvider
                        : oauthTokens(c, jaas), factor));
            }
            default -> {
                SaslMechanism m = plugged != null && plugged.name().equalsIgnoreCase(mechanism) ? plugged : load(mechanism);
                if (m == null) {
                    throw new ConfigException("sasl.mechanism", mechanism, "one of " + BUILT_IN + ", or a mechanism given "
                            + "with ConsumerOptions.withSaslMechanism or found by ServiceLoader as io.kflux.SaslMechanism"
                            + (mechanism.equals("GSSAPI") ? " (kflux does not build in GSSAPI/Kerberos)" : ""));
                }
                return new PluggedMechanism(m, jaas);
            }
        }
    }

    private static SaslMechanism load(String name) {
        for (SaslMechanism m : ServiceLoader.load(SaslMechanism.class, Thread.currentThread().getContextClassLoader())) {
            if (m.name().equalsIgnoreCase(name)) {
                return m;
            }
        }
        return null;
    }

    private static OAuthBearerTokenProvider oauthTokens(ConsumerConfig c, Map<String, String> jaas) {
        String endpoint = c.get("sasl.oauthbearer.token.endpoint.url");
        if (endpoint != null) {
            return clientCredentials(c, jaas, endpoint);
        }
        if (jaas.keySet().stream().anyMatch(k -> k.startsWith("unsecuredLoginStringClaim_"))) {
            String claim = jaas.getOrDefault("unsecuredLoginPrincipalClaimName", "sub");
            if (jaas.get("unsecuredLoginStringClaim_" + claim) == null) {
                throw new ConfigException("sasl.jaas.config", Password.HIDDEN, "unsecuredLoginStringClaim_" + claim
                        + " (the principal of unsecured OAUTHBEARER tokens)");
            }
            try {
                Long.parseLong(jaas.getOrDefault("unsecuredLoginLifetimeSeconds", "3600"));
            } catch (NumberFormatException e) {
                throw new ConfigException("sasl.jaas.config", Password.HIDDEN, "a whole number of seconds as "
                        + "unsecuredLoginLifetimeSeconds");
            }
            return TokenSources.unsecured(jaas);
        }
        throw new ConfigException("sasl.jaas.config", c.saslJaasConfig().isPresent() ? Password.HIDDEN : null,
                "for OAUTHBEARER: sasl.oauthbearer.token.endpoint.url with clientId and clientSecret (KIP-768), "
                        + "unsecuredLoginStringClaim_sub (development only), or a token provider set with "
                        + "ConsumerOptions.withOAuthBearerTokenProvider");
    }

    private static OAuthBearerTokenProvider clientCredentials(ConsumerConfig c, Map<String, String> jaas, String endpoint) {
        URI uri;
        try {
            uri = URI.create(endpoint);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("sasl.oauthbearer.token.endpoint.url", endpoint, "an http or https URL", e);
        }
        if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                || uri.getHost() == null) {
            throw new ConfigException("sasl.oauthbearer.token.endpoint.url", endpoint, "an http or https URL");
        }
        String allowed = System.getProperty(ALLOWED_URLS, "");
        if (Arrays.stream(allowed.split(",")).map(String::trim).noneMatch(endpoint::equals)) {
            throw new ConfigException("sasl.oauthbearer.token.endpoint.url", endpoint,
                    "a URL listed in the JVM system property " + ALLOWED_URLS + " (comma separated), "
                    + "which the official client requires too");
        }
        String clientId = jaas.getOrDefault("clientId", c.get("sasl.oauthbearer.client.credentials.client.id"));
        Password configSecret = c.get("sasl.oauthbearer.client.credentials.client.secret");
        String secret = jaas.getOrDefault("clientSecret", configSecret == null ? null : configSecret.value());
        if (clientId == null || secret == null) {
            throw new ConfigException("sasl.jaas.config", c.saslJaasConfig().isPresent() ? Password.HIDDEN : null,
                    "clientId and clientSecret (or sasl.oauthbearer.client.credentials.client.id/.secret) for the "
                            + "client credentials grant of sasl.oauthbearer.token.endpoint.url");
        }
        String scope = jaas.getOrDefault("scope", c.get("sasl.oauthbearer.scope"));
        String subClaim = c.get("sasl.oauthbearer.sub.claim.name");
        Integer connectMs = c.get("sasl.login.connect.timeout.ms");
        Integer readMs = c.get("sasl.login.read.timeout.ms");
        return new ClientCredentials(uri, clientId, new Password(secret), scope, subClaim == null ? "sub" : subClaim,
                Duration.ofMillis(connectMs == null ? 10_000 : connectMs), Duration.ofMillis(readMs == null ? 10_000 : readMs));
    }
}
