package io.kflux;

import io.kflux.internal.security.ConnectionSecurities;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.PropertyDescription.Support;
import io.kflux.internal.config.AutoOffsetReset;
import io.kflux.internal.config.ConfigKey;
import io.kflux.internal.config.ConfigType;
import io.kflux.internal.config.ConsumerConfig;
import io.kflux.internal.config.ConsumerConfigDef;
import io.kflux.internal.config.GroupProtocol;
import io.kflux.internal.config.HostAndPort;
import io.kflux.internal.config.IsolationLevel;
import io.kflux.internal.config.Password;
import io.kflux.internal.config.SecurityProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

class ConfigParsingTest {

    private static final Map<String, ConfigKey> OURS = ConsumerConfigDef.DEF.keys();
    private static final Map<String, ConfigDef.ConfigKey> OFFICIAL =
        org.apache.kafka.clients.consumer.ConsumerConfig.configDef().configKeys();

    private static Map<String, Object> base() {
        Map<String, Object> m = new HashMap<>();
        m.put("bootstrap.servers", "localhost:9092");
        return m;
    }

    private static Map<String, Object> with(Object... kv) {
        Map<String, Object> m = base();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static ConsumerConfig parse(Object... kv) {
        return ConsumerConfig.parse(with(kv));
    }

    // ------------------------------------------------------------------ the official client as oracle

    @Test
    void everyOfficialPropertyIsKnown() {
        assertThat(OURS.keySet()).containsAll(OFFICIAL.keySet());
    }

    @Test
    void typesMatchTheOfficialClient() {
        for (Map.Entry<String, ConfigDef.ConfigKey> e : OFFICIAL.entrySet()) {
            assertThat(OURS.get(e.getKey()).type().name()).as(e.getKey()).isEqualTo(e.getValue().type.name());
        }
    }

    /**
     * Properties of official clients newer than the tests' kafka-clients (4.1), with the default their documentation
     * gives: {@code bootstrap.resolve.timeout.ms} (KIP-909) and {@code metadata.cluster.check.enable} (KIP-1242),
     * Kafka 4.4's consumer configuration (kafka-clients 4.4.0's {@code ConsumerConfig.configDef()} says the same).
     */
    private static final Map<String, Object> NEWER_THAN_TEST_CLIENT = Map.of("bootstrap.resolve.timeout.ms", 0L,
            "metadata.cluster.check.enable", Boolean.TRUE);

    /**
     * kflux's own properties, which no official client has: {@code share.lock.renewal.max.ms} (the official share
     * consumer renews a lock only on {@code acknowledge(record, RENEW)}, KIP-1222).
     */
    private static final Map<String, Object> KFLUX_OWN = Map.of("share.lock.renewal.max.ms", 300000L);

    /**
     * Defaults kflux chose apart from the official client's, each with the official one it departs from:
     * {@code receive.buffer.bytes} -1 (kernel auto-tuning) against 65536 (issue #28; the guide's property table says
     * why).
     */
    private static final Map<String, List<Object>> KFLUX_DEFAULT_AGAINST_OFFICIAL =
            Map.of("receive.buffer.bytes", List.of(-1, 65536));

    @Test
    void honouredDefaultsMatchTheOfficialClient() {
        Map<String, Object> officialDefaults = org.apache.kafka.clients.consumer.ConsumerConfig.configDef().defaultValues();
        List<String> checked = new ArrayList<>();
        for (ConfigKey key : OURS.values()) {
            if (key.support() != Support.HONOURED || key.required()
                || key.name().equals("key.deserializer") || key.name().equals("value.deserializer")) {
                continue;
            }
            Map<String, Object> notOfficial = NEWER_THAN_TEST_CLIENT.containsKey(key.name()) ? NEWER_THAN_TEST_CLIENT
                    : KFLUX_OWN.containsKey(key.name()) ? KFLUX_OWN : null;
            if (notOfficial != null) {
                assertThat(officialDefaults).as(key.name()).doesNotContainKey(key.name());
                assertThat(key.defaultValue()).as(key.name()).isEqualTo(notOfficial.get(key.name()));
                continue;
            }
            assertThat(officialDefaults).as(key.name()).containsKey(key.name());
            Object official = officialDefaults.get(key.name());
            List<Object> departed = KFLUX_DEFAULT_AGAINST_OFFICIAL.get(key.name());
            if (departed != null) {
                assertThat(official).as(key.name()).isEqualTo(departed.get(1));
                assertThat(key.defaultValue()).as(key.name()).isEqualTo(departed.get(0));
                continue;
            }
            if (key.name().equals("partition.assignment.strategy")) {
                List<String> mapped = new ArrayList<>();
                for (Object o : (List<?>) official) {
                    mapped.add(ConsumerConfig.normalizeAssignor(((Class<?>) o).getName()));
                }
                official = mapped;
            }
            assertThat(key.defaultValue()).as(key.name()).isEqualTo(official);
            checked.add(key.name());
        }
        assertThat(checked).contains("session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms",
                                     "fetch.max.bytes", "retry.backoff.max.ms", "sasl.mechanism", "ssl.protocol",
                                     "group.protocol", "auto.offset.reset", "isolation.level");
    }

    @Test
    void typedDefaultsOfParsedConfig() {
        ConsumerConfig c = parse();
        assertThat(c.bootstrapServers()).containsExactly(new HostAndPort("localhost", 9092));
        assertThat(c.sessionTimeoutMs()).isEqualTo(45000);
        assertThat(c.heartbeatIntervalMs()).isEqualTo(3000);
        assertThat(c.maxPollIntervalMs()).isEqualTo(300000);
        assertThat(c.value("max.poll.records", Integer.class)).as("accepted, without effect").isEqualTo(500);
        assertThat(c.autoOffsetReset().strategy()).isEqualTo(AutoOffsetReset.Strategy.LATEST);
        assertThat(c.isolationLevel()).isEqualTo(IsolationLevel.READ_UNCOMMITTED);
        assertThat(c.fetchMinBytes()).isEqualTo(1);
        assertThat(c.fetchMaxBytes()).isEqualTo(52428800);
        assertThat(c.fetchMaxWaitMs()).isEqualTo(500);
        assertThat(c.maxPartitionFetchBytes()).isEqualTo(1048576);
        assertThat(c.partitionAssignmentStrategies()).containsExactly("range", "cooperative-sticky");
        assertThat(c.requestTimeoutMs()).isEqualTo(30000);
        assertThat(c.defaultApiTimeoutMs()).isEqualTo(60000);
        assertThat(c.retryBackoffMs()).isEqualTo(100L);
        assertThat(c.retryBackoffMaxMs()).isEqualTo(1000L);
        assertThat(c.reconnectBackoffMs()).isEqualTo(50L);
        assertThat(c.reconnectBackoffMaxMs()).isEqualTo(1000L);
        assertThat(c.socketConnectionSetupTimeoutMs()).isEqualTo(10000L);
        assertThat(c.socketConnectionSetupTimeoutMaxMs()).isEqualTo(30000L);
        assertThat(c.connectionsMaxIdleMs()).isEqualTo(540000L);
        assertThat(c.metadataMaxAgeMs()).isEqualTo(300000L);
        assertThat(c.receiveBufferBytes()).isEqualTo(-1);
        assertThat(c.sendBufferBytes()).isEqualTo(131072);
        assertThat(c.checkCrcs()).isTrue();
        assertThat(c.allowAutoCreateTopics()).isTrue();
        assertThat(c.excludeInternalTopics()).isTrue();
        assertThat(c.securityProtocol()).isEqualTo(SecurityProtocol.PLAINTEXT);
        assertThat(c.groupProtocol()).isEqualTo(GroupProtocol.CLASSIC);
        assertThat(c.groupId()).isEmpty();
        assertThat(c.groupInstanceId()).isEmpty();
        assertThat(c.clientRack()).isEmpty();
        assertThat(c.sslEndpointIdentificationAlgorithm()).isEqualTo("https");
        assertThat(c.sslEnabledProtocols()).containsExactly("TLSv1.2", "TLSv1.3");
        assertThat(c.saslJaasConfig()).isEmpty();
        // no group: auto commit is off unless asked for (which is then an error)
        assertThat(c.enableAutoCommit()).isFalse();
        assertThat(parse("group.id", "g").enableAutoCommit()).isTrue();
    }

    // ------------------------------------------------------------------ strings vs typed values

    @Test
    void stringsAndTypedValuesParseAlike() {
        ConsumerConfig s = parse("group.id", "g", "session.timeout.ms", " 30000 ", "enable.auto.commit", "FALSE",
                                 "metadata.max.age.ms", "1000", "partition.assignment.strategy", "range, roundrobin",
                                 "bootstrap.servers", "a:1, b:2,");
        ConsumerConfig t = parse("group.id", "g", "session.timeout.ms", 30000, "enable.auto.commit", false,
                                 "metadata.max.age.ms", 1000, "partition.assignment.strategy", List.of("range", "roundrobin"),
                                 "bootstrap.servers", List.of("a:1", "b:2"));
        for (ConsumerConfig c : List.of(s, t)) {
            assertThat(c.sessionTimeoutMs()).isEqualTo(30000);
            assertThat(c.enableAutoCommit()).isFalse();
            assertThat(c.metadataMaxAgeMs()).isEqualTo(1000L);
            assertThat(c.partitionAssignmentStrategies()).containsExactly("range", "roundrobin");
            assertThat(c.bootstrapServers()).containsExactly(new HostAndPort("a", 1), new HostAndPort("b", 2));
        }
        // a Long that fits is fine for an int property (the official client is stricter here)
        assertThat(parse("fetch.min.bytes", 7L).fetchMinBytes()).isEqualTo(7);
    }

    @Test
    void bootstrapForms() {
        assertThat(parse("bootstrap.servers", "[::1]:9093,SASL_SSL://broker-1.example.com:9094").bootstrapServers())
            .containsExactly(new HostAndPort("::1", 9093), new HostAndPort("broker-1.example.com", 9094));
    }

    @Test
    void officialClassNamesAndClassesForAssignors() {
        ConsumerConfig c = parse("partition.assignment.strategy",
                                 List.of(org.apache.kafka.clients.consumer.StickyAssignor.class,
                                         "org.apache.kafka.clients.consumer.CooperativeStickyAssignor", "RANGE", "range"));
        assertThat(c.partitionAssignmentStrategies()).containsExactly("sticky", "cooperative-sticky", "range");
        // any loadable class is passed on for the group layer's SPI check
        assertThat(parse("partition.assignment.strategy", String.class.getName()).partitionAssignmentStrategies())
            .containsExactly("java.lang.String");
    }

    @Test
    void autoOffsetResetByDuration() {
        AutoOffsetReset r = parse("auto.offset.reset", "by_duration:P1DT2H").autoOffsetReset();
        assertThat(r.strategy()).isEqualTo(AutoOffsetReset.Strategy.BY_DURATION);
        assertThat(r.duration()).isEqualTo(Duration.ofHours(26));
        assertThat(parse("auto.offset.reset", "none").autoOffsetReset().strategy()).isEqualTo(AutoOffsetReset.Strategy.NONE);
        assertBad("auto.offset.reset", "by_duration:-PT1H", "by_duration");
        assertBad("auto.offset.reset", "EARLIEST", "earliest, latest, none");
    }

    @Test
    void caseInsensitiveWhereTheOfficialClientIs() {
        assertThat(parse("security.protocol", "ssl").securityProtocol()).isEqualTo(SecurityProtocol.SSL);
        assertThat(parse("group.protocol", "CONSUMER", "group.id", "g").groupProtocol()).isEqualTo(GroupProtocol.CONSUMER);
        assertBad("isolation.level", "READ_COMMITTED", "read_committed");
        assertThat(parse("isolation.level", "read_committed").isolationLevel()).isEqualTo(IsolationLevel.READ_COMMITTED);
    }

    @Test
    void generatedClientIdsAreUnique() {
        var config = parse();
        assertThat(config.clientId()).isEmpty();
        String a = config.generateClientId();
        String b = config.generateClientId();
        assertThat(a).matches("consumer-[0-9]+").isNotEqualTo(b); // one config, two consumers: two ids
        assertThat(parse("group.id", "orders").generateClientId()).matches("consumer-orders-[0-9]+");
        assertThat(parse("client.id", "mine").generateClientId()).isEqualTo("mine");
    }

    @Test
    void unknownAndIgnoredKeysAreAccepted() {
        ConsumerConfig c = parse("no.such.property", "x", "interceptor.classes", "com.example.Interceptor",
                                 "metric.reporters", List.of());
        assertThat(c.originals()).containsKey("no.such.property");
        // ignored keys are still type-checked
        assertBad("metrics.num.samples", "many", "32-bit integer");
    }

    // ------------------------------------------------------------------ bad values

    private static void assertBad(String key, Object value, String allowedPart) {
        assertThatThrownBy(() -> ConsumerConfig.parse(with(key, value)))
            .isInstanceOf(ConfigException.class)
            .satisfies(t -> {
                ConfigException e = (ConfigException) t;
                assertThat(e.key()).isEqualTo(key);
                assertThat(e.getMessage()).contains(key).contains(String.valueOf(value)).contains(allowedPart);
                assertThat(e.allowed()).contains(allowedPart);
            });
    }

    @Test
    void badValuesNameKeyValueAndAllowed() {
        assertBad("session.timeout.ms", "soon", "32-bit integer");
        assertBad("session.timeout.ms", 2.5, "32-bit integer");
        assertBad("fetch.max.bytes", "99999999999", "32-bit integer");
        assertBad("fetch.min.bytes", -1, ">= 0");
        assertBad("max.poll.records", 0, ">= 1");
        // not a number: the key's own bounds, not only the type's range
        assertBad("max.poll.records", "abc", ">= 1");
        assertBad("fetch.max.bytes", "1MB", ">= 0");
        assertBad("receive.buffer.bytes", -2, "-1 (the operating system default) or a size >= 1");
        assertBad("receive.buffer.bytes", 0, "-1 (the operating system default) or a size >= 1");
        assertBad("check.crcs", "yes", "true or false");
        assertBad("isolation.level", "serializable", "read_uncommitted");
        assertBad("security.protocol", "TLS", "SASL_SSL");
        assertBad("client.dns.lookup", "default", "use_all_dns_ips");
        assertBad("group.protocol", "modern", "consumer");
        assertBad("bootstrap.servers", "localhost", "host:port");
        assertBad("bootstrap.servers", "localhost:0", "host:port");
        assertBad("bootstrap.servers", "local host:9092", "host:port");
        assertBad("partition.assignment.strategy", "fair", "roundrobin");
        assertBad("client.id", 42, "a string");
        assertBad("group.instance.id", "", "non-empty");
    }

    @Test
    void missingBootstrapServers() {
        for (Map<String, Object> m : List.of(new HashMap<String, Object>(), with("bootstrap.servers", null),
                                             with("bootstrap.servers", " , "))) {
            assertThatThrownBy(() -> ConsumerConfig.parse(m))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("bootstrap.servers")
                .hasMessageContaining("host:port");
        }
    }

    @Test
    void rejectedKeysFailWhenSet() {
        assertThatThrownBy(() -> parse("ssl.engine.factory.class", "com.example.Engine"))
            .isInstanceOf(ConfigException.class).hasMessageContaining("ssl.engine.factory.class");
        // KIP-651 in-line PEM is honoured, but only complete and with ssl.keystore.type=PEM; never quoted
        assertThatThrownBy(() -> ConnectionSecurities.from(parse("security.protocol", "SSL",
                                                                 "ssl.keystore.key", "-----BEGIN PRIVATE KEY-----"), null, null))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("ssl.keystore")
            .hasMessageNotContaining("BEGIN");
    }

    // ------------------------------------------------------------------ cross-property checks

    @Test
    void heartbeatMustBeBelowSessionTimeout() {
        assertThatThrownBy(() -> parse("group.id", "g", "heartbeat.interval.ms", 45000))
            .isInstanceOf(ConfigException.class)
            .satisfies(t -> assertThat(((ConfigException) t).key()).isEqualTo("heartbeat.interval.ms"))
            .hasMessageContaining("45000")
            .hasMessageContaining("session.timeout.ms");
        // as in the official client, only checked when a group is used
        assertThat(parse("heartbeat.interval.ms", 45000).heartbeatIntervalMs()).isEqualTo(45000);
    }

    @Test
    void groupChecks() {
        assertThatThrownBy(() -> parse("group.instance.id", "i-1"))
            .isInstanceOf(ConfigException.class).hasMessageContaining("group.instance.id").hasMessageContaining("group.id");
        assertThatThrownBy(() -> parse("enable.auto.commit", true))
            .isInstanceOf(ConfigException.class).hasMessageContaining("enable.auto.commit");
        assertThat(parse("enable.auto.commit", false).enableAutoCommit()).isFalse();
        assertThatThrownBy(() -> parse("group.id", "  "))
            .isInstanceOf(ConfigException.class).hasMessageContaining("group.id");
        assertThat(parse("group.id", "g", "group.instance.id", "i-1").groupInstanceId()).contains("i-1");
    }

    @Test
    void consumerProtocolChecks() {
        for (String k : List.of("heartbeat.interval.ms", "partition.assignment.strategy")) {
            Object v = k.startsWith("partition") ? "range" : "1000";
            assertThatThrownBy(() -> parse("group.id", "g", "group.protocol", "consumer", k, v))
                .isInstanceOf(ConfigException.class).hasMessageContaining(k).hasMessageContaining("group.protocol=consumer");
        }
        // the broker's session timeout, which KIP-848 does not send: the member needs it to know when it lost its partitions
        assertThat(parse("group.id", "g", "group.protocol", "consumer", "session.timeout.ms", 10000).sessionTimeoutMs())
            .isEqualTo(10000);
        assertThatThrownBy(() -> parse("group.id", "g", "group.remote.assignor", "uniform"))
            .isInstanceOf(ConfigException.class).hasMessageContaining("group.remote.assignor");
        assertThat(parse("group.id", "g", "group.protocol", "consumer", "group.remote.assignor", "uniform")
                       .groupRemoteAssignor()).contains("uniform");
    }

    @Test
    void saslChecksAndSecretsStayHidden() {
        String jaas = "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" "
                      + "password=\"s3cr\\\"et\";";
        ConsumerConfig c = parse("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", jaas);
        assertThat(c.saslMechanism()).isEqualTo("SCRAM-SHA-512");
        assertThat(c.saslJaasConfig()).hasValueSatisfying(j -> {
            assertThat(j.option("username")).isEqualTo("alice");
            assertThat(j.option("password")).isEqualTo("s3cr\"et");
            assertThat(j.toString()).doesNotContain("s3cr");
        });
        assertThat(c.toString()).doesNotContain("s3cr").contains(Password.HIDDEN);

        // mechanisms are checked with the mechanisms: the default GSSAPI needs a service name and a Kerberos login
        assertThatThrownBy(() -> security("security.protocol", "SASL_PLAINTEXT", "sasl.jaas.config", jaas))
            .isInstanceOf(ConfigException.class).hasMessageContaining("sasl.mechanism").hasMessageContaining("GSSAPI");
        assertThatThrownBy(() -> security("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN"))
            .isInstanceOf(ConfigException.class).hasMessageContaining("sasl.jaas.config");
        String noPassword = "x.PlainLoginModule required username=\"alice\";";
        assertThatThrownBy(() -> security("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                                          "sasl.jaas.config", noPassword))
            .isInstanceOf(ConfigException.class).hasMessageContaining("password is missing");
        assertThatThrownBy(() -> security("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "OAUTHBEARER",
                                          "sasl.jaas.config", "x.OAuthBearerLoginModule required clientSecret=\"hush\";"))
            .isInstanceOf(ConfigException.class).hasMessageContaining("OAUTHBEARER").hasMessageNotContaining("hush");
        assertThat(security("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", jaas)
                       .toString()).doesNotContain("s3cr").contains("SCRAM-SHA-512");
        String broken = "x.PlainLoginModule required username=\"alice\" password=\"topsecret";
        assertThatThrownBy(() -> parse("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                                       "sasl.jaas.config", broken))
            .isInstanceOf(ConfigException.class).hasMessageNotContaining("topsecret").hasMessageContaining(Password.HIDDEN);
        // not using SASL: no checks
        assertThat(parse("sasl.jaas.config", "garbage").saslJaasConfig()).isEmpty();
    }

    private static io.kflux.network.ConnectionSecurity security(Object... kv) {
        return ConnectionSecurities.from(parse(kv), null, null);
    }

    @Test
    void noPartOfAMalformedJaasConfigAppearsInTheError() {
        // wherever the secret lands in a malformed entry, the message must not quote it
        for (String jaas : List.of("org.Foo hunter2;", "org.Foo required hunter2;", "org.Foo required hunter2",
                                   "org.Foo required password hunter2;", "org.Foo required password=\"hunter2",
                                   "org.Foo required username=a password=hunter2; hunter2 required;",
                                   "hunter2", "org.Foo required =hunter2;", "org.Foo required password=;hunter2")) {
            assertThatThrownBy(() -> parse("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                                           "sasl.jaas.config", jaas))
                .as(jaas)
                .isInstanceOfSatisfying(ConfigException.class, e -> {
                    assertThat(e.key()).isEqualTo("sasl.jaas.config");
                    assertThat(e.value()).isEqualTo(Password.HIDDEN);
                    assertThat(e.getMessage()).doesNotContain("hunter2").doesNotContain("org.Foo");
                    assertThat(e.allowed()).doesNotContain("hunter2");
                });
        }
    }

    @Test
    void passwordsAreMaskedInErrors() {
        assertThatThrownBy(() -> parse("ssl.truststore.password", 12345))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("ssl.truststore.password")
            .hasMessageNotContaining("12345");
        assertThat(parse("ssl.truststore.password", "pw").sslTruststorePassword()).contains(new Password("pw"));
    }

    @Test
    void describedPropertiesCoverEveryKey() {
        List<PropertyDescription> all = ConsumerOptions.describeProperties();
        assertThat(all).hasSize(OURS.size());
        assertThat(all).allSatisfy(p -> {
            assertThat(p.description()).isNotBlank();
            assertThat(p.type()).isIn("boolean", "short", "int", "long", "double", "string", "list", "class", "password");
        });
        assertThat(all).filteredOn(p -> p.name().equals("bootstrap.servers")).singleElement()
            .satisfies(p -> assertThat(p.defaultValue()).isEqualTo("(required)"));
        assertThat(all).filteredOn(p -> p.name().equals("partition.assignment.strategy")).singleElement()
            .satisfies(p -> assertThat(p.defaultValue()).isEqualTo("range,cooperative-sticky"));
        assertThat(all).filteredOn(p -> p.name().equals("metric.reporters")).singleElement()
            .satisfies(p -> assertThat(p.support()).isEqualTo(Support.IGNORED));
        assertThat(OURS.values()).filteredOn(k -> k.type() == ConfigType.PASSWORD).allSatisfy(
            k -> assertThat(k.defaultValue()).isNull());
    }
}
