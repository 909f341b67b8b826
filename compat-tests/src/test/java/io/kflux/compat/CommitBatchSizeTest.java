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
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** withCommitBatchSize: a commit every N acknowledgements, without the periodic commit. */
@KafkaTest(nodes = 1)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CommitBatchSizeTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void acknowledgementsAreCommittedInBatchesOfTheGivenSize(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("batches", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "batches", 25);
        TopicPartition tp = new TopicPartition("batches", 0);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "group.id", "batches", "enable.auto.commit", false),
                        Deserializers.string(), Deserializers.string())
                .subscription(List.of("batches"))
                .withCommitBatchSize(10));
        KafkaFluxConsumer<String, String> reader = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "group.id", "batches"), List.of(tp));
        RecordQueue<String, String> q = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        try {
            List<ConsumerRecord<String, String>> records = q.take(25, WAIT);
            records.subList(0, 9).forEach(ConsumerRecord::acknowledge);
            Thread.sleep(1000);
            assertThat(reader.committed(Set.of(tp)).block(WAIT)).as("9 acknowledged: no batch yet").isEmpty();
            records.get(9).acknowledge(); // the 10th: a commit of the acknowledged prefix
            assertThat(awaitCommitted(reader, tp, 10)).isEqualTo(10);
            records.subList(10, 20).forEach(ConsumerRecord::acknowledge); // the 20th: the next one
            assertThat(awaitCommitted(reader, tp, 20)).isEqualTo(20);
            records.subList(20, 25).forEach(ConsumerRecord::acknowledge);
            Thread.sleep(1000);
            assertThat(reader.committed(Set.of(tp)).block(WAIT).get(tp).offset())
                    .as("5 more acknowledged: not a batch, and no periodic commit").isEqualTo(20);
        } finally {
            q.dispose();
            consumer.close().block(WAIT);
        }
        assertThat(reader.committed(Set.of(tp)).block(WAIT).get(tp).offset()).as("close commits the rest").isEqualTo(25);
        reader.close().block(WAIT);
    }

    private static long awaitCommitted(KafkaFluxConsumer<?, ?> reader, TopicPartition tp, long atLeast)
            throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        long committed = -1;
        while (System.nanoTime() < deadline && committed < atLeast) {
            OffsetAndMetadata om = reader.committed(Set.of(tp)).block(WAIT).get(tp);
            committed = om == null ? -1 : om.offset();
            Thread.sleep(50);
        }
        return committed;
    }
}
