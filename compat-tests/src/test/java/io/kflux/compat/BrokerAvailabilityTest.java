package io.kflux.compat;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;

/**
 * A topic that does not exist yet on a real broker. The broker-free cases (no broker at the bootstrap address, a
 * topic a fake broker does not know yet) are the sdk's {@code io.kflux.internal.BrokerAvailabilityTest}.
 */
@KafkaTest(nodes = 1)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrokerAvailabilityTest {

    /**
     * Decided behaviour: an assigned partition of a topic that does not exist is not an error. The
     * consumer logs it and keeps asking for metadata (ListOffsets for the reset retries with
     * retry.backoff.ms); once the topic is created, its records are emitted.
     */
    @Test
    void missingTopicIsWaitedForNotAnError(EmbeddedKafkaCluster kafka) {
        String topic = "created-later";
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "default.api.timeout.ms", 2000), List.of(new TopicPartition(topic, 0)));

        StepVerifier.create(consumer.receive().map(ConsumerRecord::value))
                .expectSubscription()
                .expectNoEvent(Duration.ofSeconds(4)) // twice default.api.timeout.ms: still no error
                .then(() -> {
                    kafka.createTopic(topic, 1, 1);
                    SampleData.produce(kafka.bootstrapServers(), List.of(new ProducerRecord<>(topic, 0, "k", "first")));
                })
                .expectNext("first")
                .thenCancel()
                .verify(Duration.ofSeconds(30));
    }
}
