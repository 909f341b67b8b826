package io.kflux.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import java.io.ByteArrayInputStream;
import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A Spring SSL bundle (a PKCS#12 store made by the JDK's keytool) becomes kflux's PEM TLS properties carrying the same
 * certificate and key; kflux accepts them. Broker-free: connecting over TLS through a bundle is not tested yet.
 */
class SslBundlePropertiesTest {
    private static final String PASSWORD = TestKeyStores.PASSWORD;

    @TempDir
    Path dir;

    @Test
    void theBundlesStoresBecomePemPropertiesAndSslIsTheDefaultProtocol() throws Exception {
        Path store = TestKeyStores.selfSigned(dir.resolve("client.p12"), "client");
        KeyStore expected = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(store.toFile())) {
            expected.load(in, PASSWORD.toCharArray());
        }

        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, KfluxAutoConfiguration.class))
                .withPropertyValues(
                        "spring.ssl.bundle.jks.client.keystore.location=file:" + store,
                        "spring.ssl.bundle.jks.client.keystore.password=" + PASSWORD,
                        "spring.ssl.bundle.jks.client.keystore.type=PKCS12",
                        "spring.ssl.bundle.jks.client.truststore.location=file:" + store,
                        "spring.ssl.bundle.jks.client.truststore.password=" + PASSWORD,
                        "spring.ssl.bundle.jks.client.truststore.type=PKCS12",
                        "kflux.consumer.ssl-bundle=client",
                        "kflux.consumer.properties.bootstrap.servers=127.0.0.1:9",
                        "kflux.consumers.orders.properties.group.id=a",
                        "kflux.consumers.orders.topics=orders",
                        // a Kafka key set explicitly wins over the bundle
                        "kflux.consumers.orders.properties.ssl.endpoint.identification.algorithm=")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ConsumerOptions<?, ?> options = context.getBean(KfluxConsumers.class).options("orders");
                    assertThat(options.properties()).containsEntry("security.protocol", "SSL")
                            .containsEntry("ssl.truststore.type", "PEM").containsEntry("ssl.keystore.type", "PEM")
                            .containsEntry("ssl.endpoint.identification.algorithm", "");
                    String trusted = (String) options.properties().get("ssl.truststore.certificates");
                    assertThat(CertificateFactory.getInstance("X.509").generateCertificate(
                            new ByteArrayInputStream(trusted.getBytes(StandardCharsets.US_ASCII))))
                            .isEqualTo(expected.getCertificate("client"));
                    String chain = (String) options.properties().get("ssl.keystore.certificate.chain");
                    assertThat(CertificateFactory.getInstance("X.509").generateCertificate(
                            new ByteArrayInputStream(chain.getBytes(StandardCharsets.US_ASCII))))
                            .isEqualTo(expected.getCertificate("client"));
                    String key = (String) options.properties().get("ssl.keystore.key");
                    assertThat(key).startsWith("-----BEGIN PRIVATE KEY-----\n").endsWith("-----END PRIVATE KEY-----\n");
                    byte[] der = Base64.getMimeDecoder().decode(key.replaceAll("-----[A-Z ]+-----", ""));
                    assertThat(der).isEqualTo(expected.getKey("client", PASSWORD.toCharArray()).getEncoded());
                    // no key material in what kflux prints
                    assertThat(options.toString()).doesNotContain(key.substring(28, 60));
                });
    }
}
