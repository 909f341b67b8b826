package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.AuthenticationException;
import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.compat.support.LogCapture;
import io.kflux.compat.support.TestCertificates;
import io.kflux.compat.support.TestKdc;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * SASL/GSSAPI (Kerberos) against a broker whose GSSAPI listeners (SASL_PLAINTEXT and SASL_SSL) authenticate with a
 * keytab from a KDC run by the test (Apache Kerby). kflux logs in with the JDK's {@code Krb5LoginModule} from
 * {@code sasl.jaas.config} and runs the JDK's own GSSAPI SASL client; the official consumer reads the same properties
 * the same way. A principal the KDC does not know, a stale keytab and a wrong service name each end
 * {@code receive()} with an {@link AuthenticationException} within {@code default.api.timeout.ms}; the official
 * consumer fails on the first two as well. On a listener with {@code connections.max.reauth.ms} the consumer
 * re-authenticates (KIP-368) with GSSAPI on its connections for several session lifetimes without reconnecting.
 */
class GssapiTest {
    private static final long API_TIMEOUT_MS = 10_000;
    private static final String SERVICE = "kafka";
    private static final long REAUTH_MS = 3000;
    private static TestKdc kdc;
    private static EmbeddedKafkaCluster cluster;
    private static String clientKeytab;

    @BeforeAll
    static void start() {
        // the JDK's Kerberos of this JVM (kflux and the official client) finds the test KDC through the
        // java.security.krb5.conf this sets
        kdc = TestKdc.shared();
        String brokerKeytab = kdc.keytab(SERVICE + "/localhost");
        clientKeytab = kdc.keytab("client");
        TestCertificates certs = TestCertificates.create();
        String brokerJaas = "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true "
                + "keyTab=\"" + brokerKeytab + "\" principal=\"" + SERVICE + "/localhost@" + TestKdc.REALM + "\";";
        cluster = EmbeddedKafkaCluster.builder()
                .classpath(BrokerVersion.current().classpath())
                .brokerJvmArgs("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djava.security.krb5.conf=" + kdc.krb5Conf())
                .listener("GSSAPI", "SASL_PLAINTEXT")
                .listener("GSSAPI_SSL", "SASL_SSL")
                .listener("GSSAPI_REAUTH", "SASL_PLAINTEXT")
                .brokerProperty("sasl.enabled.mechanisms", "GSSAPI")
                .brokerProperty("sasl.kerberos.service.name", SERVICE)
                .brokerProperty("listener.name.gssapi.gssapi.sasl.jaas.config", brokerJaas)
                .brokerProperty("listener.name.gssapi_ssl.gssapi.sasl.jaas.config", brokerJaas)
                .brokerProperty("listener.name.gssapi_reauth.gssapi.sasl.jaas.config", brokerJaas)
                .brokerProperty("listener.name.gssapi_reauth.connections.max.reauth.ms", Long.toString(REAUTH_MS))
                .brokerProperty("ssl.keystore.location", certs.path("broker.p12"))
                .brokerProperty("ssl.keystore.type", "PKCS12")
                .brokerProperty("ssl.keystore.password", TestCertificates.PASSWORD)
                .brokerProperty("ssl.key.password", TestCertificates.PASSWORD)
                .start();
        trustStore = Map.of("ssl.truststore.location", certs.path("ca-trust.p12"), "ssl.truststore.type", "PKCS12",
                "ssl.truststore.password", TestCertificates.PASSWORD);
    }

    private static Map<String, Object> trustStore;

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Map<String, Object> gssapi(String listener, String jaas) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", cluster.bootstrapServers(listener));
        p.put("security.protocol", listener.endsWith("SSL") ? "SASL_SSL" : "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "GSSAPI");
        p.put("sasl.kerberos.service.name", SERVICE);
        p.put("sasl.jaas.config", jaas);
        if (listener.endsWith("SSL")) {
            p.putAll(trustStore);
        }
        p.put("auto.offset.reset", "earliest");
        p.put("default.api.timeout.ms", (int) API_TIMEOUT_MS);
        return p;
    }

    @Test
    void aKeytabLoginConsumesExactlyOverSaslPlaintext() {
        consumesExactly("GSSAPI", "gssapi-plaintext");
    }

    @Test
    void aKeytabLoginConsumesExactlyOverSaslSsl() {
        consumesExactly("GSSAPI_SSL", "gssapi-ssl");
    }

    private void consumesExactly(String listener, String topic) {
        cluster.createTopic(topic, 3, 1);
        SampleData.produce(cluster.bootstrapServers(), topic, 40);
        List<String> expected = IntStream.range(0, 40).mapToObj(i -> "value-" + i).toList();
        Map<String, Object> props = gssapi(listener, TestKdc.keytabJaas("client", clientKeytab));
        props.put("group.id", topic + "-kflux");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.create(props, Deserializers.string(), Deserializers.string()).subscription(List.of(topic)));
        List<ConsumerRecord<String, String>> records;
        try {
            records = consumer.receive().concatMap(r -> r.commit().thenReturn(r)).take(40).collectList()
                    .block(Duration.ofSeconds(60));
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
        assertThat(records).extracting(ConsumerRecord::value).containsExactlyInAnyOrderElementsOf(expected);

        Map<String, Object> official = gssapi(listener, TestKdc.keytabJaas("client", clientKeytab));
        official.put("group.id", topic + "-official");
        assertThat(SecurityTest.officialRead(official, topic, 40)).containsExactlyInAnyOrderElementsOf(expected);
    }

    /** KIP-368 with Kerberos: each re-authentication is a fresh GSSAPI exchange on the same connection. */
    @Test
    void severalSessionLifetimesPassWithoutReconnectingOrLosingRecords() throws Exception {
        String topic = "gssapi-reauth";
        cluster.createTopic(topic, 2, 1);
        String listener = cluster.bootstrapServers("GSSAPI_REAUTH");
        Map<String, Object> props = gssapi("GSSAPI_REAUTH", TestKdc.keytabJaas("client", clientKeytab));
        props.put("group.id", "gssapi-reauth");
        Configurator.setLevel("io.kflux.network", Level.DEBUG);
        Set<String> received = ConcurrentHashMap.newKeySet();
        AtomicInteger emitted = new AtomicInteger();
        try (LogCapture logs = new LogCapture("io.kflux.network", Level.DEBUG);
             ContinuousProducer producer = new ContinuousProducer(cluster.bootstrapServers(), topic, 2, 100, "g-")) {
            KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                    ConsumerOptions.create(props, Deserializers.string(), Deserializers.string()).subscription(List.of(topic)));
            Disposable running = consumer.receive().doOnNext(ConsumerRecord::acknowledge)
                    .subscribe(r -> {
                        received.add(r.value());
                        emitted.incrementAndGet();
                    });
            try {
                waitFor(() -> !received.isEmpty());
                int connectionsAtStart = connections(logs, listener);
                Thread.sleep(4 * REAUTH_MS);
                Set<String> produced = producer.stop();
                waitFor(() -> received.containsAll(produced));
                assertThat(connectionsAtStart).as("connections before the first record").isPositive();
                assertThat(connections(logs, listener)).as("connections by the end (none reopened)")
                        .isEqualTo(connectionsAtStart);
                assertThat(logs.matching(m -> m.startsWith("re-authenticated to " + listener))).as("re-authentications")
                        .hasSizeGreaterThanOrEqualTo(3);
                assertThat(received).containsAll(produced);
                // one member, no rebalance: nothing emitted twice
                assertThat(emitted.get()).isEqualTo(received.size());
            } finally {
                running.dispose();
                consumer.close().block(Duration.ofSeconds(30));
            }
        } finally {
            Configurator.setLevel("io.kflux.network", Level.INFO);
        }
    }

    private static int connections(LogCapture logs, String listener) {
        return logs.matching(m -> m.startsWith("connected to " + listener)).size();
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition met within 60 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    @Test
    void aPrincipalTheKdcDoesNotKnowIsAnAuthenticationError() {
        Map<String, Object> props = gssapi("GSSAPI", TestKdc.keytabJaas("nobody", clientKeytab));
        assertThat(receiveFails(props)).isExactlyInstanceOf(AuthenticationException.class)
                .hasMessageContaining("GSSAPI").hasMessageContaining("nobody@" + TestKdc.REALM);
        officialFails(props);
    }

    @Test
    void aStaleKeytabIsAnAuthenticationError() {
        String keytab = kdc.keytab("stale");
        kdc.rekey("stale");
        Map<String, Object> props = gssapi("GSSAPI", TestKdc.keytabJaas("stale", keytab));
        assertThat(receiveFails(props)).isExactlyInstanceOf(AuthenticationException.class)
                .hasMessageContaining("GSSAPI").hasMessageContaining("login");
        officialFails(props);
    }

    @Test
    void aServiceNameTheKdcDoesNotKnowIsAnAuthenticationErrorNamingTheServicePrincipal() {
        Map<String, Object> props = gssapi("GSSAPI", TestKdc.keytabJaas("client", clientKeytab));
        props.put("sasl.kerberos.service.name", "not-kafka");
        assertThat(receiveFails(props)).isExactlyInstanceOf(AuthenticationException.class)
                .hasMessageContaining("not-kafka/localhost")
                .hasMessageContaining(cluster.bootstrapServers("GSSAPI").split(":")[0]);
        // the official client logs this one and tries again for ever; kflux ends receive(), as every
        // authentication failure does (issue #11: never a silent reconnect loop)
    }

    private static Throwable receiveFails(Map<String, Object> base) {
        Map<String, Object> props = new HashMap<>(base);
        props.put("group.id", "gssapi-denied");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(props,
                Deserializers.string(), Deserializers.string()).subscription(List.of("gssapi-any")));
        try {
            long start = System.nanoTime();
            Throwable error = consumer.receive().then(Mono.<Throwable>empty()).onErrorResume(Mono::just)
                    .block(Duration.ofMillis(API_TIMEOUT_MS * 3));
            assertThat(error).as("an error").isNotNull();
            assertThat((System.nanoTime() - start) / 1_000_000).as("ms until the error").isLessThan(API_TIMEOUT_MS);
            return error;
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    /** The official consumer refuses the same properties: at creation (its login) or on poll (the exchange). */
    private static void officialFails(Map<String, Object> base) {
        Map<String, Object> props = new HashMap<>(base);
        props.put("group.id", "gssapi-official-denied");
        assertThatThrownBy(() -> {
            try (KafkaConsumer<String, String> c = new KafkaConsumer<>(props, new StringDeserializer(),
                    new StringDeserializer())) {
                c.subscribe(List.of("gssapi-any"));
                long deadline = System.nanoTime() + API_TIMEOUT_MS * 1_000_000;
                while (System.nanoTime() < deadline) {
                    c.poll(Duration.ofMillis(500));
                }
            }
        }).isInstanceOf(org.apache.kafka.common.KafkaException.class);
    }
}
