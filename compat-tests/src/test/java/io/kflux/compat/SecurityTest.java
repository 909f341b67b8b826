package io.kflux.compat;

import static io.kflux.compat.support.SecuredKafka.ALICE_PASSWORD;
import static io.kflux.compat.support.SecuredKafka.SCRAM256_PASSWORD;
import static io.kflux.compat.support.SecuredKafka.SCRAM512_PASSWORD;
import static io.kflux.compat.support.SecuredKafka.plainJaas;
import static io.kflux.compat.support.SecuredKafka.scramJaas;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.GroupAuthorizationException;
import io.kflux.KafkaFluxConsumer;
import io.kflux.KafkaShareConsumer;
import io.kflux.ShareConsumerOptions;
import io.kflux.TopicAuthorizationException;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.OAuthBearerToken;
import io.kflux.compat.support.SecuredKafka;
import io.kflux.compat.support.SharedSecuredKafka;
import io.kflux.compat.support.TestCertificates;
import io.kflux.compat.support.TokenEndpoint;
import io.kflux.test.broker.SampleData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Every SASL mechanism (over SASL_SSL) and every trust and key store type (mutual TLS over SSL) consumes a topic
 * exactly, with a group, committing each record; the official KafkaConsumer with the same properties reads the
 * same records. See {@link SecuredKafka} for the broker.
 */
@ExtendWith(SharedSecuredKafka.class)
class SecurityTest {
    private static final int RECORDS = 60;
    private static SecuredKafka kafka;

    @BeforeAll
    static void start(SecuredKafka shared) {
        kafka = shared; // the run's one secured broker: SharedSecuredKafka stops it at the end
    }


    /** Case name and its properties (built once the broker runs). */
    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        cases.add(Arguments.of("plain-jks-truststore", (Function<SecuredKafka, Map<String, Object>>)
                k -> k.saslSsl("PLAIN", plainJaas("alice", ALICE_PASSWORD))));
        cases.add(Arguments.of("scram256-pkcs12-truststore", (Function<SecuredKafka, Map<String, Object>>) k -> {
            Map<String, Object> p = k.saslSsl("SCRAM-SHA-256", scramJaas("scram256", SCRAM256_PASSWORD));
            p.put("ssl.truststore.location", k.certs().path("ca-trust.p12"));
            p.put("ssl.truststore.type", "PKCS12");
            return p;
        }));
        cases.add(Arguments.of("scram512-pem-truststore-file", (Function<SecuredKafka, Map<String, Object>>) k -> {
            Map<String, Object> p = k.saslSsl("SCRAM-SHA-512", scramJaas("scram512", SCRAM512_PASSWORD));
            p.put("ssl.truststore.location", k.certs().path("ca.pem"));
            p.put("ssl.truststore.type", "PEM");
            p.remove("ssl.truststore.password");
            return p;
        }));
        cases.add(Arguments.of("oauthbearer-unsecured-pem-truststore-inline", (Function<SecuredKafka, Map<String, Object>>) k -> {
            Map<String, Object> p = k.saslSsl("OAUTHBEARER", "org.apache.kafka.common.security.oauthbearer."
                    + "OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"oauth-user\";");
            p.remove("ssl.truststore.location");
            p.remove("ssl.truststore.password");
            p.put("ssl.truststore.type", "PEM");
            p.put("ssl.truststore.certificates", k.certs().text("ca.pem"));
            return p;
        }));
        cases.add(Arguments.of("mtls-jks-keystore", (Function<SecuredKafka, Map<String, Object>>) k -> {
            Map<String, Object> p = k.ssl("SSL");
            p.put("ssl.keystore.location", k.certs().path("client.jks"));
            p.put("ssl.keystore.type", "JKS");
            p.put("ssl.keystore.password", TestCertificates.PASSWORD);
            p.put("ssl.key.password", TestCertificates.PASSWORD);
            return p;
        }));
        cases.add(Arguments.of("mtls-pkcs12-keystore", (Function<SecuredKafka, Map<String, Object>>) k -> {
            Map<String, Object> p = k.ssl("SSL");
            p.put("ssl.keystore.location", k.certs().path("client.p12"));
            p.put("ssl.keystore.type", "PKCS12");
            p.put("ssl.keystore.password", TestCertificates.PASSWORD);
            return p;
        }));
        cases.add(Arguments.of("mtls-pem-keystore-file-encrypted-key", (Function<SecuredKafka, Map<String, Object>>) k -> {
            Map<String, Object> p = k.ssl("SSL");
            p.put("ssl.keystore.location", k.certs().path("client-keystore.pem"));
            p.put("ssl.keystore.type", "PEM");
            p.put("ssl.key.password", TestCertificates.PASSWORD);
            return p;
        }));
        cases.add(Arguments.of("mtls-pem-inline-key", (Function<SecuredKafka, Map<String, Object>>) k -> {
            Map<String, Object> p = k.ssl("SSL");
            p.put("ssl.keystore.type", "PEM");
            p.put("ssl.keystore.certificate.chain", k.certs().text("client-chain.pem"));
            p.put("ssl.keystore.key", k.certs().text("client-key.pem"));
            return p;
        }));
        cases.add(Arguments.of("mtls-pem-inline-encrypted-key", (Function<SecuredKafka, Map<String, Object>>) k -> {
            Map<String, Object> p = k.ssl("SSL");
            p.put("ssl.keystore.type", "PEM");
            p.put("ssl.keystore.certificate.chain", k.certs().text("client-chain.pem"));
            p.put("ssl.keystore.key", k.certs().text("client-key-encrypted.pem"));
            p.put("ssl.key.password", TestCertificates.PASSWORD);
            return p;
        }));
        cases.add(Arguments.of("tls-no-hostname-check-tls12-only", (Function<SecuredKafka, Map<String, Object>>) k -> {
            Map<String, Object> p = k.ssl("MISMATCH");
            p.put("ssl.endpoint.identification.algorithm", "");
            p.put("ssl.enabled.protocols", "TLSv1.2");
            p.put("ssl.protocol", "TLSv1.2");
            return p;
        }));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void consumesExactlyWithAGroupAndCommits(String name, Function<SecuredKafka, Map<String, Object>> config) {
        String topic = SecuredKafka.ALLOWED + name;
        kafka.cluster().createTopic(topic, 3, 1);
        SampleData.produce(kafka.cluster().bootstrapServers(), topic, RECORDS);
        List<String> expected = IntStream.range(0, RECORDS).mapToObj(i -> "value-" + i).toList();

        Map<String, Object> props = new HashMap<>(config.apply(kafka));
        props.put("auto.offset.reset", "earliest");
        props.put("group.id", SecuredKafka.ALLOWED + "kflux-" + name);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.create(props, Deserializers.string(), Deserializers.string()).subscription(List.of(topic)));
        List<ConsumerRecord<String, String>> records = consumer.receive()
                .concatMap(r -> r.commit().thenReturn(r))
                .take(RECORDS).collectList().block(Duration.ofSeconds(60));
        consumer.close().block(Duration.ofSeconds(30));
        assertThat(records).extracting(ConsumerRecord::value).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(committedTotal(SecuredKafka.ALLOWED + "kflux-" + name)).isEqualTo(RECORDS);

        // the official consumer reads the same properties the same way
        Map<String, Object> official = new HashMap<>(config.apply(kafka));
        official.put("auto.offset.reset", "earliest");
        official.put("group.id", SecuredKafka.ALLOWED + "official-" + name);
        assertThat(officialRead(official, topic, RECORDS)).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aProgrammaticTokenProviderAuthenticatesOAuthBearer() {
        String topic = SecuredKafka.ALLOWED + "token-provider";
        kafka.cluster().createTopic(topic, 1, 1);
        SampleData.produce(kafka.cluster().bootstrapServers(), topic, 10);
        Map<String, Object> props = kafka.saslSsl("OAUTHBEARER", null);
        props.remove("sasl.jaas.config");
        props.put("auto.offset.reset", "earliest");
        props.put("group.id", SecuredKafka.ALLOWED + "provider");
        int[] asked = new int[1];
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                        .withOAuthBearerTokenProvider(() -> reactor.core.publisher.Mono.fromSupplier(() -> {
                            asked[0]++;
                            long now = System.currentTimeMillis();
                            return new OAuthBearerToken(unsecuredJwt("provided-user", now + 3_600_000), "provided-user",
                                    now + 3_600_000);
                        }))
                        .subscription(List.of(topic)));
        List<ConsumerRecord<String, String>> records = consumer.receive()
                .concatMap(r -> r.commit().thenReturn(r))
                .take(10).collectList().block(Duration.ofSeconds(60));
        consumer.close().block(Duration.ofSeconds(30));
        assertThat(records).hasSize(10);
        // one token, cached, serves every connection of the consumer
        assertThat(asked[0]).isEqualTo(1);
    }

    @Test
    void clientCredentialsTokensFromATokenEndpointAreValidatedByTheBroker() {
        String topic = SecuredKafka.ALLOWED + "client-credentials";
        kafka.cluster().createTopic(topic, 2, 1);
        SampleData.produce(kafka.cluster().bootstrapServers(), topic, 20);
        List<String> expected = IntStream.range(0, 20).mapToObj(i -> "value-" + i).toList();
        String allowedUrls = "org.apache.kafka.sasl.oauthbearer.allowed.urls";
        System.setProperty(allowedUrls, kafka.tokens().tokenUrl());
        try {
            Map<String, Object> props = kafka.saslSsl("OAUTHBEARER", "org.apache.kafka.common.security.oauthbearer."
                    + "OAuthBearerLoginModule required clientId=\"" + TokenEndpoint.CLIENT_ID + "\" clientSecret=\""
                    + TokenEndpoint.CLIENT_SECRET + "\" scope=\"kafka\";");
            props.put("bootstrap.servers", kafka.cluster().bootstrapServers("OAUTH"));
            props.put("sasl.oauthbearer.token.endpoint.url", kafka.tokens().tokenUrl());
            // the official client needs its handler named; kflux accepts the same name
            props.put("sasl.login.callback.handler.class",
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
            props.put("auto.offset.reset", "earliest");
            int before = kafka.tokens().tokensIssued();
            Map<String, Object> kfluxProps = new HashMap<>(props);
            kfluxProps.put("group.id", SecuredKafka.ALLOWED + "cc-kflux");
            KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(kfluxProps,
                    Deserializers.string(), Deserializers.string()).subscription(List.of(topic)));
            List<ConsumerRecord<String, String>> records = consumer.receive()
                    .concatMap(r -> r.commit().thenReturn(r))
                    .take(20).collectList().block(Duration.ofSeconds(60));
            consumer.close().block(Duration.ofSeconds(30));
            assertThat(records).extracting(ConsumerRecord::value).containsExactlyInAnyOrderElementsOf(expected);
            // one token, fetched once and shared by every connection
            assertThat(kafka.tokens().tokensIssued() - before).isEqualTo(1);

            Map<String, Object> official = new HashMap<>(props);
            official.put("group.id", SecuredKafka.ALLOWED + "cc-official");
            assertThat(officialRead(official, topic, 20)).containsExactlyInAnyOrderElementsOf(expected);

            // a wrong secret: the endpoint refuses it, and kflux ends with an AuthenticationException
            Map<String, Object> wrong = new HashMap<>(kfluxProps);
            wrong.put("sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                    + "clientId=\"" + TokenEndpoint.CLIENT_ID + "\" clientSecret=\"not-the-secret\";");
            wrong.put("default.api.timeout.ms", 10_000);
            KafkaFluxConsumer<String, String> refused = KafkaFluxConsumer.create(ConsumerOptions.create(wrong,
                    Deserializers.string(), Deserializers.string()).subscription(List.of(topic)));
            long start = System.nanoTime();
            Throwable error = refused.receive().then(reactor.core.publisher.Mono.<Throwable>empty())
                    .onErrorResume(reactor.core.publisher.Mono::just).block(Duration.ofSeconds(30));
            refused.close().block(Duration.ofSeconds(30));
            assertThat(error).isInstanceOf(io.kflux.AuthenticationException.class).hasMessageContaining("HTTP 401")
                    .hasMessageNotContaining("not-the-secret");
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(10_000L);
        } finally {
            System.clearProperty(allowedUrls);
        }
    }

    /**
     * Share groups (issue #26) on the secured listener: a share consumer authenticates with SCRAM-SHA-512 over TLS and
     * accepts every record exactly once; a share group the ACLs do not allow ends {@code receive()} with
     * {@link GroupAuthorizationException} (GROUP_AUTHORIZATION_FAILED from ShareGroupHeartbeat, KIP-932), and a topic
     * they do not allow with {@link TopicAuthorizationException}.
     */
    @Test
    void aShareConsumerReadsOverSaslSslAndUnauthorizedShareGroupsAndTopicsFailTyped() throws Exception {
        Assumptions.assumeTrue(BrokerVersion.current().atLeast(4, 2), "share groups are production-ready from Kafka 4.2");
        String topic = SecuredKafka.ALLOWED + "share";
        String group = SecuredKafka.ALLOWED + "share-group";
        kafka.cluster().createTopic(topic, 2, 1);
        // a new share group starts at the log end; the records are written before the member joins
        kafka.cluster().admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
                List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                        AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        SampleData.produce(kafka.cluster().bootstrapServers(), topic, RECORDS);
        Map<String, Object> props = new HashMap<>(kafka.saslSsl("SCRAM-SHA-512", scramJaas("scram512", SCRAM512_PASSWORD)));

        props.put("group.id", group);
        props.put("share.acknowledgement.mode", "explicit");
        KafkaShareConsumer<String, String> consumer = KafkaShareConsumer.create(ShareConsumerOptions.create(props,
                Deserializers.string(), Deserializers.string()).subscription(List.of(topic)));
        try {
            List<String> values = consumer.receive()
                    .concatMap(r -> r.accept().thenReturn(r.value()))
                    .take(RECORDS).collectList().block(Duration.ofSeconds(60));
            assertThat(values).containsExactlyInAnyOrderElementsOf(
                    IntStream.range(0, RECORDS).mapToObj(i -> "value-" + i).toList());
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }

        props.put("group.id", "not-allowed-share-group");
        KafkaShareConsumer<String, String> deniedGroup = KafkaShareConsumer.create(ShareConsumerOptions.create(props,
                Deserializers.string(), Deserializers.string()).subscription(List.of(topic)));
        try {
            StepVerifier.create(deniedGroup.receive()).expectError(GroupAuthorizationException.class)
                    .verify(Duration.ofSeconds(60));
        } finally {
            deniedGroup.close().onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(30));
        }

        String deniedTopic = "not-allowed-share-topic";
        kafka.cluster().createTopic(deniedTopic, 1, 1);
        props.put("group.id", SecuredKafka.ALLOWED + "share-denied-topic");
        KafkaShareConsumer<String, String> deniedTopicConsumer = KafkaShareConsumer.create(ShareConsumerOptions.create(
                props, Deserializers.string(), Deserializers.string()).subscription(List.of(deniedTopic)));
        try {
            StepVerifier.create(deniedTopicConsumer.receive()).expectError(TopicAuthorizationException.class)
                    .verify(Duration.ofSeconds(60));
        } finally {
            deniedTopicConsumer.close().onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(30));
        }
    }

    @Test
    void quickStartReadsASecuredClusterWithACommandConfigFile() throws Exception {
        String topic = SecuredKafka.ALLOWED + "quickstart";
        kafka.cluster().createTopic(topic, 2, 1);
        SampleData.produce(kafka.cluster().bootstrapServers(), topic, 30);
        java.nio.file.Path config = commandConfigFile();
        String printed = printedBy(() -> io.kflux.examples.QuickStart.main(new String[] {"--bootstrap-servers",
                kafka.cluster().bootstrapServers("SASL_SSL"), "--topic", topic, "--command-config", config.toString()}));
        assertThat(printed).contains("Done: 30 records");
    }

    @Test
    void streamApplicationReadsASecuredClusterWithACommandConfigFile() throws Exception {
        String topic = SecuredKafka.ALLOWED + "stream-app";
        kafka.cluster().createTopic(topic, 2, 1);
        SampleData.produce(kafka.cluster().bootstrapServers(), topic, 30);
        java.nio.file.Path config = commandConfigFile();
        String printed = printedBy(() -> io.kflux.examples.StreamApplication.main(new String[] {"--bootstrap-servers",
                kafka.cluster().bootstrapServers("SASL_SSL"), "--topic", topic, "--members", "1", "--seconds", "10",
                "--group", SecuredKafka.ALLOWED + "stream-app", "--command-config", config.toString()}));
        assertThat(printed).contains("member-1 30 records").doesNotContain("failed");
    }

    @Test
    void orderPaymentJoinAndOffsetsInDatabaseTakeTheSameClientProperties() throws InterruptedException {
        // what their --command-config FILE becomes: bootstrap.servers and the security settings
        Map<String, Object> client = kafka.saslSsl("SCRAM-SHA-256", scramJaas("scram256", SCRAM256_PASSWORD));
        String orders = SecuredKafka.ALLOWED + "ex-orders";
        String payments = SecuredKafka.ALLOWED + "ex-payments";
        kafka.cluster().createTopic(orders, 2, 1);
        kafka.cluster().createTopic(payments, 2, 1);
        SampleData.produce(kafka.cluster().bootstrapServers(), orders, 10);
        SampleData.produce(kafka.cluster().bootstrapServers(), payments, 10);
        // the official Admin of the co-partitioning check connects with them too
        assertThat(io.kflux.examples.OrderPaymentJoin.checkCoPartitioned(client, orders, payments)).isEqualTo(2);
        KafkaFluxConsumer<String, String> join = KafkaFluxConsumer.create(io.kflux.examples.OrderPaymentJoin.options(
                client, SecuredKafka.ALLOWED + "ex-join", orders, payments));
        try {
            assertThat(join.receive().take(20).collectList().block(Duration.ofSeconds(60))).hasSize(20);
        } finally {
            join.close().block(Duration.ofSeconds(30));
        }

        Map<String, Object> security = new HashMap<>(client);
        security.remove("bootstrap.servers");
        io.kflux.examples.OffsetsInDatabase.Settings settings = new io.kflux.examples.OffsetsInDatabase.Settings(
                kafka.cluster().bootstrapServers("SASL_SSL"), orders, SecuredKafka.ALLOWED + "ex-db",
                "jdbc:h2:mem:sec-ex-db;DB_CLOSE_DELAY=-1", null, null, 5, security);
        assertThat(settings.toString()).doesNotContain(SCRAM256_PASSWORD);
        io.kflux.examples.OffsetsInDatabase.Running running = io.kflux.examples.OffsetsInDatabase.start(settings);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (running.stored() < 10 && running.failure() == null && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(running.failure()).isNull();
            assertThat(running.stored()).isEqualTo(10);
        } finally {
            running.close();
        }
    }

    /** The SASL_SSL/SCRAM-SHA-256 client properties, bootstrap.servers left out, as a Kafka CLI tools' file. */
    private static java.nio.file.Path commandConfigFile() throws java.io.IOException {
        java.util.Properties file = new java.util.Properties();
        kafka.saslSsl("SCRAM-SHA-256", scramJaas("scram256", SCRAM256_PASSWORD)).forEach((k, v) -> {
            if (!k.equals("bootstrap.servers")) {
                file.setProperty(k, v.toString());
            }
        });
        java.nio.file.Path config = java.nio.file.Files.createTempFile("client", ".properties");
        try (java.io.Writer out = java.nio.file.Files.newBufferedWriter(config)) {
            file.store(out, "as for the Kafka CLI tools");
        }
        return config;
    }

    private interface ExampleMain {
        void run() throws Exception;
    }

    /** What {@code main} printed to standard output. */
    private static String printedBy(ExampleMain main) throws Exception {
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        java.io.PrintStream stdout = System.out;
        System.setOut(new java.io.PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            main.run();
        } finally {
            System.setOut(stdout);
        }
        return printed.toString(StandardCharsets.UTF_8);
    }

    private static String unsecuredJwt(String sub, long expMs) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String claims = "{\"sub\":\"" + sub + "\",\"iat\":" + (System.currentTimeMillis() / 1000) + ",\"exp\":"
                + (expMs / 1000) + "}";
        return b64.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + ".";
    }

    private static long committedTotal(String group) {
        try {
            Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets = kafka.cluster().admin()
                    .listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            return offsets.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> officialRead(Map<String, Object> props, String topic, int count) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < count && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(500)).forEach(r -> values.add(r.value()));
            }
            c.commitSync();
        }
        return values;
    }
}
