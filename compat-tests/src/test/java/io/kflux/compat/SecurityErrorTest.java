package io.kflux.compat;

import static io.kflux.compat.support.SecuredKafka.ALICE_PASSWORD;
import static io.kflux.compat.support.SecuredKafka.SCRAM256_PASSWORD;
import static io.kflux.compat.support.SecuredKafka.plainJaas;
import static io.kflux.compat.support.SecuredKafka.scramJaas;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.AuthenticationException;
import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.GroupAuthorizationException;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.SslAuthenticationException;
import io.kflux.TopicAuthorizationException;
import io.kflux.TopicPartition;
import io.kflux.compat.support.LogCapture;
import io.kflux.compat.support.SecuredKafka;
import io.kflux.compat.support.SharedSecuredKafka;
import io.kflux.compat.support.TestCertificates;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Wrong credentials, a mechanism the listener does not enable, an untrusted CA, a host name mismatch, a missing
 * client certificate and ACL denials each end kflux with its typed error within {@code default.api.timeout.ms};
 * the official consumer fails on the same properties. No secret appears in a log line, a message or toString().
 */
@ExtendWith(SharedSecuredKafka.class)
class SecurityErrorTest {
    private static final long API_TIMEOUT_MS = 10_000;
    private static final List<String> SECRETS = List.of(ALICE_PASSWORD, SCRAM256_PASSWORD, TestCertificates.PASSWORD,
            "wrong-pw-Vb93");
    private static SecuredKafka kafka;
    private static LogCapture logs;

    @BeforeAll
    static void start(SecuredKafka shared) {
        kafka = shared; // the run's one secured broker: SharedSecuredKafka stops it at the end
        kafka.cluster().createTopic(SecuredKafka.ALLOWED + "errors", 2, 1);
        kafka.cluster().createTopic("denied-topic", 2, 1);
        SampleData.produce(kafka.cluster().bootstrapServers(), SecuredKafka.ALLOWED + "errors", 10);
        SampleData.produce(kafka.cluster().bootstrapServers(), "denied-topic", 10);
        Configurator.setLevel("io.kflux", Level.DEBUG);
        logs = new LogCapture("io.kflux", Level.DEBUG);
    }

    @AfterAll
    static void stop() {
        if (logs != null) {
            // nothing logged by kflux in any of these tests quotes a secret
            logs.lines().forEach(l -> SECRETS.forEach(secret -> assertThat(l.message()).as(l.logger())
                    .doesNotContain(secret)));
            logs.close();
            Configurator.setLevel("io.kflux", Level.INFO);
        }
    }

    @Test
    void aWrongPasswordIsAnAuthenticationErrorNamingBrokerAndMechanism() {
        Map<String, Object> props = kafka.saslSsl("PLAIN", plainJaas("alice", "wrong-pw-Vb93"));
        Throwable e = receiveFails(props, "sec-g1");
        assertThat(e).isExactlyInstanceOf(AuthenticationException.class)
                .hasMessageContaining("PLAIN").hasMessageContaining(kafka.cluster().bootstrapServers("SASL_SSL"));
        officialFails(props, org.apache.kafka.common.errors.SaslAuthenticationException.class);
        // the options print no secret either
        assertThat(ConsumerOptions.create(props).toString()).doesNotContain("wrong-pw-Vb93");
    }

    @Test
    void anUnknownScramUserIsAnAuthenticationError() {
        Map<String, Object> props = kafka.saslSsl("SCRAM-SHA-256", scramJaas("nobody", SCRAM256_PASSWORD));
        assertThat(receiveFails(props, "sec-g2")).isExactlyInstanceOf(AuthenticationException.class)
                .hasMessageContaining("SCRAM-SHA-256");
        officialFails(props, org.apache.kafka.common.errors.SaslAuthenticationException.class);
    }

    @Test
    void aMechanismTheListenerDoesNotEnableIsAnAuthenticationError() {
        Map<String, Object> props = kafka.saslSsl("SCRAM-SHA-256", scramJaas("scram256", SCRAM256_PASSWORD));
        props.put("bootstrap.servers", kafka.cluster().bootstrapServers("REAUTH"));
        props.put("security.protocol", "SASL_PLAINTEXT");
        assertThat(receiveFails(props, "sec-g3")).isExactlyInstanceOf(AuthenticationException.class)
                .hasMessageContaining("does not enable SASL mechanism SCRAM-SHA-256");
        officialFails(props, org.apache.kafka.common.errors.UnsupportedSaslMechanismException.class);
    }

    @Test
    void anUntrustedCertificateAuthorityFailsTheHandshake() {
        Map<String, Object> props = kafka.saslSsl("PLAIN", plainJaas("alice", ALICE_PASSWORD));
        props.put("ssl.truststore.location", kafka.certs().path("other-ca-trust.jks"));
        assertThat(receiveFails(props, "sec-g4")).isInstanceOf(SslAuthenticationException.class)
                .hasMessageContaining(kafka.cluster().bootstrapServers("SASL_SSL"));
        officialFails(props, org.apache.kafka.common.errors.SslAuthenticationException.class);
    }

    @Test
    void aHostNameMismatchFailsTheHandshake() {
        Map<String, Object> props = kafka.ssl("MISMATCH");
        assertThat(receiveFails(props, "sec-g5")).isInstanceOf(SslAuthenticationException.class)
                .hasMessageContaining("127.0.0.1");
        officialFails(props, org.apache.kafka.common.errors.SslAuthenticationException.class);
    }

    @Test
    void anExpiredBrokerCertificateFailsTheHandshakeSayingWhen() {
        Map<String, Object> props = kafka.ssl("EXPIRED");
        assertThat(receiveFails(props, "sec-g8")).isExactlyInstanceOf(SslAuthenticationException.class)
                .hasMessageContaining(kafka.cluster().bootstrapServers("EXPIRED"))
                .hasMessageContaining("CN=localhost, which expired at").hasMessageNotContaining("-----BEGIN");
        officialFails(props, org.apache.kafka.common.errors.SslAuthenticationException.class);
    }

    @Test
    void aBrokerCertificateNotValidYetFailsTheHandshakeSayingWhen() {
        Map<String, Object> props = kafka.ssl("NOTYET");
        assertThat(receiveFails(props, "sec-g9")).isExactlyInstanceOf(SslAuthenticationException.class)
                .hasMessageContaining(kafka.cluster().bootstrapServers("NOTYET"))
                .hasMessageContaining("CN=localhost, which is not valid before").hasMessageNotContaining("-----BEGIN");
        officialFails(props, org.apache.kafka.common.errors.SslAuthenticationException.class);
    }

    @Test
    void aMissingClientCertificateIsRefusedByAMutualTlsListener() {
        Map<String, Object> props = kafka.ssl("SSL");
        assertThat(receiveFails(props, "sec-g6")).isInstanceOf(SslAuthenticationException.class);
        officialFails(props, org.apache.kafka.common.errors.SslAuthenticationException.class);
    }

    @Test
    void aTopicTheAclsDenyEndsReceiveWithTopicAuthorizationException() {
        Map<String, Object> props = kafka.saslSsl("PLAIN", plainJaas("alice", ALICE_PASSWORD));
        Throwable e = receiveFails(props, "sec-g7", "denied-topic");
        assertThat(e).isInstanceOf(TopicAuthorizationException.class);
        assertThat(((TopicAuthorizationException) e).unauthorizedTopics()).containsExactly("denied-topic");
        officialFails(props("sec-o7", props), "denied-topic",
                org.apache.kafka.common.errors.TopicAuthorizationException.class);
    }

    /** Under KIP-848 as under the classic protocol: a subscribed topic the member may not describe ends receive(). */
    @Test
    void aTopicTheAclsDenyEndsReceiveWithTopicAuthorizationExceptionUnderTheConsumerProtocol() {
        Map<String, Object> props = kafka.saslSsl("PLAIN", plainJaas("alice", ALICE_PASSWORD));
        props.put("group.protocol", "consumer");
        Throwable e = receiveFails(props, "sec-g9", "denied-topic");
        assertThat(e).isInstanceOf(TopicAuthorizationException.class);
        assertThat(((TopicAuthorizationException) e).unauthorizedTopics()).containsExactly("denied-topic");
        officialFails(props("sec-o9", props), "denied-topic",
                org.apache.kafka.common.errors.TopicAuthorizationException.class);
    }

    @Test
    void aManuallyAssignedTopicTheAclsDenyEndsReceiveWithTopicAuthorizationException() {
        Map<String, Object> props = kafka.saslSsl("PLAIN", plainJaas("alice", ALICE_PASSWORD));
        props.put("default.api.timeout.ms", (int) API_TIMEOUT_MS);
        props.put("auto.offset.reset", "earliest");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(props,
                Deserializers.string(), Deserializers.string()).assignment(List.of(new TopicPartition("denied-topic", 0))));
        Throwable e = timed(() -> consumer.receive().then());
        assertThat(e).isInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void aGroupTheAclsDenyEndsReceiveAndFailsCommitAndCommitted() {
        Map<String, Object> props = kafka.saslSsl("PLAIN", plainJaas("alice", ALICE_PASSWORD));
        Throwable e = receiveFails(props, "denied-group");
        assertThat(e).isInstanceOf(GroupAuthorizationException.class);
        assertThat(((GroupAuthorizationException) e).groupId()).isEqualTo("denied-group");
        officialFails(props("denied-group", props), SecuredKafka.ALLOWED + "errors",
                org.apache.kafka.common.errors.GroupAuthorizationException.class);

        TopicPartition tp = new TopicPartition(SecuredKafka.ALLOWED + "errors", 0);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                props("denied-group", props), Deserializers.string(), Deserializers.string()).assignment(List.of(tp)));
        try {
            assertThat(timed(() -> consumer.committed(Set.of(tp)).then())).isInstanceOf(GroupAuthorizationException.class);
            assertThat(timed(() -> consumer.commit(Map.of(tp, new OffsetAndMetadata(1L))))).isInstanceOf(
                    GroupAuthorizationException.class);
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    private static Map<String, Object> props(String group, Map<String, Object> base) {
        Map<String, Object> p = new HashMap<>(base);
        p.put("group.id", group);
        p.put("default.api.timeout.ms", (int) API_TIMEOUT_MS);
        p.put("auto.offset.reset", "earliest");
        return p;
    }

    /** receive() of a group subscription; returns its error after checking the time bound and the message. */
    private static Throwable receiveFails(Map<String, Object> base, String group) {
        return receiveFails(base, group, SecuredKafka.ALLOWED + "errors");
    }

    private static Throwable receiveFails(Map<String, Object> base, String group, String topic) {
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(props(group, base),
                Deserializers.string(), Deserializers.string()).subscription(List.of(topic)));
        try {
            return timed(() -> consumer.receive().then());
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    /** Runs {@code call}, which must fail within default.api.timeout.ms; its error's messages quote no secret. */
    private static Throwable timed(java.util.function.Supplier<Mono<Void>> call) {
        long start = System.nanoTime();
        Throwable error = call.get().then(Mono.<Throwable>empty()).onErrorResume(Mono::just)
                .block(Duration.ofMillis(API_TIMEOUT_MS * 3));
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(error).as("an error").isNotNull();
        assertThat(elapsedMs).as("ms until the error").isLessThan(API_TIMEOUT_MS);
        List<Throwable> chain = new ArrayList<>();
        collect(error, chain);
        for (Throwable t : chain) {
            SECRETS.forEach(secret -> assertThat(String.valueOf(t.getMessage())).doesNotContain(secret));
        }
        return error;
    }

    private static void collect(Throwable t, List<Throwable> out) {
        if (t == null || out.contains(t)) {
            return;
        }
        out.add(t);
        collect(t.getCause(), out);
        for (Throwable s : t.getSuppressed()) {
            collect(s, out);
        }
    }

    private static void officialFails(Map<String, Object> base, Class<? extends Throwable> type) {
        officialFails(props("sec-official", base), SecuredKafka.ALLOWED + "errors", type);
    }

    private static void officialFails(Map<String, Object> props, String topic, Class<? extends Throwable> type) {
        Map<String, Object> p = new HashMap<>(props);
        p.putIfAbsent("group.id", "sec-official");
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            c.subscribe(List.of(topic));
            assertThatThrownBy(() -> {
                long deadline = System.nanoTime() + API_TIMEOUT_MS * 1_000_000;
                while (System.nanoTime() < deadline) {
                    c.poll(Duration.ofMillis(500));
                }
            }).isInstanceOf(type);
        }
    }

}
