package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConfigException;
import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

/** Commits with a manual assignment and a group.id (no membership), checked with the official Admin client. */
@KafkaTest(nodes = 1)
class ManualAssignmentCommitTest {

    private static Map<TopicPartition, Long> officialCommitted(EmbeddedKafkaCluster kafka, String group) throws Exception {
        Admin admin = kafka.admin();
        return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet().stream()
                .collect(Collectors.toMap(e -> new TopicPartition(e.getKey().topic(), e.getKey().partition()),
                        e -> e.getValue().offset()));
    }

    @Test
    void acknowledgedOffsetsAreCommittedAndTheNextConsumerStartsThere(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("acks", 2, 1);
        SampleData.produce(kafka.bootstrapServers(), "acks", 200);
        List<TopicPartition> tps = Kflux.partitions("acks", 2);
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "group.id", "g-acks", "enable.auto.commit", "false");
        KafkaFluxConsumer<String, String> first = Kflux.strings(props, tps);
        List<ConsumerRecord<String, String>> records = first.receive().take(200).collectList().block(Duration.ofSeconds(30));
        assertThat(records).hasSize(200);
        // Acknowledge everything but one record of partition 0: only the prefix before it is committable.
        ConsumerRecord<String, String> hole = records.stream().filter(r -> r.partition() == 0).skip(10).findFirst().orElseThrow();
        records.stream().filter(r -> r != hole).forEach(ConsumerRecord::acknowledge);
        first.commit().block(Duration.ofSeconds(30));
        Map<TopicPartition, Long> committed = officialCommitted(kafka, "g-acks");
        assertThat(committed.get(new TopicPartition("acks", 0))).isEqualTo(hole.offset());
        long end1 = records.stream().filter(r -> r.partition() == 1).mapToLong(ConsumerRecord::offset).max().orElseThrow() + 1;
        assertThat(committed.get(new TopicPartition("acks", 1))).isEqualTo(end1);

        // A new consumer of the group starts at the committed offsets: the hole and what follows come again.
        KafkaFluxConsumer<String, String> second = Kflux.strings(props, tps);
        List<ConsumerRecord<String, String>> again = Kflux.collectUntilIdle(second.receive(), Duration.ofSeconds(20), Duration.ofSeconds(2));
        assertThat(again).isNotEmpty();
        assertThat(again).allMatch(r -> r.partition() == 0);
        assertThat(again.get(0).offset()).isEqualTo(hole.offset());
    }

    @Test
    void explicitCommitRoundTripsMetadataAndCommittedReadsIt(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("explicit", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "explicit", 10);
        TopicPartition tp = new TopicPartition("explicit", 0);
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(
                Kflux.props(kafka.bootstrapServers(), "group.id", "g-explicit"), List.of(tp));
        consumer.commit(Map.of(tp, new OffsetAndMetadata(7, "checkpoint-7"))).block(Duration.ofSeconds(30));
        Map<TopicPartition, OffsetAndMetadata> read = consumer.committed(Set.of(tp)).block(Duration.ofSeconds(30));
        assertThat(read).containsEntry(tp, new OffsetAndMetadata(7, "checkpoint-7"));
        assertThat(officialCommitted(kafka, "g-explicit")).containsEntry(tp, 7L);
        List<ConsumerRecord<String, String>> rest = consumer.receive().take(3).collectList().block(Duration.ofSeconds(30));
        assertThat(rest).extracting(ConsumerRecord::offset).containsExactly(7L, 8L, 9L);
    }

    @Test
    void withoutGroupIdCommitsAreRefusedWithAClearError(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("nogroup", 1, 1);
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()),
                List.of(new TopicPartition("nogroup", 0)));
        assertThatThrownBy(() -> consumer.commit().block(Duration.ofSeconds(5)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("group.id");
        assertThatThrownBy(() -> consumer.committed(new HashSet<>(List.of(new TopicPartition("nogroup", 0)))).block())
                .isInstanceOf(ConfigException.class);
        SampleData.produce(kafka.bootstrapServers(), "nogroup", 1);
        ConsumerRecord<String, String> record = consumer.receive().next().block(Duration.ofSeconds(30));
        record.acknowledge(); // nowhere to go, and harmless
        assertThatThrownBy(() -> record.commit().block(Duration.ofSeconds(5)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("group.id");
        consumer.close().block(Duration.ofSeconds(30));
        assertThatThrownBy(() -> record.commit().block(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class);
    }
}
