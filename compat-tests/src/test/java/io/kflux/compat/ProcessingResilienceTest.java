package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.Ordering;
import io.kflux.ProcessedRecord;
import io.kflux.ProcessingOptions;
import io.kflux.compat.support.GroupKit;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * process() with a circuit breaker around the handler (issue #27), against a real broker, under both group
 * protocols: while the downstream is down the breaker opens, records wait instead of going through the retries to
 * the failure handler, and nothing unprocessed is committed (read with the official Admin client); once the
 * downstream is back every record is processed and committed.
 */
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.session.timeout.ms=10000",
        "group.consumer.min.session.timeout.ms=10000"})
class ProcessingResilienceTest {
    private static final Duration WAIT = Duration.ofSeconds(120);

    private static void await(String what, BooleanSupplier condition) {
        GroupKit.await(what, WAIT, condition);
    }

    /** A member of {@code group} under {@code protocol} that auto-commits every 100 ms. */
    static KafkaFluxConsumer<String, String> member(String protocol, EmbeddedKafkaCluster kafka, String topic,
                                                    String group) {
        Map<String, Object> props = GroupKit.protocolProps(protocol, kafka.bootstrapServers(), group, "range",
                "enable.auto.commit", true, "auto.commit.interval.ms", 100);
        if (protocol.equals(GroupKit.CONSUMER_PROTOCOL)) {
            GroupKit.forVariant(GroupKit.CONSUMER_PROTOCOL, props); // skips below Kafka 4.0
        }
        return GroupKit.consumer(props, topic, null);
    }

    private static Map<TopicPartition, OffsetAndMetadata> committed(EmbeddedKafkaCluster kafka, String group)
            throws Exception {
        return kafka.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    }

    /** Every record below each committed offset was processed (its handler call succeeded). */
    private static void assertCommitsCoverOnlyProcessed(EmbeddedKafkaCluster kafka, String group,
                                                        Set<String> processed) throws Exception {
        for (Map.Entry<TopicPartition, OffsetAndMetadata> c : committed(kafka, group).entrySet()) {
            for (long o = 0; o < c.getValue().offset(); o++) {
                assertThat(processed).as("committed %s passes only processed records", c)
                        .contains(c.getKey().partition() + "@" + o);
            }
        }
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void anOutageOpensTheBreakerRecordsWaitAndNoneIsDeadLetteredThenAllAreProcessedAndCommitted(
            String protocol, EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "resilience-" + protocol;
        String group = "g-" + topic;
        kafka.createTopic(topic, 2, 1);
        int count = 300;
        List<ProducerRecord<String, String>> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add(new ProducerRecord<>(topic, i % 2, "customer-" + i % 30, "order-" + i));
        }
        SampleData.produce(kafka.bootstrapServers(), records);

        CircuitBreaker breaker = CircuitBreaker.of("downstream-" + protocol, CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(10).minimumNumberOfCalls(10).failureRateThreshold(50)
                .waitDurationInOpenState(Duration.ofMillis(300)).permittedNumberOfCallsInHalfOpenState(2).build());
        AtomicInteger reopened = new AtomicInteger();
        breaker.getEventPublisher().onStateTransition(e -> {
            if (e.getStateTransition() == CircuitBreaker.StateTransition.HALF_OPEN_TO_OPEN) {
                reopened.incrementAndGet();
            }
        });
        AtomicBoolean down = new AtomicBoolean(true);
        AtomicInteger failedCalls = new AtomicInteger();
        Set<String> processed = ConcurrentHashMap.newKeySet();
        List<String> deadLettered = new CopyOnWriteArrayList<>();
        Map<String, Integer> reported = new ConcurrentHashMap<>();
        ProcessingOptions<String, String> options = ProcessingOptions.<String, String>ordering(Ordering.KEY)
                .maxInFlight(16).maxWaiting(32)
                .retry(2, Duration.ofMillis(20))
                .onFailure((r, e) -> Mono.fromRunnable(() -> deadLettered.add(id(r))))
                .circuitBreaker(breaker);

        KafkaFluxConsumer<String, String> consumer = member(protocol, kafka, topic, group);
        Disposable run = consumer.process(options, r -> Mono.delay(Duration.ofMillis(2)).flatMap(x -> {
            if (down.get()) {
                failedCalls.incrementAndGet();
                return Mono.error(new IllegalStateException("downstream unavailable"));
            }
            processed.add(id(r));
            return Mono.empty();
        })).subscribe((ProcessedRecord<String, String> p) -> reported.merge(id(p.record()), 1, Integer::sum));
        try {
            await("the breaker opened and refused its half-open trials twice", () -> reopened.get() >= 2);
            int callsDuringOutage = failedCalls.get();
            assertThat(deadLettered).as("no record reaches the failure handler because of the outage").isEmpty();
            assertThat(reported).as("nothing reported during the outage").isEmpty();
            // 10 calls open it; then 2 trials per half-open: far fewer than 300 records x 3 attempts
            assertThat(callsDuringOutage).as("handler calls during the outage").isLessThan(10 + 16 + 2 * 10);
            assertCommitsCoverOnlyProcessed(kafka, group, processed);

            down.set(false);
            await("every record processed and reported", () -> reported.size() == count);
            await("everything committed", () -> {
                try {
                    Map<TopicPartition, OffsetAndMetadata> c = committed(kafka, group);
                    return c.size() == 2 && c.values().stream().allMatch(om -> om.offset() == count / 2);
                } catch (Exception e) {
                    return false;
                }
            });
            assertCommitsCoverOnlyProcessed(kafka, group, processed);
            assertThat(deadLettered).isEmpty();
            assertThat(processed).hasSize(count);
            assertThat(reported.values()).as("each record reported once").allMatch(n -> n == 1);
            assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
            System.out.println("process() outage, group.protocol=" + protocol + ": " + callsDuringOutage
                    + " handler calls failed while down, breaker re-opened " + reopened.get() + " time(s), 0 dead letters");
        } finally {
            run.dispose();
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    private static String id(ConsumerRecord<String, String> r) {
        return r.partition() + "@" + r.offset();
    }
}
