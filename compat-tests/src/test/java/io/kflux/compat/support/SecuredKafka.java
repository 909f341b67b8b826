package io.kflux.compat.support;

import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * A one-node cluster with secured listeners, for the security tests:
 * <ul>
 *   <li>{@code SASL_SSL}: PLAIN (user {@code alice}), SCRAM-SHA-256 ({@code scram256}), SCRAM-SHA-512
 *       ({@code scram512}), both created when the storage is formatted, and OAUTHBEARER (unsecured tokens);</li>
 *   <li>{@code SSL}: mutual TLS, {@code ssl.client.auth=required};</li>
 *   <li>{@code MISMATCH}: TLS with a certificate for another host name;</li>
 *   <li>{@code EXPIRED} and {@code NOTYET}: TLS with a certificate that expired ten days ago, or is valid only in ten
 *       days;</li>
 *   <li>{@code OAUTH}: SASL_SSL with OAUTHBEARER only, tokens signed by the test's {@link TokenEndpoint} and
 *       checked by the broker against its JWKS;</li>
 *   <li>{@code REAUTH}: SASL_PLAINTEXT with PLAIN only and {@code connections.max.reauth.ms} of
 *       {@link #REAUTH_MS} (KIP-368);</li>
 *   <li>{@code PLAINTEXT}: the test's own admin and producer (user ANONYMOUS, a super user).</li>
 * </ul>
 * The broker runs {@code StandardAuthorizer}: every user may read topics and use groups named {@code sec-*};
 * anything else is denied.
 */
public final class SecuredKafka implements AutoCloseable {
    public static final String ALICE_PASSWORD = "alice-pw-Zq81";
    public static final String SCRAM256_PASSWORD = "scram256-pw-Hx27";
    public static final String SCRAM512_PASSWORD = "scram512-pw-Kc55";
    public static final long REAUTH_MS = 3000;
    /** Topics and groups with this prefix are readable by every authenticated user. */
    public static final String ALLOWED = "sec-";

    private final TestCertificates certs;
    private final EmbeddedKafkaCluster cluster;
    private final TokenEndpoint tokens;

    private SecuredKafka(TestCertificates certs, EmbeddedKafkaCluster cluster, TokenEndpoint tokens) {
        this.certs = certs;
        this.cluster = cluster;
        this.tokens = tokens;
    }

    public static SecuredKafka start() {
        TestCertificates certs = TestCertificates.create();
        TokenEndpoint tokens = new TokenEndpoint(3600);
        String plain = "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"" + ALICE_PASSWORD + "\";";
        String scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;";
        EmbeddedKafkaCluster.Builder b = EmbeddedKafkaCluster.builder()
                .classpath(BrokerVersion.current().classpath())
                .brokerJvmArgs("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                        "-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=" + tokens.jwksUrl())
                .listener("SASL_SSL", "SASL_SSL")
                .listener("OAUTH", "SASL_SSL")
                .listener("SSL", "SSL")
                .listener("MISMATCH", "SSL")
                .listener("REAUTH", "SASL_PLAINTEXT")
                .listener("EXPIRED", "SSL")
                .listener("NOTYET", "SSL")
                .formatArgs("--add-scram", "SCRAM-SHA-256=[name=scram256,password=" + SCRAM256_PASSWORD + "]",
                        "--add-scram", "SCRAM-SHA-512=[name=scram512,password=" + SCRAM512_PASSWORD + "]")
                .brokerProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                .brokerProperty("super.users", "User:ANONYMOUS")
                .brokerProperty("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER")
                .brokerProperty("listener.name.sasl_ssl.plain.sasl.jaas.config", plain)
                .brokerProperty("listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", scram)
                .brokerProperty("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", scram)
                .brokerProperty("listener.name.sasl_ssl.oauthbearer.sasl.jaas.config",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                                + "unsecuredLoginStringClaim_sub=\"broker\";")
                .brokerProperty("listener.name.oauth.sasl.enabled.mechanisms", "OAUTHBEARER")
                .brokerProperty("listener.name.oauth.oauthbearer.sasl.jaas.config",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;")
                .brokerProperty("listener.name.oauth.oauthbearer.sasl.server.callback.handler.class",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler")
                .brokerProperty("listener.name.oauth.oauthbearer.sasl.oauthbearer.jwks.endpoint.url", tokens.jwksUrl())
                .brokerProperty("sasl.oauthbearer.jwks.endpoint.url", tokens.jwksUrl())
                .brokerProperty("listener.name.oauth.oauthbearer.sasl.oauthbearer.expected.audience", TokenEndpoint.AUDIENCE)
                .brokerProperty("sasl.oauthbearer.expected.audience", TokenEndpoint.AUDIENCE)
                .brokerProperty("listener.name.oauth.oauthbearer.sasl.oauthbearer.expected.issuer", tokens.issuer())
                .brokerProperty("sasl.oauthbearer.expected.issuer", tokens.issuer())
                .brokerProperty("listener.name.reauth.sasl.enabled.mechanisms", "PLAIN")
                .brokerProperty("listener.name.reauth.plain.sasl.jaas.config", plain)
                .brokerProperty("listener.name.reauth.connections.max.reauth.ms", Long.toString(REAUTH_MS))
                .brokerProperty("ssl.keystore.location", certs.path("broker.p12"))
                .brokerProperty("ssl.keystore.type", "PKCS12")
                .brokerProperty("ssl.keystore.password", TestCertificates.PASSWORD)
                .brokerProperty("ssl.key.password", TestCertificates.PASSWORD)
                .brokerProperty("ssl.truststore.location", certs.path("ca-trust.p12"))
                .brokerProperty("ssl.truststore.type", "PKCS12")
                .brokerProperty("ssl.truststore.password", TestCertificates.PASSWORD)
                .brokerProperty("listener.name.ssl.ssl.client.auth", "required")
                .brokerProperty("listener.name.mismatch.ssl.keystore.location", certs.path("mismatch.p12"))
                .brokerProperty("listener.name.mismatch.ssl.keystore.type", "PKCS12")
                .brokerProperty("listener.name.mismatch.ssl.keystore.password", TestCertificates.PASSWORD)
                .brokerProperty("listener.name.mismatch.ssl.key.password", TestCertificates.PASSWORD)
                // the broker checks its own certificate at start-up; this one names another host on purpose
                .brokerProperty("listener.name.mismatch.ssl.endpoint.identification.algorithm", "");
        for (String badDates : List.of("expired", "notyet")) {
            String prefix = "listener.name." + badDates + ".";
            b.brokerProperty(prefix + "ssl.keystore.location", certs.path(badDates + ".p12"))
                    .brokerProperty(prefix + "ssl.keystore.type", "PKCS12")
                    .brokerProperty(prefix + "ssl.keystore.password", TestCertificates.PASSWORD)
                    .brokerProperty(prefix + "ssl.key.password", TestCertificates.PASSWORD)
                    // the broker test-handshakes its own certificate at start-up; trusting the leaf itself skips the
                    // date check there (a trusted certificate is not validated), clients still see the bad dates
                    .brokerProperty(prefix + "ssl.truststore.location", certs.path(badDates + "-self.p12"))
                    .brokerProperty(prefix + "ssl.truststore.type", "PKCS12")
                    .brokerProperty(prefix + "ssl.truststore.password", TestCertificates.PASSWORD);
        }
        EmbeddedKafkaCluster cluster;
        try {
            cluster = b.start();
        } catch (RuntimeException e) {
            tokens.close();
            throw e;
        }
        SecuredKafka kafka = new SecuredKafka(certs, cluster, tokens);
        try {
            kafka.allowPrefix();
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
        return kafka;
    }

    private void allowPrefix() {
        AccessControlEntry read = new AccessControlEntry("User:*", "*", AclOperation.READ, AclPermissionType.ALLOW);
        try {
            cluster.admin().createAcls(List.of(
                    new AclBinding(new ResourcePattern(ResourceType.TOPIC, ALLOWED, PatternType.PREFIXED), read),
                    new AclBinding(new ResourcePattern(ResourceType.GROUP, ALLOWED, PatternType.PREFIXED), read)))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not create ACLs", e);
        }
    }

    public EmbeddedKafkaCluster cluster() {
        return cluster;
    }

    public TestCertificates certs() {
        return certs;
    }

    /** The authorization server of the OAUTH listener. */
    public TokenEndpoint tokens() {
        return tokens;
    }

    /** Properties for SASL_SSL with {@code mechanism} and JAAS entry {@code jaas}, trusting the test CA (JKS). */
    public Map<String, Object> saslSsl(String mechanism, String jaas) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", cluster.bootstrapServers("SASL_SSL"));
        p.put("security.protocol", "SASL_SSL");
        p.put("sasl.mechanism", mechanism);
        p.put("sasl.jaas.config", jaas);
        p.putAll(trustJks());
        return p;
    }

    /** Trust the test CA through a JKS trust store. */
    public Map<String, Object> trustJks() {
        return Map.of("ssl.truststore.location", certs.path("ca-trust.jks"), "ssl.truststore.type", "JKS",
                "ssl.truststore.password", TestCertificates.PASSWORD);
    }

    /** Properties for the SSL (mutual TLS) listener without a key store yet, trusting the test CA. */
    public Map<String, Object> ssl(String listener) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", cluster.bootstrapServers(listener));
        p.put("security.protocol", "SSL");
        p.putAll(trustJks());
        return p;
    }

    public static String plainJaas(String user, String password) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    public static String scramJaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    @Override
    public void close() {
        try {
            cluster.close();
        } finally {
            tokens.close();
        }
    }
}
