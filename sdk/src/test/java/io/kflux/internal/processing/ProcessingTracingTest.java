package io.kflux.internal.processing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.Ordering;
import io.kflux.ProcessedRecord;
import io.kflux.ProcessingOptions;
import io.kflux.internal.metrics.RecordTracing;
import io.kflux.util.LogContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Under process() the record's observation is current while its handler runs, the same one across retries (which
 * start on a timer thread), in the handler publisher's Reactor context, and stopped when the record is done.
 */
class ProcessingTracingTest {

    @Test
    void theRecordsObservationIsCurrentInEveryAttemptAndEndsWithTheRecord() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        RecordTracing tracing = RecordTracing.create(registry, "c1", "g1");
        List<Observation> current = new CopyOnWriteArrayList<>();
        List<Object> inContext = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        ProcessingOptions<String, String> options = ProcessingOptions.<String, String>ordering(Ordering.KEY)
                .retry(2, Duration.ofMillis(5));
        reactor.core.scheduler.Scheduler hop = reactor.core.scheduler.Schedulers.newSingle("handler-hop");
        List<ProcessedRecord<String, String>> out = new Flux<ProcessedRecord<String, String>>() {
            @Override
            public void subscribe(CoreSubscriber<? super ProcessedRecord<String, String>> actual) {
                Flux.just(new ConsumerRecord<>("orders", 0, 7, "k", "v")).concatWith(Flux.never())
                        .subscribe(ProcessingDriver.create(actual, options, r -> {
                            current.add(registry.getCurrentObservation());
                            threads.add(Thread.currentThread().getName());
                            return Mono.deferContextual(ctx -> {
                                inContext.add(ctx.getOrDefault("micrometer.observation", "absent"));
                                // the backoff ends on kflux's timer, an I/O loop: the retry moves to the handler
                                // scheduler rather than run user code there
                                return current.size() < 3
                                        ? Mono.delay(Duration.ofMillis(1)).then(Mono.error(new IllegalStateException("try again")))
                                        : Mono.empty();
                            });
                        }, (tp, o) -> false, tracing, null, "c1", LogContext.NONE, hop));
            }
        }.take(1).collectList().block(Duration.ofSeconds(30));
        hop.dispose();

        assertThat(out).singleElement().satisfies(p -> assertThat(p.attempts()).isEqualTo(3));
        assertThat(current).hasSize(3).doesNotContainNull();
        assertThat(current).as("one observation across the retries").containsOnly(current.get(0));
        assertThat(threads.subList(1, 3)).as("retries wait on kflux's timers (I/O loops) but run on the handler scheduler")
                .allMatch(t -> t.startsWith("handler-hop"));
        assertThat(inContext).as("in the handler publisher's Reactor context").containsOnly(current.get(0));
        assertThat(registry.getCurrentObservation()).as("not current after the handler").isNull();
        TestObservationRegistryAssert.assertThat(registry)
                .hasNumberOfObservationsWithNameEqualTo("kflux.consumer.process", 1)
                .hasObservationWithNameEqualTo("kflux.consumer.process").that()
                .hasBeenStarted().hasBeenStopped()
                .hasContextualNameEqualTo("orders process")
                .hasHighCardinalityKeyValue("messaging.kafka.message.offset", "7")
                .hasLowCardinalityKeyValue("messaging.kafka.consumer.group", "g1");
    }
}
