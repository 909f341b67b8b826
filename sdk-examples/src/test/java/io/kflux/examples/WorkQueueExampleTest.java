package io.kflux.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.KafkaShareConsumer;
import io.kflux.examples.WorkQueue.Action;
import io.kflux.examples.WorkQueue.Outcome;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.ConnectableFlux;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@link WorkQueue} example against a real Kafka 4.4 broker: four workers on two partitions process every job
 * once, the poison job is released until its third delivery, rejected on it, and never delivered again.
 */
@Timeout(180)
class WorkQueueExampleTest {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int JOBS = 30;
    private static final int POISON_LIMIT = 3;
    private static final int WORKERS = 4;

    private static EmbeddedKafkaCluster kafka;

    @BeforeAll
    static void startBroker() {
        kafka = WorkQueue.startBroker();
    }

    @AfterAll
    static void stopBroker() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void everyJobIsProcessedOnceAndThePoisonJobIsRejectedOnItsThirdDelivery() {
        String topic = "work-queue-jobs";
        String group = "work-queue-test";
        kafka.createTopic(topic, 2, 1);
        Map<String, Object> client = Map.of("bootstrap.servers", kafka.bootstrapServers());
        WorkQueue.startFromEarliest(client, group);
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        List<KafkaShareConsumer<String, String>> consumers = new ArrayList<>();
        List<Flux<Outcome>> workers = new ArrayList<>();
        for (int i = 1; i <= WORKERS; i++) {
            KafkaShareConsumer<String, String> c = KafkaShareConsumer.create(WorkQueue.options(client, group, topic));
            consumers.add(c);
            workers.add(WorkQueue.worker("worker-" + i, c, POISON_LIMIT, Duration.ofMillis(10)));
        }
        // every outcome kept, so that each wait below sees those before it too
        ConnectableFlux<Outcome> all = Flux.merge(workers).doOnNext(outcomes::add).replay();
        Disposable running = all.connect();
        try {
            List<String> jobs = WorkQueue.jobs(JOBS);
            WorkQueue.write(client, IntStream.range(0, JOBS)
                    .mapToObj(i -> new ProducerRecord<>(topic, i % 2, jobs.get(i), jobs.get(i))).toList());
            String poison = WorkQueue.POISON + "-" + JOBS / 2;
            assertThat(jobs).contains(poison);
            awaitFinished(all, JOBS, outcomes);

            // a job written after the poison one on each partition: once both are done, a redelivery of the
            // rejected job (it would come first) would have shown
            WorkQueue.write(client, List.of(new ProducerRecord<>(topic, 0, "later-0", "later-0"),
                    new ProducerRecord<>(topic, 1, "later-1", "later-1")));
            awaitFinished(all, JOBS + 2, outcomes);

            // by delivery: a redelivery may be confirmed before the previous delivery's release is
            List<Outcome> poisoned = outcomes.stream().filter(o -> o.job().equals(poison))
                    .sorted(Comparator.comparingInt(Outcome::deliveryCount)).toList();
            assertThat(poisoned).as("the poison job's deliveries").extracting(Outcome::deliveryCount)
                    .containsExactly((short) 1, (short) 2, (short) 3);
            assertThat(poisoned).extracting(Outcome::action)
                    .containsExactly(Action.RELEASED, Action.RELEASED, Action.REJECTED);
            List<Outcome> others = outcomes.stream().filter(o -> !o.job().equals(poison)).toList();
            assertThat(others).as("every other job accepted on its first delivery")
                    .allMatch(o -> o.action() == Action.ACCEPTED && o.deliveryCount() == 1);
            assertThat(others.stream().map(o -> o.partition() + "@" + o.offset()))
                    .as("each job once").doesNotHaveDuplicates().hasSize(JOBS - 1 + 2);
            System.out.printf("work queue: %s%n", outcomes.stream().map(Outcome::worker).distinct().sorted().toList());
        } finally {
            running.dispose();
            Flux.fromIterable(consumers).flatMap(KafkaShareConsumer::close).blockLast(WAIT);
        }
    }

    private static void awaitFinished(Flux<Outcome> all, int jobs, List<Outcome> seen) {
        all.filter(Outcome::isFinal).take(jobs).then()
                .timeout(WAIT, Mono.error(() -> new AssertionError(jobs + " jobs finished expected within " + WAIT
                        + "; outcomes: " + seen)))
                .block();
    }
}
