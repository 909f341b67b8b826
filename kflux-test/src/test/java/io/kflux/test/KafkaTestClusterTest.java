package io.kflux.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.DeserializationErrorHandler;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The test kit as a user's test would use it: topics from the annotation, test records, committed offsets. */
@KafkaTest(topics = {"kit-orders:2", "kit-single"})
class KafkaTestClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aPipelineReadsTheTestRecordsAndItsCommitsAreVisible(KafkaTestCluster kafka) {
        TopicPartition p0 = new TopicPartition("kit-orders", 0);
        TopicPartition p1 = new TopicPartition("kit-orders", 1);
        assertThat(kafka.produce("kit-orders", 0, "a", "b", "c")).containsExactly(0L, 1L, 2L);
        assertThat(kafka.produce("kit-orders", 1, "d")).containsExactly(0L);
        assertThat(kafka.endOffsets(List.of(p0, p1))).containsOnly(Map.entry(p0, 3L), Map.entry(p1, 1L));

        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        kafka.consumerProperties("kit-group"), Deserializers.string(), Deserializers.string())
                .subscription(List.of("kit-orders")));
        List<String> values = consumer.receive()
                .concatMap(r -> r.commit().thenReturn(r.value()))
                .take(4)
                .collectList()
                .block(WAIT);
        consumer.close().block(WAIT);
        assertThat(values).containsExactlyInAnyOrder("a", "b", "c", "d");
        kafka.awaitCommitted("kit-group", p0, 3, WAIT);
        assertThat(kafka.committedOffsets("kit-group")).containsOnly(Map.entry(p0, 3L), Map.entry(p1, 1L));
        assertThatThrownBy(() -> kafka.awaitCommitted("kit-group", p0, 4, Duration.ofMillis(300)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("committed 3");
    }

    @Test
    void aPoisonRecordWrittenAsBytesIsSkippedByTheBuiltInHandler(KafkaTestCluster kafka) {
        kafka.produce("kit-single", 0, "1", "2");
        kafka.produceBytes("kit-single", 0, null, "not a number".getBytes(StandardCharsets.UTF_8));
        kafka.produce("kit-single", 0, "3");
        KafkaFluxConsumer<String, Integer> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        kafka.consumerProperties("kit-poison"), Deserializers.string(),
                        (topic, headers, data) -> Integer.valueOf(StandardCharsets.UTF_8.decode(data).toString()))
                .subscription(List.of("kit-single"))
                .withDeserializationErrorHandler(DeserializationErrorHandler.logAndSkip()));
        List<Integer> values = consumer.receive()
                .doOnNext(ConsumerRecord::acknowledge)
                .take(3)
                .map(ConsumerRecord::value)
                .collectList()
                .block(WAIT);
        consumer.close().block(WAIT);
        assertThat(values).containsExactly(1, 2, 3);
        assertThat(kafka.committedOffsets("kit-poison")).containsEntry(new TopicPartition("kit-single", 0), 4L);
    }
}
