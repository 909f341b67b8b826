package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One kflux member of a group consumes a topic through the group coordinator, under either group protocol. */
@Tag("smoke")
@KafkaTest(nodes = 1)
class GroupSmokeTest {

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void aSingleMemberGetsEveryPartitionAndConsumesEverything(String protocol, EmbeddedKafkaCluster kafka) {
        // KIP-848 is production-ready on the broker from 4.0 (early access, off by default, in 3.x)
        assumeTrue(protocol.equals("classic") || BrokerVersion.current().atLeast(4, 0),
                "group.protocol=consumer needs a 4.0+ broker");
        String topic = "grp-" + protocol;
        kafka.createTopic(topic, 4, 1);
        SampleData.produce(kafka.bootstrapServers(), topic, 400);
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "group.id", "g1-" + protocol,
                "group.protocol", protocol);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.create(props, Deserializers.string(), Deserializers.string()).subscription(List.of(topic)));
        List<ConsumerRecord<String, String>> records = consumer.receive()
                .doOnNext(ConsumerRecord::acknowledge)
                .take(400).collectList().block(Duration.ofSeconds(60));
        assertThat(records).extracting(ConsumerRecord::value)
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 400).mapToObj(i -> "value-" + i).toList());
    }
}
