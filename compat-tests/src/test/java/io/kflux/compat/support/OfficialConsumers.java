package io.kflux.compat.support;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** The official consumer as a reference reader in tests. */
public final class OfficialConsumers {

    private OfficialConsumers() {
    }

    /**
     * A string consumer in {@code groupId} using the classic group protocol, reading from the
     * earliest offset when the group has none.
     *
     * @param bootstrapServers where to read
     * @param groupId          consumer group
     * @return a new consumer; close it
     */
    public static KafkaConsumer<String, String> classic(String bootstrapServers, String groupId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /**
     * Subscribes a new classic-protocol consumer to {@code topic} and polls until {@code expected}
     * records arrived or {@code timeout} passed, then commits and leaves the group.
     *
     * @return the records read, possibly fewer than expected if the time ran out
     */
    public static List<ConsumerRecord<String, String>> readAll(String bootstrapServers, String topic, String groupId,
                                                               int expected, Duration timeout) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = classic(bootstrapServers, groupId)) {
            consumer.subscribe(List.of(topic));
            Instant deadline = Instant.now().plus(timeout);
            while (records.size() < expected && Instant.now().isBefore(deadline)) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            consumer.commitSync();
        }
        return records;
    }
}
