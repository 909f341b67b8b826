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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
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
}
