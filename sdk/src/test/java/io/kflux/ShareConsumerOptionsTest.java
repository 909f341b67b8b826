package io.kflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link ShareConsumerOptions#create}'s checks, before any I/O. */
class ShareConsumerOptionsTest {

    private static Map<String, Object> props() {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", "localhost:9092");
        props.put("group.id", "workers");
        return props;
    }

    /**
     * A consumer-group property copied into a share consumer's configuration had no effect and no word said so
     * (auto.offset.reset=earliest: a new share group still started at the log end). The official share consumer
     * refuses these keys; so does kflux, naming what to set instead.
     */
    @ParameterizedTest
    @CsvSource({"auto.offset.reset, earliest", "isolation.level, read_committed", "enable.auto.commit, false",
            "group.instance.id, worker-1", "partition.assignment.strategy, range", "group.remote.assignor, uniform",
            "group.protocol, consumer", "heartbeat.interval.ms, 1000"})
    void aConsumerGroupPropertyAShareConsumerCannotHonourIsRefused(String key, String value) {
        Map<String, Object> props = props();
        props.put(key, value);
        assertThatThrownBy(() -> ShareConsumerOptions.create(props, Deserializers.string(), Deserializers.string()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("share")
                .satisfies(e -> assertThat(((ConfigException) e).key()).isEqualTo(key));
    }

    @Test
    void autoOffsetResetNamesTheGroupConfigToSetInstead() {
        Map<String, Object> props = props();
        props.put("auto.offset.reset", "earliest");
        assertThatThrownBy(() -> ShareConsumerOptions.create(props, Deserializers.string(), Deserializers.string()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("share.auto.offset.reset");
    }

    /** kflux reads session.timeout.ms as the share group's session timeout (guide, Share groups: Session). */
    @Test
    void theSessionTimeoutAndTheSharePropertiesAreAccepted() {
        Map<String, Object> props = props();
        props.put("session.timeout.ms", 30_000);
        props.put("share.acknowledgement.mode", "EXPLICIT");
        props.put("share.lock.renewal.max.ms", 0);
        props.put("max.poll.records", 100);
        ShareConsumerOptions<String, String> options = ShareConsumerOptions.create(props, Deserializers.string(),
                Deserializers.string()).subscription(List.of("jobs"));
        assertThat(options.acknowledgementMode()).isEqualTo(ShareConsumerOptions.AcknowledgementMode.EXPLICIT);
        assertThat(options.subscribedTopics()).containsExactly("jobs");
    }

    @Test
    void aMissingGroupOrAnUnknownModeIsRefused() {
        Map<String, Object> noGroup = props();
        noGroup.remove("group.id");
        assertThatThrownBy(() -> ShareConsumerOptions.create(noGroup, Deserializers.string(), Deserializers.string()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("group.id");
        Map<String, Object> badMode = props();
        badMode.put("share.acknowledgement.mode", "auto");
        assertThatThrownBy(() -> ShareConsumerOptions.create(badMode, Deserializers.string(), Deserializers.string()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("share.acknowledgement.mode");
    }

    /** KafkaShareConsumer.create: "@throws IllegalArgumentException when options has no subscription". */
    @Test
    void aShareConsumerWithoutASubscriptionIsRefused() {
        ShareConsumerOptions<String, String> options = ShareConsumerOptions.create(props(), Deserializers.string(),
                Deserializers.string());
        assertThatThrownBy(() -> KafkaShareConsumer.create(options)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("subscription");
    }
}
