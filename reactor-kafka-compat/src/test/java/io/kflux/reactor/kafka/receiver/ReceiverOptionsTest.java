package io.kflux.reactor.kafka.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.Header;
import io.kflux.Headers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** Options and type conversions without a broker; behaviour against brokers is in compat-tests. */
class ReceiverOptionsTest {

    @Test
    void optionsAreImmutableAndKeepReactorKafkasDefaults() {
        ReceiverOptions<String, String> base = ReceiverOptions.create(Map.of("group.id", "g"));
        ReceiverOptions<String, String> changed = base.commitBatchSize(7).subscription(List.of("t"))
                .addAssignListener(ps -> { }).pollTimeout(Duration.ofMillis(5)).consumerProperty("client.id", "c");
        assertThat(base.commitInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(base.commitBatchSize()).isZero();
        assertThat(base.atmostOnceCommitAheadSize()).isZero();
        assertThat(base.maxDeferredCommits()).isZero();
        assertThat(base.pollTimeout()).isEqualTo(Duration.ofMillis(100));
        assertThat(base.subscriptionTopics()).isNull();
        assertThat(base.assignListeners()).isEmpty();
        assertThat(base.consumerProperty("client.id")).isNull();
        assertThat(changed.commitBatchSize()).isEqualTo(7);
        assertThat(changed.subscriptionTopics()).containsExactly("t");
        assertThat(changed.assignListeners()).hasSize(1);
        assertThat(changed.groupId()).isEqualTo("g");
        assertThat(changed.consumerProperty("client.id")).isEqualTo("c");
        Collection<TopicPartition> tps = List.of(new TopicPartition("t", 1));
        assertThat(changed.assignment(tps).subscriptionTopics()).isNull();
        assertThat(changed.assignment(tps).assignment()).containsExactly(new TopicPartition("t", 1));
        assertThat(changed.subscription(Pattern.compile("t.*")).subscriptionTopics()).isNull();
        assertThat(changed.clearAssignListeners().assignListeners()).isEmpty();
    }

    @Test
    void propertiesAreCopiedAndBadValuesRefused() {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", "h:1");
        ReceiverOptions<String, String> o = ReceiverOptions.create(p);
        p.setProperty("bootstrap.servers", "other:2");
        assertThat(o.bootstrapServers()).isEqualTo("h:1");
        assertThatThrownBy(() -> o.commitBatchSize(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.commitInterval(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.pollTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThat(o.commitInterval(Duration.ZERO).commitInterval()).isZero();
    }

    @Test
    void receivingWithoutSubscriptionFailsAtSubscription() {
        KafkaReceiver<String, String> receiver = KafkaReceiver.create(ReceiverOptions.<String, String>create(Map.of(
                "bootstrap.servers", "localhost:9092",
                "key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer",
                "value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer")));
        assertThatThrownBy(() -> receiver.receive().blockFirst(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("subscription");
    }

    @Test
    void kfluxRecordsBecomeKafkaRecords() {
        io.kflux.ConsumerRecord<String, String> r = new io.kflux.ConsumerRecord<>(
                new io.kflux.TopicPartition("t", 3), 42L, 1_700_000_000_000L, io.kflux.TimestampType.LOG_APPEND_TIME,
                "k", "v", Headers.of(Header.of("h", "x"), Header.of("h", "y")), 7, 1, 1);
        ConsumerRecord<String, String> k = KafkaTypes.kafka(r);
        assertThat(k.topic()).isEqualTo("t");
        assertThat(k.partition()).isEqualTo(3);
        assertThat(k.offset()).isEqualTo(42L);
        assertThat(k.timestamp()).isEqualTo(1_700_000_000_000L);
        assertThat(k.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(k.key()).isEqualTo("k");
        assertThat(k.value()).isEqualTo("v");
        assertThat(k.leaderEpoch()).contains(7);
        assertThat(new String(k.headers().lastHeader("h").value(), StandardCharsets.UTF_8)).isEqualTo("y");
        assertThat(KafkaTypes.kflux(new TopicPartition("t", 3))).isEqualTo(new io.kflux.TopicPartition("t", 3));
    }

    @Test
    void recordHeadersAreKafkaClientsOwnAndCompareAndPrintByContent() {
        io.kflux.ConsumerRecord<String, String> r = new io.kflux.ConsumerRecord<>(
                new io.kflux.TopicPartition("t", 0), 1L, 0L, io.kflux.TimestampType.CREATE_TIME, "k", "v",
                Headers.of(Header.of("a", "1"), Header.of("b", "2")), 0, 1, 1);
        RecordHeaders sent = new RecordHeaders();
        sent.add("a", "1".getBytes(StandardCharsets.UTF_8));
        sent.add("b", "2".getBytes(StandardCharsets.UTF_8));
        ConsumerRecord<String, String> k = KafkaTypes.kafka(r);
        assertThat(k.headers()).isEqualTo(sent);
        assertThat(k.headers().lastHeader("a")).isEqualTo(new RecordHeader("a", "1".getBytes(StandardCharsets.UTF_8)));
        assertThat(k.headers().lastHeader("a").toString()).isEqualTo("RecordHeader(key = a, value = [49])");
        assertThat(new ReceiverRecord<>(k, null).headers()).isEqualTo(sent);
        assertThat(KafkaTypes.kafka(new io.kflux.ConsumerRecord<>(new io.kflux.TopicPartition("t", 0), 1L, 0L,
                io.kflux.TimestampType.CREATE_TIME, "k", "v", Headers.empty(), 0, 1, 1)).headers())
                .isEqualTo(new RecordHeaders());
    }

    @Test
    void clientIdHeartbeatIntervalAndSubscriberAreDerivedFromTheOptions() {
        ReceiverOptions<String, String> o = ReceiverOptions.create(Map.of("client.id", "c-1"));
        assertThat(o.clientId()).isEqualTo("c-1");
        assertThat(ReceiverOptions.create().clientId()).isNull();
        assertThat(o.heartbeatInterval()).isEqualTo(Duration.ofSeconds(3));
        assertThat(o.consumerProperty("heartbeat.interval.ms", "1500").heartbeatInterval())
                .isEqualTo(Duration.ofMillis(1500));
        assertThat(o.consumerProperty("heartbeat.interval.ms", 700).heartbeatInterval())
                .isEqualTo(Duration.ofMillis(700));
        assertThatThrownBy(() -> o.consumerProperty("heartbeat.interval.ms", "soon").heartbeatInterval())
                .isInstanceOf(io.kflux.ConfigException.class).hasMessageContaining("heartbeat.interval.ms");

        // the subscriber drives a kafka-clients consumer of the application's own as the options say
        TopicPartition tp = new TopicPartition("t", 0);
        List<Collection<TopicPartition>> assigned = new java.util.ArrayList<>();
        ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                assigned.add(partitions);
            }
        };
        try (MockConsumer<String, String> mock = new MockConsumer<>("earliest")) {
            o.assignment(List.of(tp)).subscriber(listener).accept(mock);
            assertThat(mock.assignment()).containsExactly(tp);
            assertThat(assigned).containsExactly(List.of(tp));
        }
        try (MockConsumer<String, String> mock = new MockConsumer<>("earliest")) {
            o.subscription(List.of("t")).subscriber(listener).accept(mock);
            assertThat(mock.subscription()).containsExactly("t");
        }
        assertThatThrownBy(() -> o.subscriber(listener)).isInstanceOf(IllegalStateException.class);
    }

    /** reactor-kafka's ReceiverOptions is an interface: applications wrap or mock it, so must this one be. */
    @Test
    void anApplicationCanImplementTheOptionsByDelegation() {
        ReceiverOptions<String, String> real = ReceiverOptions.<String, String>create(Map.of("group.id", "g"))
                .subscription(List.of("t"));
        ReceiverOptions<String, String> wrapped = (ReceiverOptions<String, String>) java.lang.reflect.Proxy
                .newProxyInstance(ReceiverOptions.class.getClassLoader(), new Class<?>[] {ReceiverOptions.class},
                                  (proxy, method, args) -> method.isDefault()
                                          ? java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args)
                                          : method.invoke(real, args));
        assertThat(wrapped.groupId()).isEqualTo("g");
        assertThat(wrapped.subscriptionTopics()).containsExactly("t");
        assertThat(wrapped.commitInterval()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void doOnConsumerWithoutASubscribedReceiveFluxFailsNamingWhy() {
        KafkaReceiver<String, String> receiver = KafkaReceiver.create(ReceiverOptions.<String, String>create(Map.of(
                "bootstrap.servers", "localhost:9092")).subscription(List.of("t")));
        assertThatThrownBy(() -> receiver.doOnConsumer(c -> c.assignment()).block(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("subscribed receive flux");
    }
}
