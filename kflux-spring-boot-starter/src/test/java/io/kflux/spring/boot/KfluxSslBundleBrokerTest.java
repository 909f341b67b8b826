package io.kflux.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.test.KafkaTestCluster;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * TLS through a Spring SSL bundle against a real broker: the broker's TLS listener uses a keytool-made key; the
 * application trusts it through {@code spring.ssl.bundle.jks.broker.truststore.*} and {@code kflux.consumer.ssl-bundle},
 * with host name verification on (the certificate names 127.0.0.1), consumes and commits.
 */
class KfluxSslBundleBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    static Path dir;
    static Path store;
    static KafkaTestCluster kafka;

    @BeforeAll
    static void start() throws Exception {
        store = TestKeyStores.selfSigned(dir.resolve("broker.p12"), "broker");
        kafka = new KafkaTestCluster(EmbeddedKafkaCluster.builder()
                .listener("SSL", "SSL")
                .brokerProperty("listener.name.ssl.ssl.keystore.location", store.toString())
                .brokerProperty("listener.name.ssl.ssl.keystore.type", "PKCS12")
                .brokerProperty("listener.name.ssl.ssl.keystore.password", TestKeyStores.PASSWORD)
                .brokerProperty("listener.name.ssl.ssl.key.password", TestKeyStores.PASSWORD)
                .start());
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        KfluxPipeline<byte[], byte[]> committing() {
            return consumer -> consumer.receive().concatMap(record -> record.commit());
        }
    }

    @Test
    void aConsumerConnectsOverTlsWithTheBundlesTrustStoreAndCommits() {
        kafka.createTopic("spring-tls", 1);
        kafka.produce("spring-tls", 0, "x", "y");
        ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.ssl.bundle.jks.broker.truststore.location=file:" + store,
                        "spring.ssl.bundle.jks.broker.truststore.password=" + TestKeyStores.PASSWORD,
                        "spring.ssl.bundle.jks.broker.truststore.type=PKCS12",
                        "kflux.consumer.ssl-bundle=broker",
                        "kflux.consumer.properties.bootstrap.servers=" + kafka.cluster().bootstrapServers("SSL"),
                        "kflux.consumer.properties.auto.offset.reset=earliest",
                        "kflux.consumer.properties.group.id=spring-tls-group",
                        "kflux.consumer.topics=spring-tls")
                .run();
        try {
            kafka.awaitCommitted("spring-tls-group", new TopicPartition("spring-tls", 0), 2, WAIT);
            assertThat(app.getBean(KfluxConsumers.class).options("default").properties())
                    .containsEntry("security.protocol", "SSL");
        } finally {
            app.close();
        }
    }
}
