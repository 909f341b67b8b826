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
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Turns {@code security.protocol}, {@code ssl.*} and {@code sasl.*} (plus a programmatic token provider or SASL
 * mechanism) into the network layer's {@link ConnectionSecurity}. Every problem is a {@link ConfigException}
 * naming the key, raised when the consumer is created, never on first connect; no message quotes a secret.
 */
public final class ConnectionSecurities {

    /** The SASL mechanisms kflux builds in. */
    public static final List<String> BUILT_IN = List.of("GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER");

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
            case "GSSAPI" -> {
                return gssapi(c, jaas);
            }
            default -> {
                List<SaslMechanism> found = loaded();
                SaslMechanism m = plugged != null && plugged.name().equalsIgnoreCase(mechanism) ? plugged
                        : found.stream().filter(f -> f.name().equalsIgnoreCase(mechanism)).findFirst().orElse(null);
                if (m == null) {
                    List<String> names = found.stream().map(SaslMechanism::name).toList();
                    throw new ConfigException("sasl.mechanism", mechanism, "one of the built-in " + BUILT_IN
                            + (plugged == null ? "" : ", " + plugged.name() + " (ConsumerOptions.withSaslMechanism)")
                            + (names.isEmpty() ? ", or a mechanism found by ServiceLoader as io.kflux.SaslMechanism (none is)"
                                    : ", or one found by ServiceLoader as io.kflux.SaslMechanism: " + names));
                }
                return new PluggedMechanism(m, jaas);
            }
        }
    }

    /** The mechanisms {@link ServiceLoader} finds; one that cannot be loaded is a configuration error. */
    private static List<SaslMechanism> loaded() {
        try {
            return ServiceLoader.load(SaslMechanism.class, Thread.currentThread().getContextClassLoader()).stream()
                    .map(ServiceLoader.Provider::get).toList();
        } catch (ServiceConfigurationError e) {
            throw new ConfigException("sasl.mechanism", null, "SASL mechanisms registered as io.kflux.SaslMechanism "
                    + "(META-INF/services) that can be loaded; " + e.getMessage(), e);
        }
    }

    /**
     * GSSAPI: the service name from the JAAS entry's {@code serviceName} or {@code sasl.kerberos.service.name}, the
     * login from {@code sasl.jaas.config} or, without it, the JVM's JAAS file entry {@code KafkaClient}, as the
     * official client takes them. GSSAPI is also what {@code sasl.mechanism} defaults to, so the messages say so.
     */
    private static SaslAuthenticator gssapi(ConsumerConfig c, Map<String, String> jaas) {
        String defaulted = c.isSet("sasl.mechanism") ? "" : " (sasl.mechanism is not set; like the official client, "
                + "kflux then uses its default, GSSAPI; set sasl.mechanism for PLAIN, SCRAM-SHA-256/512 or OAUTHBEARER)";
        String serviceName = jaas.getOrDefault("serviceName", c.get("sasl.kerberos.service.name"));
        if (serviceName == null || serviceName.isBlank()) {
            throw new ConfigException("sasl.kerberos.service.name", null, "the Kerberos service name the brokers run as "
                    + "(usually kafka), here or as serviceName in sasl.jaas.config, which GSSAPI needs" + defaulted);
        }
        javax.security.auth.login.AppConfigurationEntry entry = c.saslJaasConfig()
                .map(j -> KerberosLogin.entry(j.loginModule(), j.flag(), j.options())).orElse(null);
        if (entry == null && !jaasFileHasClientEntry()) {
            throw new ConfigException("sasl.jaas.config", null, "a login module entry such as "
                    + "'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab=\"...\" "
                    + "principal=\"...\";', or a " + KerberosLogin.CONTEXT + " entry in the JAAS file named by the system "
                    + "property java.security.auth.login.config, which GSSAPI needs" + defaulted);
        }
        return new GssapiMechanism(serviceName, new KerberosLogin(entry,
                c.<Double>get("sasl.kerberos.ticket.renew.window.factor")));
    }

    private static boolean jaasFileHasClientEntry() {
        try {
            return javax.security.auth.login.Configuration.getConfiguration()
                    .getAppConfigurationEntry(KerberosLogin.CONTEXT) != null;
        } catch (SecurityException e) {
            return false; // no JAAS file configured, or one that cannot be read
        }
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
