package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.AuthenticationException;
import io.kflux.ConfigException;
import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.compat.support.BrokerPluginClasses;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.compat.support.PluggedPlainMechanism;
import io.kflux.compat.support.saslserver.PluggedPlainLogin;
import io.kflux.compat.support.saslserver.PluggedPlainServer;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.io.File;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The {@code io.kflux.SaslMechanism} SPI against a real broker: {@link PluggedPlainMechanism}, found only through
 * {@code META-INF/services}, is chosen by {@code sasl.mechanism=KFLUX-PLAIN} and authenticates against a broker
 * listener whose SASL server for that name ({@link PluggedPlainServer}) runs inside the forked broker. A wrong
 * password is an {@link AuthenticationException}; a mechanism nobody provides is a {@link ConfigException} that
 * lists the built-in mechanisms and the ones {@code ServiceLoader} found.
 */
class PluggedMechanismTest {
    private static EmbeddedKafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = EmbeddedKafkaCluster.builder()
                .classpath(BrokerVersion.current().classpath() + File.pathSeparator
                        + BrokerPluginClasses.packageOf(PluggedPlainServer.class))
                .brokerJvmArgs("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
                .listener("PLUGGED", "SASL_PLAINTEXT")
                .brokerProperty("sasl.enabled.mechanisms", PluggedPlainServer.MECHANISM)
                .brokerProperty("listener.name.plugged.sasl.enabled.mechanisms", PluggedPlainServer.MECHANISM)
                .brokerProperty("listener.name.plugged." + PluggedPlainServer.MECHANISM.toLowerCase()
                        + ".sasl.jaas.config", PluggedPlainLogin.class.getName() + " required;")
                .start();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Map<String, Object> props(String mechanism, String password) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", cluster.bootstrapServers("PLUGGED"));
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", mechanism);
        p.put("sasl.jaas.config", PluggedPlainMechanism.class.getName() + " required username=\""
                + PluggedPlainServer.USER + "\" password=\"" + password + "\";");
        p.put("auto.offset.reset", "earliest");
        p.put("default.api.timeout.ms", 10_000);
        return p;
    }

    @Test
    void aMechanismFoundByServiceLoaderAuthenticatesAgainstTheBroker() {
        String topic = "plugged";
        cluster.createTopic(topic, 2, 1);
        SampleData.produce(cluster.bootstrapServers(), topic, 30);
        List<String> expected = IntStream.range(0, 30).mapToObj(i -> "value-" + i).toList();
        int before = PluggedPlainMechanism.STARTED.get();
        Map<String, Object> props = props(PluggedPlainServer.MECHANISM, PluggedPlainServer.PASSWORD);
        props.put("group.id", "plugged-group");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.create(props, Deserializers.string(), Deserializers.string()).subscription(List.of(topic)));
        List<ConsumerRecord<String, String>> records;
        try {
            records = consumer.receive().concatMap(r -> r.commit().thenReturn(r)).take(30).collectList()
                    .block(Duration.ofSeconds(60));
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
        assertThat(records).extracting(ConsumerRecord::value).containsExactlyInAnyOrderElementsOf(expected);
        // every connection (bootstrap, leader, coordinator) authenticated with the plugged-in mechanism
        assertThat(PluggedPlainMechanism.STARTED.get() - before).isGreaterThanOrEqualTo(2);
    }

    @Test
    void aWrongPasswordWithAPluggedMechanismIsAnAuthenticationError() {
        Map<String, Object> props = props(PluggedPlainServer.MECHANISM, "not-the-password");
        props.put("group.id", "plugged-denied");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(props,
                Deserializers.string(), Deserializers.string()).subscription(List.of("plugged")));
        try {
            long start = System.nanoTime();
            Throwable error = consumer.receive().then(Mono.<Throwable>empty()).onErrorResume(Mono::just)
                    .block(Duration.ofSeconds(30));
            assertThat(error).isExactlyInstanceOf(AuthenticationException.class)
                    .hasMessageContaining(PluggedPlainServer.MECHANISM)
                    .hasMessageContaining(cluster.bootstrapServers("PLUGGED"))
                    .hasMessageNotContaining("not-the-password");
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(10_000L);
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    @Test
    void aMechanismNobodyProvidesIsAConfigErrorListingWhatIsAvailable() {
        Map<String, Object> props = props("NO-SUCH-MECHANISM", "irrelevant");
        props.put("group.id", "plugged-unknown");
        ConsumerOptions<String, String> options = ConsumerOptions.create(props, Deserializers.string(),
                Deserializers.string()).subscription(List.of("plugged"));
        assertThatThrownBy(() -> KafkaFluxConsumer.create(options))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.key()).isEqualTo("sasl.mechanism"))
                .hasMessageContaining("NO-SUCH-MECHANISM")
                .hasMessageContaining("GSSAPI, PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER")
                .hasMessageContaining("found by ServiceLoader").hasMessageContaining(PluggedPlainServer.MECHANISM);
    }
}
