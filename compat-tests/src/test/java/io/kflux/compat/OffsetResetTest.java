package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetOutOfRangeException;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;

/** OFFSET_OUT_OF_RANGE during fetch goes through auto.offset.reset; with none it is the consumer's error. */
@KafkaTest(nodes = 1)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OffsetResetTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static TopicPartition topic(EmbeddedKafkaCluster kafka, String name, int records) {
        kafka.createTopic(name, 1, 1);
        SampleData.produce(kafka.bootstrapServers(), name, records);
        return new TopicPartition(name, 0);
    }

    private static KafkaFluxConsumer<String, String> consumer(EmbeddedKafkaCluster kafka, TopicPartition tp, String reset) {
        return Kflux.strings(Kflux.props(kafka.bootstrapServers(), "auto.offset.reset", reset), List.of(tp));
    }

    @Test
    void beyondTheEndWithEarliestRestartsAtTheBeginning(EmbeddedKafkaCluster kafka) {
        TopicPartition tp = topic(kafka, "oor-earliest", 10);
        KafkaFluxConsumer<String, String> consumer = consumer(kafka, tp, "earliest");
        consumer.seek(tp, 1000).block(WAIT);
        StepVerifier.create(consumer.receive().map(ConsumerRecord::offset).take(10))
                .expectNext(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L)
                .verifyComplete();
    }

    @Test
    void beyondTheEndWithLatestWaitsAtTheEnd(EmbeddedKafkaCluster kafka) {
        TopicPartition tp = topic(kafka, "oor-latest", 10);
        KafkaFluxConsumer<String, String> consumer = consumer(kafka, tp, "latest");
        consumer.seek(tp, 1000).block(WAIT);
        StepVerifier.create(consumer.receive().take(1))
                .expectSubscription()
                .expectNoEvent(Duration.ofSeconds(2))
                .then(() -> SampleData.produce(kafka.bootstrapServers(), List.of(new ProducerRecord<>(tp.topic(), 0, "k", "new"))))
                .assertNext(r -> {
                    assertThat(r.offset()).isEqualTo(10L);
                    assertThat(r.value()).isEqualTo("new");
                })
                .verifyComplete();
    }

    @Test
    void belowTheLogStartWithEarliestRestartsAtTheLogStart(EmbeddedKafkaCluster kafka) throws Exception {
        TopicPartition tp = topic(kafka, "oor-trimmed", 10);
        kafka.admin().deleteRecords(Map.of(new org.apache.kafka.common.TopicPartition(tp.topic(), 0),
                RecordsToDelete.beforeOffset(4))).all().get(20, TimeUnit.SECONDS);
        KafkaFluxConsumer<String, String> consumer = consumer(kafka, tp, "earliest");
        consumer.seek(tp, 1).block(WAIT);
        StepVerifier.create(consumer.receive().map(ConsumerRecord::offset).take(6))
                .expectNext(4L, 5L, 6L, 7L, 8L, 9L)
                .verifyComplete();
    }

    @Test
    void beyondTheEndWithNoneFailsWithOffsetOutOfRangeException(EmbeddedKafkaCluster kafka) {
        TopicPartition tp = topic(kafka, "oor-none", 10);
        KafkaFluxConsumer<String, String> consumer = consumer(kafka, tp, "none");
        consumer.seek(tp, 1000).block(WAIT);
        StepVerifier.create(consumer.receive())
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(OffsetOutOfRangeException.class);
                    assertThat(((OffsetOutOfRangeException) e).offsetOutOfRangePartitions()).isEqualTo(Map.of(tp, 1000L));
                })
                .verify(WAIT);
        // still there: a valid seek then reads normally
        consumer.seek(tp, 7).block(WAIT);
        StepVerifier.create(consumer.receive().map(ConsumerRecord::offset).take(3))
                .expectNext(7L, 8L, 9L)
                .verifyComplete();
    }

    @Test
    void noPositionWithNoneFailsWithOffsetOutOfRangeException(EmbeddedKafkaCluster kafka) {
        TopicPartition tp = topic(kafka, "no-position-none", 3);
        KafkaFluxConsumer<String, String> consumer = consumer(kafka, tp, "none");
        StepVerifier.create(consumer.receive())
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(OffsetOutOfRangeException.class);
                    assertThat(((OffsetOutOfRangeException) e).offsetOutOfRangePartitions()).containsOnlyKeys(tp);
                })
                .verify(WAIT);
    }
}
