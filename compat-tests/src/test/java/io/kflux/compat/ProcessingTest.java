package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.Ordering;
import io.kflux.ProcessedRecord;
import io.kflux.ProcessedRecord.Outcome;
import io.kflux.ProcessingOptions;
import io.kflux.TopicPartition;
import io.kflux.compat.support.GroupKit;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@code KafkaFluxConsumer.process} against a real broker: ordering and concurrency, retries and the failure
 * handler, the default failure, skipping, and a rebalance while records are in flight; commits checked with the
 * official Admin client. The group tests run under both group protocols.
 */
// short consumer-protocol heartbeats so that KIP-848 rebalances settle as fast as classic ones here
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500"}, isolated = true) // timing-sensitive group test; not yet run sharing a cluster
class ProcessingTest {
    private static final Duration WAIT = Duration.ofSeconds(90);

    private static void produceKeyed(EmbeddedKafkaCluster kafka, String topic, int count, int keys) {
        List<ProducerRecord<String, String>> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add(new ProducerRecord<>(topic, "customer-" + (i % keys), "order-" + i));
        }
        SampleData.produce(kafka.bootstrapServers(), records);
    }

    static KafkaFluxConsumer<String, String> member(String protocol, EmbeddedKafkaCluster kafka, String topic,
                                                    String group) {
        Map<String, Object> props = GroupKit.protocolProps(protocol, kafka.bootstrapServers(), group, "range",
                "enable.auto.commit", false);
        if (protocol.equals("consumer")) {
            GroupKit.forVariant(GroupKit.CONSUMER_PROTOCOL, props); // skips below Kafka 4.0
        }
        return KafkaFluxConsumer.create(ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                .subscription(List.of(topic)));
    }

    static Map<TopicPartition, Long> committed(EmbeddedKafkaCluster kafka, String group) throws Exception {
        return kafka.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet()
                .stream().collect(Collectors.toMap(e -> new TopicPartition(e.getKey().topic(),
                        e.getKey().partition()), e -> e.getValue().offset()));
    }

    private static Map<TopicPartition, Long> ends(List<ProcessedRecord<String, String>> results) {
        Map<TopicPartition, Long> out = new HashMap<>();
        results.forEach(p -> out.merge(p.record().topicPartition(), p.record().offset() + 1, Math::max));
        return out;
    }

    /** Watches a handler: concurrency overall, records of one lane in flight at once, order within a lane. */
    private static final class Watch {
        final AtomicInteger now = new AtomicInteger();
        final AtomicInteger peak = new AtomicInteger();
        final Map<Object, Long> running = new ConcurrentHashMap<>();
        final Map<Object, Long> lastStarted = new ConcurrentHashMap<>();
        final List<String> violations = new CopyOnWriteArrayList<>();
        /** False where a lane legitimately starts again lower (a new owner re-processing what was not committed). */
        final boolean checkOrder;

        Watch(boolean checkOrder) {
            this.checkOrder = checkOrder;
        }

        /** {@code handler} wrapped: {@code lane} of a record must never have two in flight, and start in order. */
        Function<ConsumerRecord<String, String>, Publisher<?>> around(
                Function<ConsumerRecord<String, String>, Object> lane, Duration maxDelay) {
            return r -> Mono.defer(() -> {
                Object l = lane.apply(r);
                peak.accumulateAndGet(now.incrementAndGet(), Math::max);
                if (l != null) {
                    Long other = running.putIfAbsent(l, r.offset());
                    if (other != null) {
                        violations.add(l + ": " + r.offset() + " started while " + other + " runs");
                    }
                    Long before = lastStarted.put(l, r.offset());
                    if (checkOrder && before != null && before >= r.offset()) {
                        violations.add(l + ": " + r.offset() + " started after " + before);
                    }
                }
                return Mono.delay(Duration.ofMillis(ThreadLocalRandom.current().nextLong(maxDelay.toMillis() + 1)))
                        .doOnNext(x -> {
                            if (l != null) {
                                running.remove(l);
                            }
                            now.decrementAndGet();
                        });
            });
        }
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void keyOrderIsNeverViolatedAndConcurrencyReachesButNeverExceedsMaxInFlight(String protocol,
                                                                                 EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "proc-key-" + protocol;
        kafka.createTopic(topic, 4, 1);
        int count = 20_000;
        produceKeyed(kafka, topic, count, 200);
        KafkaFluxConsumer<String, String> consumer = member(protocol, kafka, topic, "g-" + topic);
        Watch watch = new Watch(true);
        // about 50 keys per partition: reaching 128 needs records of three or four partitions at hand at once, at the
        // default fetch settings (one partition's whole result, 5,000 records here, no longer fills process()'s window)
        int maxInFlight = 128;
        List<ProcessedRecord<String, String>> results = consumer.process(
                        ProcessingOptions.<String, String>ordering(Ordering.KEY).maxInFlight(maxInFlight),
                        watch.around(r -> List.of(r.topicPartition(), r.key()), Duration.ofMillis(3)))
                .take(count).collectList().block(WAIT);
        assertThat(watch.violations).isEmpty();
        assertThat(watch.peak.get()).isEqualTo(maxInFlight);
        assertThat(results).hasSize(count).allMatch(p -> p.outcome() == Outcome.PROCESSED && p.attempts() == 1);
        assertThat(results.stream().map(p -> p.record().topicPartition() + "@" + p.record().offset())
                .collect(Collectors.toSet())).hasSize(count);
        consumer.close().block(WAIT);
        assertThat(committed(kafka, "g-" + topic)).isEqualTo(ends(results));
    }

    @ParameterizedTest
    @EnumSource(value = Ordering.class)
    void everyOrderingReachesItsConcurrencyUnderAManualAssignmentAtDefaultFetchSettings(Ordering ordering,
                                                                                      EmbeddedKafkaCluster kafka) {
        String topic = "proc-" + ordering.name().toLowerCase();
        kafka.createTopic(topic, 4, 1);
        int count = 4_000;
        produceKeyed(kafka, topic, count, 50);
        // Default fetch settings: one fetched result holds a whole partition of this topic (1,000 records), most of
        // process()'s window (maxInFlight + 1,024 waiting). PARTITION reaches 4 and KEY (about 12 keys per
        // partition) reaches 32 only because partitions take turns in process()'s window (issue #27).
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()),
                Kflux.partitions(topic, 4));
        Watch watch = new Watch(true);
        int maxInFlight = 32;
        List<ProcessedRecord<String, String>> results = consumer.process(
                        ProcessingOptions.<String, String>ordering(ordering).maxInFlight(maxInFlight),
                        watch.around(r -> switch (ordering) {
                            case PARTITION -> r.topicPartition();
                            case KEY -> List.of(r.topicPartition(), r.key());
                            case UNORDERED -> null;
                        }, Duration.ofMillis(2)))
                .take(count).collectList().block(WAIT);
        assertThat(watch.violations).isEmpty();
        assertThat(watch.peak.get()).isEqualTo(ordering == Ordering.PARTITION ? 4 : maxInFlight);
        assertThat(results).hasSize(count);
        consumer.close().block(WAIT);
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void retriesThenTheFailureHandlerOnceAndTheCommitPassesTheRecordOnlyAfterIt(String protocol,
                                                                                EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "proc-dlq-" + protocol;
        String group = "g-" + topic;
        kafka.createTopic(topic, 2, 1);
        produceKeyed(kafka, topic, 400, 400); // one record per key: only the failing record waits for its handler
        TopicPartition failing = new TopicPartition(topic, 0);
        long failingOffset = 50;
        KafkaFluxConsumer<String, String> consumer = member(protocol, kafka, topic, group);
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        List<String> handled = new CopyOnWriteArrayList<>();
        Sinks.Empty<Void> deadLetterWritten = Sinks.empty();
        List<ProcessedRecord<String, String>> results = new CopyOnWriteArrayList<>();
        Disposable running = consumer.process(ProcessingOptions.<String, String>ordering(Ordering.KEY)
                        .maxInFlight(16).retry(2, Duration.ofMillis(20))
                        .onFailure((r, e) -> {
                            handled.add(r.topicPartition() + "@" + r.offset() + ": " + e.getMessage());
                            return deadLetterWritten.asMono();
                        }),
                r -> {
                    calls.computeIfAbsent(r.topicPartition() + "@" + r.offset(), k -> new AtomicInteger())
                            .incrementAndGet();
                    return r.topicPartition().equals(failing) && r.offset() == failingOffset
                            ? Mono.error(new IllegalStateException("payment service refused"))
                            : Mono.empty();
                }).subscribe(results::add);
        awaitSize(results, 399);
        awaitSize(handled, 1); // its retries (~20 and ~40 ms) may still run after the others completed
        assertThat(handled).containsExactly(failing + "@" + failingOffset + ": payment service refused");
        assertThat(calls.get(failing + "@" + failingOffset)).hasValue(3);
        consumer.commit().block(WAIT);
        Map<TopicPartition, Long> before = committed(kafka, group);
        assertThat(before.get(failing)).isEqualTo(failingOffset); // everything else of it completed, not this one
        deadLetterWritten.tryEmitEmpty();
        awaitSize(results, 400);
        ProcessedRecord<String, String> dead = results.stream()
                .filter(p -> p.record().topicPartition().equals(failing) && p.record().offset() == failingOffset)
                .findFirst().orElseThrow();
        assertThat(dead.outcome()).isEqualTo(Outcome.FAILED_HANDLED);
        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(results).filteredOn(p -> p != dead).allMatch(p -> p.outcome() == Outcome.PROCESSED);
        assertThat(handled).hasSize(1);
        consumer.commit().block(WAIT);
        assertThat(committed(kafka, group)).isEqualTo(ends(results));
        running.dispose();
        consumer.close().block(WAIT);
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void withoutFailureHandlerTheStreamEndsAndTheCommitStaysAtTheFailedRecord(String protocol,
                                                                              EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "proc-fail-" + protocol;
        String group = "g-" + topic;
        kafka.createTopic(topic, 1, 1);
        produceKeyed(kafka, topic, 200, 200);
        TopicPartition tp = new TopicPartition(topic, 0);
        KafkaFluxConsumer<String, String> consumer = member(protocol, kafka, topic, group);
        Set<Long> completed = ConcurrentHashMap.newKeySet();
        IllegalStateException boom = new IllegalStateException("inventory service down");
        AtomicReference<Throwable> ended = new AtomicReference<>();
        // record 40 fails once its later neighbours (other keys) completed
        consumer.process(ProcessingOptions.<String, String>ordering(Ordering.KEY).maxInFlight(32),
                r -> r.offset() == 40 ? Mono.delay(Duration.ofMillis(300)).then(Mono.error(boom)) : Mono.empty())
                .doOnNext(p -> completed.add(p.record().offset()))
                .doOnError(ended::set)
                .onErrorResume(e -> Mono.empty())
                .blockLast(WAIT);
        assertThat(ended.get()).isSameAs(boom);
        assertThat(completed).doesNotContain(40L).contains(41L, 50L);
        consumer.close().block(WAIT); // close commits what was acknowledged
        assertThat(committed(kafka, group)).containsEntry(tp, 40L);
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void skipFailuresSkipsAndCommitsPastTheRecord(String protocol, EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "proc-skip-" + protocol;
        String group = "g-" + topic;
        kafka.createTopic(topic, 1, 1);
        produceKeyed(kafka, topic, 100, 10);
        KafkaFluxConsumer<String, String> consumer = member(protocol, kafka, topic, group);
        List<ProcessedRecord<String, String>> results = consumer.process(
                        ProcessingOptions.<String, String>ordering(Ordering.PARTITION).retry(1, Duration.ofMillis(5))
                                .skipFailures(),
                        r -> r.offset() == 40 ? Mono.error(new IllegalStateException("bad order")) : Mono.empty())
                .take(100).collectList().block(WAIT);
        assertThat(results).filteredOn(p -> p.outcome() == Outcome.SKIPPED)
                .singleElement().satisfies(p -> {
                    assertThat(p.record().offset()).isEqualTo(40L);
                    assertThat(p.attempts()).isEqualTo(2);
                });
        consumer.close().block(WAIT);
        assertThat(committed(kafka, group)).containsEntry(new TopicPartition(topic, 0), 100L);
    }

    /**
     * A second member joins while the first has records in flight: the first's records of revoked partitions finish
     * before the partitions move (no key is ever in flight in both members), records not started are left to the
     * new owner, nothing is lost. Records completed above a dropped one are not committed (commits are contiguous)
     * and are processed again by the new owner; the count is printed.
     */
    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void aRebalanceWhileRecordsAreInFlightLosesNothingAndNeverOverlaps(String protocol, EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "proc-rebalance-" + protocol;
        String group = "g-" + topic;
        kafka.createTopic(topic, 4, 1);
        int count = 8_000; // about 5 s of work at 8 in flight, so the second member joins well before the end
        produceKeyed(kafka, topic, count, 100);
        Watch watch = new Watch(false); // shared by both members: a key in flight in both is a violation
        Map<String, AtomicInteger> processed = new ConcurrentHashMap<>();
        ProcessingOptions<String, String> options = ProcessingOptions.<String, String>ordering(Ordering.KEY)
                .maxInFlight(8).revokeTimeout(Duration.ofSeconds(20));
        Function<ConsumerRecord<String, String>, Publisher<?>> handler = watch.around(
                r -> List.of(r.topicPartition(), r.key()), Duration.ofMillis(10));
        AtomicInteger bySecond = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        KafkaFluxConsumer<String, String> first = member(protocol, kafka, topic, group);
        Disposable a = first.process(options, handler).subscribe(p -> {
            processed.computeIfAbsent(p.record().topicPartition() + "@" + p.record().offset(),
                    k -> new AtomicInteger()).incrementAndGet();
            done.incrementAndGet();
        });
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (done.get() < 300 && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
        KafkaFluxConsumer<String, String> second = member(protocol, kafka, topic, group);
        Disposable b = second.process(options, handler).subscribe(p -> {
            processed.computeIfAbsent(p.record().topicPartition() + "@" + p.record().offset(),
                    k -> new AtomicInteger()).incrementAndGet();
            done.incrementAndGet();
            bySecond.incrementAndGet();
        });
        while (processed.size() < count && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
        assertThat(processed).hasSize(count);
        assertThat(watch.violations).isEmpty();
        assertThat(bySecond.get()).as("records processed by the member that joined").isPositive();
        long twice = processed.values().stream().filter(n -> n.get() > 1).count();
        System.out.println("process() rebalance, group.protocol=" + protocol + ": " + twice + " of " + count
                + " records processed twice (completed above a record dropped at revocation)");
        a.dispose();
        b.dispose();
        first.close().block(WAIT);
        second.close().block(WAIT);
    }

    private static void awaitSize(List<?> list, int size) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (list.size() < size && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
        assertThat(list).hasSizeGreaterThanOrEqualTo(size);
    }
}
