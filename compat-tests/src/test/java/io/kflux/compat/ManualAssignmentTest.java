package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

@KafkaTest(nodes = 1)
class ManualAssignmentTest {

    static List<TopicPartition> partitions(String topic, int n) {
        return IntStream.range(0, n).mapToObj(p -> new TopicPartition(topic, p)).toList();
    }

    @Test
    void consumesEverythingProduced(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("smoke", 8, 1);
        SampleData.produce(kafka.bootstrapServers(), "smoke", 1000);
        ConsumerOptions<String, String> options = ConsumerOptions.create(
                        Map.of("bootstrap.servers", kafka.bootstrapServers(), "auto.offset.reset", "earliest"),
                        Deserializers.string(), Deserializers.string())
                .assignment(partitions("smoke", 8));
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(options);
        List<ConsumerRecord<String, String>> records = consumer.receive().take(1000).collectList()
                .block(Duration.ofSeconds(30));
        assertThat(records).hasSize(1000);
        assertThat(records).extracting(ConsumerRecord::value)
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 1000).mapToObj(i -> "value-" + i).toList());
    }
}
