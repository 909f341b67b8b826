package io.kflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.internal.DefaultKafkaFluxConsumer;
import io.kflux.internal.config.OptionsAccess;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

class ConsumerOptionsTest {

    private static final Map<String, Object> PROPS = Map.of("bootstrap.servers", "localhost:9092", "group.id", "g");

    @Test
    void copiesLeaveTheOriginalUnchanged() {
        ConsumerOptions<String, String> a = ConsumerOptions.create(PROPS, Deserializers.string(), Deserializers.string());
        ConsumerOptions<String, String> b = a.subscription(List.of("t1", "t2", "t1"));
        ConsumerOptions<String, String> c = b.withProperty("session.timeout.ms", 20000);
        RebalanceListener listener = new RebalanceListener() { };
        ConsumerOptions<String, String> d = c.rebalanceListener(listener);
        ConsumerOptions<String, String> e = d.withMaxBufferedBytes(1024);

        assertThat(a.subscriptionType()).isEqualTo(ConsumerOptions.SubscriptionType.NONE);
        assertThat(b.subscriptionType()).isEqualTo(ConsumerOptions.SubscriptionType.TOPICS);
        assertThat(b.subscribedTopics()).containsExactly("t1", "t2");
        assertThat(OptionsAccess.config(b).sessionTimeoutMs()).isEqualTo(45000);
        assertThat(OptionsAccess.config(c).sessionTimeoutMs()).isEqualTo(20000);
        assertThat(c.subscribedTopics()).containsExactly("t1", "t2");
        assertThat(c.rebalanceListener()).isNotSameAs(listener);
        assertThat(d.rebalanceListener()).isSameAs(listener);
        assertThat(d.maxBufferedBytes()).isEqualTo(2L * 52428800);
        assertThat(e.maxBufferedBytes()).isEqualTo(1024);
        assertThat(e.withProperty("fetch.max.bytes", 1000).maxBufferedBytes()).isEqualTo(1024);
        assertThat(d.withProperty("fetch.max.bytes", 1000).maxBufferedBytes()).isEqualTo(2000);
    }

    @Test
    void inputMapIsCopiedAndPropertiesAreUnmodifiable() {
        Map<String, Object> m = new HashMap<>(PROPS);
        ConsumerOptions<byte[], byte[]> o = ConsumerOptions.create(m);
        m.put("group.id", "other");
        assertThat(OptionsAccess.config(o).groupId()).contains("g");
        assertThat(o.properties()).containsEntry("group.id", "g");
        assertThatThrownBy(() -> o.properties().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> o.subscription(List.of("t")).subscribedTopics().add("u"))
            .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void withPropertyRevalidatesAndNullRemoves() {
        ConsumerOptions<byte[], byte[]> o = ConsumerOptions.create(PROPS);
        assertThatThrownBy(() -> o.withProperty("fetch.min.bytes", "lots"))
            .isInstanceOf(ConfigException.class).hasMessageContaining("fetch.min.bytes");
        assertThat(OptionsAccess.config(o.withProperty("group.id", null)).groupId()).isEmpty();
        assertThat(OptionsAccess.config(o.withProperties(Map.of("client.id", "c1", "check.crcs", "false"))).checkCrcs()).isFalse();
    }

    @Test
    void subscriptionKindsReplaceEachOther() {
        ConsumerOptions<byte[], byte[]> o = ConsumerOptions.create(PROPS);
        TopicPartition tp = new TopicPartition("t", 0);
        ConsumerOptions<byte[], byte[]> assigned = o.subscription(List.of("t")).assignment(List.of(tp, tp));
        assertThat(assigned.subscriptionType()).isEqualTo(ConsumerOptions.SubscriptionType.ASSIGNMENT);
        assertThat(assigned.assignedPartitions()).containsExactly(tp);
        assertThat(assigned.subscribedTopics()).isEmpty();
        ConsumerOptions<byte[], byte[]> pattern = assigned.subscription(Pattern.compile("orders-.*"));
        assertThat(pattern.subscribedPattern()).isPresent();
        assertThat(pattern.assignedPartitions()).isEmpty();
        assertThatThrownBy(() -> o.subscription(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.subscription(List.of(" "))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.assignment(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void illegalTopicNamesAreRefusedWithInvalidTopicExceptionNamingEachOne() {
        ConsumerOptions<byte[], byte[]> o = ConsumerOptions.create(PROPS);
        String longest = "a".repeat(249);
        assertThat(o.subscription(List.of("orders", "a.b_c-D9", longest)).subscribedTopics()).hasSize(3);
        assertThatThrownBy(() -> o.subscription(List.of("ok", "bad topic!", "..", "a".repeat(250))))
            .isInstanceOfSatisfying(InvalidTopicException.class, e -> {
                assertThat(e.invalidTopics()).containsExactlyInAnyOrder("bad topic!", "..", "a".repeat(250));
                assertThat(e.errorCode()).isEqualTo(InvalidTopicException.ERROR_CODE);
            });
        assertThatThrownBy(() -> o.subscription(List.of("."))).isInstanceOf(InvalidTopicException.class);
        assertThatThrownBy(() -> o.subscription(List.of("caf\u00e9"))).isInstanceOf(InvalidTopicException.class);
        assertThatThrownBy(() -> o.assignment(List.of(new TopicPartition("bad topic!", 0))))
            .isInstanceOfSatisfying(InvalidTopicException.class,
                e -> assertThat(e.invalidTopics()).containsExactly("bad topic!"));
    }

    @Test
    void topicPartitionRefusesAnEmptyTopicAndANegativePartition() {
        assertThatThrownBy(() -> new TopicPartition("", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TopicPartition("t", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TopicPartition(null, 0)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void theConsumerGroupProtocolTakesTopicsAndPatternsRe2jCanRun() {
        ConsumerOptions<byte[], byte[]> o = ConsumerOptions.create(PROPS).withProperty("group.protocol", "consumer");
        assertThat(KafkaFluxConsumer.create(o.subscription(List.of("t")))).isNotNull();
        assertThat(KafkaFluxConsumer.create(o.subscription(Pattern.compile("orders-(eu|us)\\..*")))).isNotNull();
        assertThat(KafkaFluxConsumer.create(o.subscription(Pattern.compile("(?i)orders.*")))).isNotNull();
        // Java look-ahead and back-references: the broker (RE2J) cannot evaluate them
        for (String javaOnly : List.of("orders(?!-test).*", "(a)\\1")) {
            assertThatThrownBy(() -> KafkaFluxConsumer.create(o.subscription(Pattern.compile(javaOnly))))
                .isInstanceOfSatisfying(ConfigException.class, e -> {
                    assertThat(e.key()).isEqualTo("subscription pattern");
                    assertThat(e.getMessage()).contains("RE2J").contains(javaOnly);
                });
        }
        assertThatThrownBy(() -> KafkaFluxConsumer.create(o.subscription(Pattern.compile("orders.*",
                Pattern.CASE_INSENSITIVE)))).isInstanceOf(ConfigException.class).hasMessageContaining("(?i)");
        // the classic protocol matches with java.util.regex on the client: anything Java takes is fine
        assertThat(KafkaFluxConsumer.create(ConsumerOptions.create(PROPS)
                .subscription(Pattern.compile("orders(?!-test).*")))).isNotNull();
    }

    @Test
    void networkSettingsTheConnectionsCannotUseFailCreateWithConfigException() {
        ConsumerOptions<byte[], byte[]> o = ConsumerOptions.create(PROPS).subscription(List.of("t"));
        for (String key : List.of("request.timeout.ms", "socket.connection.setup.timeout.ms")) {
            assertThatThrownBy(() -> KafkaFluxConsumer.create(o.withProperty(key, 0)))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.key()).isEqualTo(key));
        }
        // as the official client: a maximum below reconnect.backoff.ms means a fixed reconnect.backoff.ms
        assertThat(KafkaFluxConsumer.create(o.withProperties(Map.of("reconnect.backoff.ms", 500,
                                                                    "reconnect.backoff.max.ms", 100)))).isNotNull();
    }

    @Test
    void createChecksSubscriptionAndGroup() {
        ConsumerOptions<byte[], byte[]> noGroup = ConsumerOptions.create(Map.of("bootstrap.servers", "h:1"));
        assertThatThrownBy(() -> KafkaFluxConsumer.create(noGroup)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KafkaFluxConsumer.create(noGroup.subscription(List.of("t"))))
            .isInstanceOf(ConfigException.class).hasMessageContaining("group.id");
        assertThat(KafkaFluxConsumer.create(noGroup.assignment(List.of(new TopicPartition("t", 0)))))
            .isInstanceOf(DefaultKafkaFluxConsumer.class);
        assertThat(KafkaFluxConsumer.create(ConsumerOptions.create(PROPS).subscription(List.of("t")))).isNotNull();
    }

    @Test
    void deserializersFromProperties() {
        Map<String, Object> m = new HashMap<>(PROPS);
        m.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        m.put("value.deserializer", org.apache.kafka.common.serialization.LongDeserializer.class);
        ConsumerOptions<String, Long> o = ConsumerOptions.fromProperties(m);
        assertThat(o.keyDeserializer()).isSameAs(Deserializers.string());
        assertThat(o.valueDeserializer()).isSameAs(Deserializers.longs());

        m.put("value.deserializer", UpperCase.class.getName());
        ConsumerOptions<String, String> custom = ConsumerOptions.fromProperties(m);
        assertThat(custom.valueDeserializer().deserialize("t", Headers.empty(),
                                                          ByteBuffer.wrap("ab".getBytes(StandardCharsets.UTF_8))))
            .isEqualTo("AB");

        Deserializer<Integer> instance = (t, h, d) -> 1;
        m.put("value.deserializer", instance);
        assertThat(ConsumerOptions.<String, Integer>fromProperties(m).valueDeserializer()).isSameAs(instance);

        m.put("value.deserializer", "java.lang.String");
        assertThatThrownBy(() -> ConsumerOptions.fromProperties(m))
            .isInstanceOf(ConfigException.class).hasMessageContaining("value.deserializer").hasMessageContaining("java.lang.String");
        m.remove("value.deserializer");
        assertThatThrownBy(() -> ConsumerOptions.fromProperties(m))
            .isInstanceOf(ConfigException.class).hasMessageContaining("value.deserializer");
    }

    @Test
    void byteArrayFactoryRefusesOtherDeserializerNames() {
        Map<String, Object> m = new HashMap<>(PROPS);
        m.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        assertThat(ConsumerOptions.create(m).valueDeserializer()).isSameAs(Deserializers.byteArray());
        m.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        assertThatThrownBy(() -> ConsumerOptions.create(m))
            .isInstanceOf(ConfigException.class).hasMessageContaining("key.deserializer");
        // with explicit deserializers the property is ignored
        assertThat(ConsumerOptions.create(m, Deserializers.uuid(), Deserializers.string()).keyDeserializer())
            .isSameAs(Deserializers.uuid());
    }

    @Test
    void toStringHidesSecrets() {
        ConsumerOptions<byte[], byte[]> o = ConsumerOptions.create(Map.of("bootstrap.servers", "h:1",
                                                                          "ssl.keystore.password", "hunter2"));
        assertThat(o.toString()).doesNotContain("hunter2").contains("[hidden]");
        assertThat(OptionsAccess.config(o).sslKeystorePassword()).hasValueSatisfying(p -> assertThat(p.value()).isEqualTo("hunter2"));
    }

    @Test
    void theEmitSchedulerIsUnsetByDefaultAndKeptByEveryCopy() {
        ConsumerOptions<String, String> plain = ConsumerOptions.create(PROPS, Deserializers.string(), Deserializers.string());
        assertThat(plain.emitScheduler()).as("default: kflux's own emit scheduler").isEmpty();
        assertThat(plain.toString()).doesNotContain("emitScheduler");
        assertThatThrownBy(() -> plain.withEmitScheduler(null)).isInstanceOf(NullPointerException.class);

        Scheduler scheduler = Schedulers.newSingle("emit-test");
        try {
            ConsumerOptions<String, String> set = plain.withEmitScheduler(scheduler);
            assertThat(set.emitScheduler()).containsSame(scheduler);
            assertThat(plain.emitScheduler()).as("the original is unchanged").isEmpty();
            assertThat(set.toString()).contains("emitScheduler=" + scheduler);

            List<ConsumerOptions<String, String>> copies = List.of(
                    set.subscription(List.of("t")),
                    set.subscription(Pattern.compile("t.*")),
                    set.assignment(List.of(new TopicPartition("t", 0))),
                    set.rebalanceListener(new RebalanceListener() { }),
                    set.withProperty("session.timeout.ms", 20000),
                    set.withProperties(Map.of("fetch.min.bytes", 10)),
                    set.withMaxBufferedBytes(1024),
                    set.withDeserializationErrorHandler(DeserializationErrorHandler.fail()),
                    set.withOAuthBearerTokenProvider(Mono::empty),
                    set.withSaslMechanism(new SaslMechanism() {
                        @Override
                        public String name() {
                            return "TEST";
                        }

                        @Override
                        public Exchange start(String brokerHost, Map<String, String> jaasOptions) {
                            throw new UnsupportedOperationException();
                        }
                    }),
                    set.withCommitBatchSize(5),
                    set.withMeterRegistry(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()),
                    set.withObservationRegistry(io.micrometer.observation.ObservationRegistry.create()));
            assertThat(copies).allSatisfy(c -> assertThat(c.emitScheduler()).containsSame(scheduler));

            Scheduler other = Schedulers.immediate();
            assertThat(set.withEmitScheduler(other).emitScheduler()).as("set again: the last one wins").containsSame(other);
            // and the other settings survive this copy
            ConsumerOptions<String, String> rich = plain.withCommitBatchSize(7).withMaxBufferedBytes(2048)
                    .withEmitScheduler(scheduler);
            assertThat(rich.commitBatchSize()).isEqualTo(7);
            assertThat(rich.maxBufferedBytes()).isEqualTo(2048);
        } finally {
            scheduler.dispose();
        }
    }

    @Test
    void noOpListenerCompletes() {
        RebalanceListener l = ConsumerOptions.create(PROPS).rebalanceListener();
        assertThat(l.onPartitionsAssigned(List.of(), null).block()).isNull();
        RebalanceListener counting = new RebalanceListener() {
            @Override
            public Mono<Void> onPartitionsRevoked(java.util.Collection<TopicPartition> partitions, RebalanceContext ctx) {
                return Mono.error(new IllegalStateException("revoked " + partitions));
            }
        };
        // lost delegates to revoked by default
        assertThatThrownBy(() -> counting.onPartitionsLost(List.of(new TopicPartition("t", 1)), null).block())
            .hasMessageContaining("revoked [t-1]");
    }

    /** A custom deserializer loaded by class name. */
    public static final class UpperCase implements Deserializer<String> {
        @Override
        public String deserialize(String topic, Headers headers, ByteBuffer data) {
            return Deserializers.string().deserialize(topic, headers, data).toUpperCase(java.util.Locale.ROOT);
        }
    }
}
