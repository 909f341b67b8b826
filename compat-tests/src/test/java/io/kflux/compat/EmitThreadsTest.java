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
import io.kflux.internal.EmitScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Where records are emitted (issue #17): by default on kflux's shared emit scheduler, whose threads stay within
 * {@link EmitScheduler#threadCap()} however many consumers run; with {@code withEmitScheduler} on the given
 * scheduler, which kflux does not dispose.
 */
@KafkaTest(nodes = 1)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EmitThreadsTest {
    private static final int PER_PARTITION = 20;

    /**
     * Three times the cap plus one consumers, one partition each (manual assignment), in one JVM: every consumer
     * gets each record of its partition once and in order, while the live {@code kflux-emit} threads, sampled
     * throughout, never exceed the cap; consumers share emit threads.
     */
    @Test
    void manyConsumersShareTheCappedEmitThreads(EmbeddedKafkaCluster kafka) throws Exception {
        int cap = EmitScheduler.threadCap();
        int consumers = 3 * cap + 1;
        String topic = "emit-many";
        kafka.createTopic(topic, consumers, 1);
        produce(kafka, topic, consumers);

        Map<Integer, List<String>> received = new ConcurrentHashMap<>();
        Set<String> emitThreads = ConcurrentHashMap.newKeySet();
        AtomicInteger mostAlive = new AtomicInteger();
        AtomicInteger samples = new AtomicInteger();
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                mostAlive.accumulateAndGet(io.kflux.testsupport.LeftBehind.emitThreads(), Math::max);
                samples.incrementAndGet();
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "emit-thread-sampler");
        sampler.setDaemon(true);
        sampler.start();
        List<KafkaFluxConsumer<String, String>> all = new ArrayList<>();
        try {
            for (int p = 0; p < consumers; p++) {
                all.add(consumer(kafka, topic, p, null));
            }
            List<Flux<ConsumerRecord<String, String>>> fluxes = new ArrayList<>();
            for (KafkaFluxConsumer<String, String> c : all) {
                fluxes.add(c.receive().take(PER_PARTITION).doOnNext(r -> {
                    emitThreads.add(Thread.currentThread().getName());
                    received.computeIfAbsent(r.partition(), k -> java.util.Collections.synchronizedList(new ArrayList<>())).add(r.offset() + ":" + r.value());
                }));
            }
            Flux.merge(fluxes).then().block(Duration.ofSeconds(90));
        } finally {
            sampler.interrupt();
            sampler.join(5_000);
            for (KafkaFluxConsumer<String, String> c : all) {
                c.close(Duration.ofSeconds(5)).block(Duration.ofSeconds(20));
            }
        }
        System.out.printf("[emit-threads] %d consumers, cap %d: at most %d kflux-emit threads alive (%d samples), "
                + "onNext on %d threads%n", consumers, cap, mostAlive.get(), samples.get(), emitThreads.size());
        for (int p = 0; p < consumers; p++) {
            int partition = p;
            assertThat(received.get(p)).as("partition %d, in order, once", p).containsExactlyElementsOf(
                    IntStream.range(0, PER_PARTITION).mapToObj(i -> i + ":" + value(partition, i)).toList());
        }
        assertThat(samples.get()).as("samples taken").isPositive();
        assertThat(mostAlive.get()).as("kflux-emit threads alive at once").isBetween(1, cap);
        assertThat(emitThreads).as("threads onNext ran on").allMatch(n -> n.matches("kflux-emit-\\d+"));
        assertThat(emitThreads.size()).as("emit threads used by %d consumers", consumers)
                .isLessThanOrEqualTo(cap).isLessThan(consumers);
    }

    /**
     * A consumer given its own scheduler emits on that scheduler's threads, deserializer included; kflux does not
     * dispose it on close, so the next consumer can use it again.
     */
    @Test
    void aGivenSchedulerEmitsAndOutlivesTheConsumer(EmbeddedKafkaCluster kafka) {
        String topic = "emit-own";
        kafka.createTopic(topic, 1, 1);
        produce(kafka, topic, 1);
        Scheduler own = Schedulers.newParallel("app-emit", 2, true);
        try {
            for (int round = 0; round < 2; round++) {
                Set<String> onNextThreads = ConcurrentHashMap.newKeySet();
                Set<String> deserializerThreads = ConcurrentHashMap.newKeySet();
                ConsumerOptions<String, String> options = ConsumerOptions.create(
                                Map.of("bootstrap.servers", kafka.bootstrapServers(), "auto.offset.reset", "earliest"),
                                Deserializers.string(), (t, headers, data) -> {
                                    deserializerThreads.add(Thread.currentThread().getName());
                                    return Deserializers.string().deserialize(t, headers, data);
                                })
                        .assignment(List.of(new TopicPartition(topic, 0)))
                        .withEmitScheduler(own);
                KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(options);
                List<String> values;
                try {
                    values = consumer.receive().take(PER_PARTITION)
                            .doOnNext(r -> onNextThreads.add(Thread.currentThread().getName()))
                            .map(ConsumerRecord::value).collectList().block(Duration.ofSeconds(30));
                } finally {
                    consumer.close(Duration.ofSeconds(5)).block(Duration.ofSeconds(20));
                }
                assertThat(values).as("round %d", round)
                        .containsExactlyElementsOf(IntStream.range(0, PER_PARTITION).mapToObj(i -> value(0, i)).toList());
                assertThat(onNextThreads).as("onNext threads, round %d", round).isNotEmpty()
                        .allMatch(n -> n.startsWith("app-emit-"));
                assertThat(deserializerThreads).as("deserializer threads, round %d", round).isNotEmpty()
                        .allMatch(n -> n.startsWith("app-emit-"));
                assertThat(own.isDisposed()).as("the given scheduler after close, round %d", round).isFalse();
            }
        } finally {
            own.dispose();
        }
    }

    /**
     * Two consumers pinned to one thread (a single-threaded scheduler given to both): one with a backlog whose
     * {@code onNext} takes a millisecond per record, one with a few records. The second gets its records after at
     * most a turn or two of the first (1,024 records each: one under way when it asks, one while its Fetch is
     * answered), not after the first's whole backlog, which all arrived in a Fetch answer or two.
     */
    @Test
    void consumersSharingAThreadTakeTurns(EmbeddedKafkaCluster kafka) {
        String topic = "emit-turns";
        int backlog = 6_000;
        kafka.createTopic(topic, 2, 1);
        try (KafkaProducer<String, String> producer = SampleData.producer(kafka.bootstrapServers())) {
            for (int i = 0; i < backlog; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k", value(0, i)));
            }
            for (int i = 0; i < PER_PARTITION; i++) {
                producer.send(new ProducerRecord<>(topic, 1, "k", value(1, i)));
            }
            producer.flush();
        }
        Scheduler one = Schedulers.newSingle("shared-emit", true);
        KafkaFluxConsumer<String, String> slow = consumer(kafka, topic, 0, one);
        KafkaFluxConsumer<String, String> light = consumer(kafka, topic, 1, one);
        AtomicInteger slowSeen = new AtomicInteger();
        try {
            reactor.core.Disposable slowRun = slow.receive().take(backlog).doOnNext(r -> {
                slowSeen.incrementAndGet();
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }).subscribe();
            try {
                // wait until the slow consumer holds the thread with its backlog, then start the light one
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (slowSeen.get() < 100 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(slowSeen.get()).as("the slow consumer started").isGreaterThanOrEqualTo(100);
                List<String> values = light.receive().take(PER_PARTITION).map(ConsumerRecord::value).collectList()
                        .block(Duration.ofSeconds(30));
                int slowAtThatTime = slowSeen.get();
                System.out.printf("[emit-turns] the light consumer had its %d records when the slow one had %d of %d%n",
                        PER_PARTITION, slowAtThatTime, backlog);
                assertThat(values).containsExactlyElementsOf(
                        IntStream.range(0, PER_PARTITION).mapToObj(i -> value(1, i)).toList());
                assertThat(slowAtThatTime).as("slow consumer's records emitted before the light one was served")
                        .isLessThan(backlog / 2);
            } finally {
                slowRun.dispose();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } finally {
            slow.close(Duration.ofSeconds(5)).block(Duration.ofSeconds(20));
            light.close(Duration.ofSeconds(5)).block(Duration.ofSeconds(20));
            one.dispose();
        }
    }

    private static KafkaFluxConsumer<String, String> consumer(EmbeddedKafkaCluster kafka, String topic, int partition,
                                                              Scheduler scheduler) {
        ConsumerOptions<String, String> options = ConsumerOptions.create(
                        Map.of("bootstrap.servers", kafka.bootstrapServers(), "auto.offset.reset", "earliest"),
                        Deserializers.string(), Deserializers.string())
                .assignment(List.of(new TopicPartition(topic, partition)));
        return KafkaFluxConsumer.create(scheduler == null ? options : options.withEmitScheduler(scheduler));
    }

    private static void produce(EmbeddedKafkaCluster kafka, String topic, int partitions) {
        try (KafkaProducer<String, String> producer = SampleData.producer(kafka.bootstrapServers())) {
            for (int p = 0; p < partitions; p++) {
                for (int i = 0; i < PER_PARTITION; i++) {
                    producer.send(new ProducerRecord<>(topic, p, "k" + i, value(p, i)));
                }
            }
            producer.flush();
        }
    }

    private static String value(int partition, int i) {
        return "p" + partition + "-" + i;
    }
}
