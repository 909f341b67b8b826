package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * A topic subscribed to by name before it exists is consumed moments after it is created, as with the official
 * consumer, not only at the next {@code metadata.max.age.ms} refresh (5 minutes by default, left at that here).
 */
@KafkaTest(nodes = 1)
class TopicCreatedAfterSubscribeTest {

    @Test
    void aTopicCreatedAfterSubscribingIsConsumedWithinSeconds(EmbeddedKafkaCluster kafka) throws Exception {
        CountDownLatch firstAssignment = new CountDownLatch(1);
        RebalanceListener listener = new RebalanceListener() {
            @Override
            public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                firstAssignment.countDown();
                return Mono.empty();
            }
        };
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "group.id", "late-topic");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                        .subscription(List.of("late")).rebalanceListener(listener));
        try {
            CompletableFuture<List<ConsumerRecord<String, String>>> received = consumer.receive()
                    .take(50).collectList().toFuture();
            // The group's first generation is assigned while the topic does not exist: nothing to read.
            assertThat(firstAssignment.await(60, TimeUnit.SECONDS)).isTrue();
            assertThat(consumer.assignment()).isEmpty();

            kafka.createTopic("late", 3, 1);
            long created = System.nanoTime();
            SampleData.produce(kafka.bootstrapServers(), "late", 50);

            List<ConsumerRecord<String, String>> records = received.get(15, TimeUnit.SECONDS);
            long tookMs = (System.nanoTime() - created) / 1_000_000;
            assertThat(records).extracting(ConsumerRecord::value)
                    .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 50).mapToObj(i -> "value-" + i).toList());
            assertThat(tookMs).as("ms from topic creation to the last record").isLessThan(10_000);
            // (take(50) cancelled the subscription, so the assignment is gone by now: check where records came from)
            assertThat(records).extracting(ConsumerRecord::partition).containsOnly(0, 1, 2);
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
    }
}
