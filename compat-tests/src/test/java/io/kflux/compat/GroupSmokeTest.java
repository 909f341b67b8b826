package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.compat.support.KafkaCluster;
import io.kflux.compat.support.Kflux;
import io.kflux.examples.broker.EmbeddedKafkaCluster;
import io.kflux.examples.broker.SampleData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** One kflux member of a group consumes a topic through the group coordinator. */
@Tag("smoke")
@KafkaCluster(nodes = 1)
class GroupSmokeTest {

    @Test
    void aSingleMemberGetsEveryPartitionAndConsumesEverything(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("grp", 4, 1);
        SampleData.produce(kafka.bootstrapServers(), "grp", 400);
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "group.id", "g1");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.create(props, Deserializers.string(), Deserializers.string()).subscription(List.of("grp")));
        List<ConsumerRecord<String, String>> records = consumer.receive()
                .doOnNext(ConsumerRecord::acknowledge)
                .take(400).collectList().block(Duration.ofSeconds(60));
        assertThat(records).extracting(ConsumerRecord::value)
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 400).mapToObj(i -> "value-" + i).toList());
    }
}
