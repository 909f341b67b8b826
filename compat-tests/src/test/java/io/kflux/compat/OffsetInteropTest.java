package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.OfficialConsumers;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Offsets committed by kflux are where the official consumer of the same group starts, and the other way round. */
@Tag("smoke")
@KafkaTest(nodes = 1)
class OffsetInteropTest {

    private static KafkaFluxConsumer<String, String> kflux(EmbeddedKafkaCluster kafka, String topic, String group) {
        return KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "group.id", group, "enable.auto.commit", "false"),
                        Deserializers.string(), Deserializers.string())
                .subscription(List.of(topic)));
    }

    @Test
    void theOfficialConsumerContinuesWhereKfluxCommitted(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("k2o", 3, 1);
        SampleData.produce(kafka.bootstrapServers(), "k2o", 300);
        KafkaFluxConsumer<String, String> consumer = kflux(kafka, "k2o", "g-k2o");
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        List<ConsumerRecord<String, String>> first = queue.take(120, Duration.ofSeconds(60));
        first.forEach(ConsumerRecord::acknowledge);
        consumer.commit().block(Duration.ofSeconds(30));
        consumer.close().block(Duration.ofSeconds(30));
        // close commits what was acknowledged: exactly the 120 records; the official consumer reads the other 180
        List<org.apache.kafka.clients.consumer.ConsumerRecord<String, String>> rest =
                OfficialConsumers.readAll(kafka.bootstrapServers(), "k2o", "g-k2o", 180, Duration.ofSeconds(30));
        List<String> all = new ArrayList<>(first.stream().map(ConsumerRecord::value).toList());
        rest.forEach(r -> all.add(r.value()));
        assertThat(rest).hasSize(180);
        assertThat(all).containsExactlyInAnyOrderElementsOf(
                java.util.stream.IntStream.range(0, 300).mapToObj(i -> "value-" + i).toList());
    }

    @Test
    void kfluxContinuesWhereTheOfficialConsumerCommittedAndReadsItsMetadata(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("o2k", 2, 1);
        SampleData.produce(kafka.bootstrapServers(), "o2k", 200);
        org.apache.kafka.common.TopicPartition p0 = new org.apache.kafka.common.TopicPartition("o2k", 0);
        org.apache.kafka.common.TopicPartition p1 = new org.apache.kafka.common.TopicPartition("o2k", 1);
        long end0;
        long end1;
        try (KafkaConsumer<String, String> official = OfficialConsumers.classic(kafka.bootstrapServers(), "g-o2k")) {
            Map<org.apache.kafka.common.TopicPartition, Long> ends = official.endOffsets(List.of(p0, p1));
            end0 = ends.get(p0);
            end1 = ends.get(p1);
            official.commitSync(Map.of(
                    p0, new org.apache.kafka.clients.consumer.OffsetAndMetadata(end0 / 2, "official-0"),
                    p1, new org.apache.kafka.clients.consumer.OffsetAndMetadata(end1 - 3, "official-1")));
        }
        KafkaFluxConsumer<String, String> consumer = kflux(kafka, "o2k", "g-o2k");
        TopicPartition k0 = new TopicPartition("o2k", 0);
        TopicPartition k1 = new TopicPartition("o2k", 1);
        assertThat(consumer.committed(Set.of(k0, k1)).block(Duration.ofSeconds(30))).isEqualTo(Map.of(
                k0, new OffsetAndMetadata(end0 / 2, "official-0"), k1, new OffsetAndMetadata(end1 - 3, "official-1")));
        List<ConsumerRecord<String, String>> records = Kflux.collectUntilIdle(consumer.receive(), Duration.ofSeconds(30),
                Duration.ofSeconds(2));
        Map<TopicPartition, List<Long>> offsets = Kflux.offsetsByPartition(records);
        assertThat(offsets.get(k0)).hasSize((int) (end0 - end0 / 2)).first().isEqualTo(end0 / 2);
        assertThat(offsets.get(k1)).containsExactly(end1 - 3, end1 - 2, end1 - 1);
    }
}
