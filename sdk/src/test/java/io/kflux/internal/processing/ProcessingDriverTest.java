package io.kflux.internal.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConsumerRecord;
import io.kflux.Ordering;
import io.kflux.ProcessedRecord;
import io.kflux.ProcessedRecord.Outcome;
import io.kflux.ProcessingOptions;
import io.kflux.TopicPartition;
import io.kflux.util.LogContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** The driver over an in-memory record stream (detached records: acknowledging them does nothing). */
class ProcessingDriverTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** process() over {@code source}; the driver is handed out for revocation calls. */
    private static Flux<ProcessedRecord<String, String>> process(
            Flux<ConsumerRecord<String, String>> source, ProcessingOptions<String, String> options,
            Function<ConsumerRecord<String, String>, ? extends Publisher<?>> handler,
            AtomicReference<ProcessingDriver<String, String>> driver) {
        return new Flux<>() {
            @Override
            public void subscribe(CoreSubscriber<? super ProcessedRecord<String, String>> actual) {
                ProcessingDriver<String, String> d = ProcessingDriver.create(actual, options, handler, (tp, o) -> false, null, null, "test",
                        LogContext.NONE, reactor.core.scheduler.Schedulers.immediate());
                driver.set(d);
                source.subscribe(d);
            }
        };
    }

    /**
     * Records as a consumer emits them: the stream does not complete (a completing one, i.e. close(), lets only the
     * records in flight finish), so tests take as many results as records.
     */
    private static Flux<ConsumerRecord<String, String>> records(int partitions, int perPartition, int keys) {
        return Flux.range(0, perPartition).concatMap(o -> Flux.range(0, partitions)
                .map(p -> new ConsumerRecord<>("t", p, o, "k" + ((o * 31 + p) % keys), "v")))
                .concatWith(Flux.never());
    }

    @Test
    void keyOrderingIsKeptAndConcurrencyReachesButNeverExceedsMaxInFlight() {
        int maxInFlight = 20;
        AtomicInteger now = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        Map<List<Object>, Long> running = new ConcurrentHashMap<>();
        Map<List<Object>, Long> lastDone = new ConcurrentHashMap<>();
        List<String> violations = new CopyOnWriteArrayList<>();
        List<ProcessedRecord<String, String>> out = process(records(4, 500, 50),
                ProcessingOptions.<String, String>ordering(Ordering.KEY).maxInFlight(maxInFlight),
                r -> Mono.defer(() -> {
                    List<Object> key = List.of(r.topicPartition(), r.key());
                    peak.accumulateAndGet(now.incrementAndGet(), Math::max);
                    if (running.putIfAbsent(key, r.offset()) != null) {
                        violations.add("two in flight for " + key);
                    }
                    Long before = lastDone.get(key);
                    if (before != null && before > r.offset()) {
                        violations.add("out of order " + key + " " + before + " then " + r.offset());
                    }
                    return Mono.delay(Duration.ofMillis(ThreadLocalRandom.current().nextInt(3)))
                            .doOnNext(x -> {
                                lastDone.put(key, r.offset());
                                running.remove(key);
                                now.decrementAndGet();
                            });
                }), new AtomicReference<>()).take(2000).collectList().block(WAIT);
        assertThat(violations).isEmpty();
        assertThat(out).hasSize(2000).allMatch(p -> p.outcome() == Outcome.PROCESSED && p.attempts() == 1);
        assertThat(peak.get()).isEqualTo(maxInFlight);
    }

    @Test
    void partitionOrderingRunsOneRecordPerPartition() {
        AtomicInteger peak = new AtomicInteger();
        AtomicInteger now = new AtomicInteger();
        Map<TopicPartition, Long> last = new ConcurrentHashMap<>();
        List<String> violations = new CopyOnWriteArrayList<>();
        process(records(3, 200, 50), ProcessingOptions.<String, String>ordering(Ordering.PARTITION).maxInFlight(10),
                r -> Mono.delay(Duration.ofMillis(ThreadLocalRandom.current().nextInt(2)))
                        .doOnSubscribe(s -> {
                            peak.accumulateAndGet(now.incrementAndGet(), Math::max);
                            Long before = last.put(r.topicPartition(), r.offset());
                            if (before != null && before != r.offset() - 1) {
                                violations.add(r.topicPartition() + ": " + before + " then " + r.offset());
                            }
                        }).doOnNext(x -> now.decrementAndGet()), new AtomicReference<>())
                .take(600).blockLast(WAIT);
        assertThat(violations).isEmpty();
        assertThat(peak.get()).isEqualTo(3);
    }

    @Test
    void demandStopsAtMaxInFlightPlusMaxWaiting() {
        AtomicLong requested = new AtomicLong();
        AtomicInteger started = new AtomicInteger();
        Flux<ConsumerRecord<String, String>> endless = Flux.<ConsumerRecord<String, String>, Long>generate(
                () -> 0L, (o, sink) -> {
                    sink.next(new ConsumerRecord<>("t", 0, o, "k" + o, "v"));
                    return o + 1;
                }).doOnRequest(requested::addAndGet);
        var subscription = process(endless,
                ProcessingOptions.<String, String>ordering(Ordering.UNORDERED).maxInFlight(4).maxWaiting(3),
                r -> {
                    started.incrementAndGet();
                    return Mono.never();
                }, new AtomicReference<>()).subscribe();
        assertThat(requested.get()).isEqualTo(7);
        assertThat(started.get()).isEqualTo(4);
        subscription.dispose();
    }

    @Test
    void recordsAreRequestedInQuartersOfTheBoundAndNeverBeyondIt() {
        // bound 16 (8 in flight + 8 waiting): after the first request of 16, every request is of 4 or more
        List<Long> requests = new CopyOnWriteArrayList<>();
        AtomicLong received = new AtomicLong();
        AtomicLong taken = new AtomicLong();
        List<String> violations = new CopyOnWriteArrayList<>();
        Flux<ConsumerRecord<String, String>> source = records(2, 500, 40)
                .doOnRequest(requests::add).doOnNext(r -> received.incrementAndGet());
        List<ProcessedRecord<String, String>> out = process(source,
                ProcessingOptions.<String, String>ordering(Ordering.KEY).maxInFlight(8).maxWaiting(8),
                r -> Mono.delay(Duration.ofMillis(ThreadLocalRandom.current().nextInt(2))).doOnNext(x -> {
                    // held = received - taken; requested beyond received is outstanding: both within the bound
                    long asked = requests.stream().mapToLong(Long::longValue).sum();
                    if (asked - taken.get() > 16) {
                        violations.add(asked + " requested with " + taken.get() + " results taken");
                    }
                }), new AtomicReference<>())
                .doOnNext(p -> taken.incrementAndGet()).take(1000).collectList().block(WAIT);
        assertThat(out).hasSize(1000);
        assertThat(violations).isEmpty();
        assertThat(requests.get(0)).isEqualTo(16);
        assertThat(requests.subList(1, requests.size())).allMatch(n -> n >= 4 && n <= 16);
        // per record that left, a request each would be ~1,000; in quarters at most 1,000 / 4 + 1
        assertThat(requests.size()).isLessThanOrEqualTo(1000 / 4 + 2);
        assertThat(received.get()).isLessThanOrEqualTo(1000 + 16);
    }

    @Test
    void resultsNotTakenBySubscriberCountAgainstTheBound() {
        AtomicLong requested = new AtomicLong();
        Flux<ConsumerRecord<String, String>> source = records(1, 100, 100).doOnRequest(requested::addAndGet);
        List<ProcessedRecord<String, String>> taken = new ArrayList<>();
        process(source, ProcessingOptions.<String, String>ordering(Ordering.UNORDERED).maxInFlight(2).maxWaiting(3),
                r -> Mono.empty(), new AtomicReference<>())
                .subscribe(new reactor.core.publisher.BaseSubscriber<>() {
                    @Override
                    protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                        s.request(1);
                    }

                    @Override
                    protected void hookOnNext(ProcessedRecord<String, String> value) {
                        taken.add(value);
                    }
                });
        assertThat(taken).hasSize(1);
        assertThat(requested.get()).isEqualTo(6); // 5 held (1 taken frees one slot)
    }

    @Test
    void retriesThenTheFailureHandlerOnceWithTheError() {
        Map<Long, AtomicInteger> calls = new ConcurrentHashMap<>();
        List<String> handled = new CopyOnWriteArrayList<>();
        List<ProcessedRecord<String, String>> out = process(records(1, 10, 10),
                ProcessingOptions.<String, String>ordering(Ordering.KEY).retry(2, Duration.ofMillis(1))
                        .onFailure((r, e) -> Mono.fromRunnable(() -> handled.add(r.offset() + ":" + e.getMessage()))),
                r -> {
                    calls.computeIfAbsent(r.offset(), o -> new AtomicInteger()).incrementAndGet();
                    return r.offset() == 4 ? Mono.error(new IllegalStateException("boom")) : Mono.empty();
                }, new AtomicReference<>()).take(10).collectList().block(WAIT);
        assertThat(handled).containsExactly("4:boom");
        assertThat(calls.get(4L)).hasValue(3);
        assertThat(out).hasSize(10);
        ProcessedRecord<String, String> failed = out.stream().filter(p -> p.record().offset() == 4).findFirst()
                .orElseThrow();
        assertThat(failed.outcome()).isEqualTo(Outcome.FAILED_HANDLED);
        assertThat(failed.attempts()).isEqualTo(3);
        assertThat(out).filteredOn(p -> p.record().offset() != 4).allMatch(p -> p.outcome() == Outcome.PROCESSED);
    }

    @Test
    void aFailureWithoutHandlerEndsTheStreamWithTheHandlersError() {
        IllegalStateException boom = new IllegalStateException("boom");
        assertThatThrownBy(() -> process(records(1, 10, 10), ProcessingOptions.ordering(Ordering.PARTITION),
                r -> r.offset() == 3 ? Mono.error(boom) : Mono.empty(), new AtomicReference<>()).blockLast(WAIT))
                .isSameAs(boom);
    }

    @Test
    void aHandlerThatThrowsOrReturnsNullIsAFailedAttempt() {
        List<ProcessedRecord<String, String>> out = process(records(1, 4, 4),
                ProcessingOptions.<String, String>ordering(Ordering.UNORDERED).skipFailures(),
                r -> {
                    if (r.offset() == 1) {
                        throw new IllegalArgumentException("thrown");
                    }
                    return r.offset() == 2 ? null : Mono.empty();
                }, new AtomicReference<>()).take(4).collectList().block(WAIT);
        assertThat(out).extracting(p -> p.record().offset() + ":" + p.outcome())
                .containsExactlyInAnyOrder("0:PROCESSED", "1:SKIPPED", "2:SKIPPED", "3:PROCESSED");
    }

    @Test
    void revocationDropsRecordsNotStartedAndWaitsForThoseInFlight() {
        Sinks.Many<ConsumerRecord<String, String>> source = Sinks.many().unicast().onBackpressureBuffer();
        Map<Long, Sinks.Empty<Void>> gates = new ConcurrentHashMap<>();
        List<Long> started = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<ProcessingDriver<String, String>> driver = new AtomicReference<>();
        List<ProcessedRecord<String, String>> out = new CopyOnWriteArrayList<>();
        process(source.asFlux(), ProcessingOptions.<String, String>ordering(Ordering.PARTITION)
                        .revokeTimeout(Duration.ofSeconds(10)),
                r -> {
                    started.add(r.offset());
                    return gates.computeIfAbsent(r.offset(), o -> Sinks.empty()).asMono();
                }, driver).subscribe(out::add);
        for (long o = 0; o < 3; o++) {
            source.tryEmitNext(new ConsumerRecord<>("t", 0, o, "k", "v"));
        }
        assertThat(started).containsExactly(0L);
        Mono<Void> revoked = driver.get().revoked(Set.of(new TopicPartition("t", 0)));
        AtomicReference<String> revokeDone = new AtomicReference<>();
        revoked.subscribe(null, e -> revokeDone.set("error"), () -> revokeDone.set("done"));
        assertThat(revokeDone.get()).isNull();
        gates.get(0L).tryEmitEmpty();
        assertThat(revokeDone.get()).isEqualTo("done");
        assertThat(started).containsExactly(0L); // offsets 1 and 2 were dropped
        assertThat(out).extracting(p -> p.record().offset()).containsExactly(0L);
    }

    /**
     * close() while a revocation waits for the same record (session 18's new-user trial): both waits end when the
     * record completes. The second wait used to replace the first one's signal, so the revocation waited out its
     * whole revoke timeout (and close() with it) although the record was done.
     */
    @Test
    void aRevocationAndACloseWaitingForTheSameRecordBothEndWhenItCompletes() {
        Sinks.Many<ConsumerRecord<String, String>> source = Sinks.many().unicast().onBackpressureBuffer();
        Sinks.Empty<Void> gate = Sinks.empty();
        AtomicReference<ProcessingDriver<String, String>> driver = new AtomicReference<>();
        List<ProcessedRecord<String, String>> out = new CopyOnWriteArrayList<>();
        process(source.asFlux(), ProcessingOptions.<String, String>ordering(Ordering.PARTITION)
                        .revokeTimeout(Duration.ofMinutes(10)), r -> gate.asMono(), driver).subscribe(out::add);
        source.tryEmitNext(new ConsumerRecord<>("t", 0, 0, "k", "v"));
        AtomicReference<String> revokeDone = new AtomicReference<>();
        AtomicReference<String> closeDone = new AtomicReference<>();
        driver.get().revoked(Set.of(new TopicPartition("t", 0)))
                .subscribe(null, e -> revokeDone.set("error"), () -> revokeDone.set("done"));
        driver.get().closing().subscribe(null, e -> closeDone.set("error"), () -> closeDone.set("done"));
        assertThat(revokeDone.get()).isNull();
        assertThat(closeDone.get()).isNull();
        gate.tryEmitEmpty();
        assertThat(closeDone.get()).isEqualTo("done");
        assertThat(revokeDone.get()).as("the revocation's wait, after close() waited for the same record too")
                .isEqualTo("done");
        assertThat(out).extracting(p -> p.record().offset()).containsExactly(0L);
    }

    @Test
    void revocationAbandonsRecordsStillInFlightAfterTheTimeout() {
        Sinks.Many<ConsumerRecord<String, String>> source = Sinks.many().unicast().onBackpressureBuffer();
        AtomicInteger cancelled = new AtomicInteger();
        AtomicReference<ProcessingDriver<String, String>> driver = new AtomicReference<>();
        List<ProcessedRecord<String, String>> out = new CopyOnWriteArrayList<>();
        process(source.asFlux(), ProcessingOptions.<String, String>ordering(Ordering.UNORDERED)
                        .revokeTimeout(Duration.ofMillis(50)),
                r -> Mono.never().doOnCancel(cancelled::incrementAndGet), driver).subscribe(out::add);
        source.tryEmitNext(new ConsumerRecord<>("t", 0, 0, "k", "v"));
        source.tryEmitNext(new ConsumerRecord<>("t", 1, 0, "k", "v"));
        driver.get().revoked(Set.of(new TopicPartition("t", 0))).block(WAIT);
        assertThat(cancelled.get()).isEqualTo(1);
        assertThat(out).isEmpty();
    }

    @Test
    void completionOfTheConsumerLetsRecordsInFlightFinishAndStartsNoOther() {
        Sinks.Many<ConsumerRecord<String, String>> source = Sinks.many().unicast().onBackpressureBuffer();
        Sinks.Empty<Void> gate = Sinks.empty();
        List<Long> started = new CopyOnWriteArrayList<>();
        AtomicReference<String> end = new AtomicReference<>();
        List<ProcessedRecord<String, String>> out = new CopyOnWriteArrayList<>();
        process(source.asFlux(), ProcessingOptions.ordering(Ordering.PARTITION), r -> {
            started.add(r.offset());
            return gate.asMono();
        }, new AtomicReference<>()).subscribe(out::add, e -> end.set("error"), () -> end.set("complete"));
        source.tryEmitNext(new ConsumerRecord<>("t", 0, 0, "k", "v"));
        source.tryEmitNext(new ConsumerRecord<>("t", 0, 1, "k", "v"));
        source.tryEmitComplete();
        assertThat(end.get()).isNull();
        gate.tryEmitEmpty();
        assertThat(end.get()).isEqualTo("complete");
        assertThat(started).containsExactly(0L);
        assertThat(out).hasSize(1);
    }

    @Test
    void cancellingCancelsTheHandlersRunning() {
        AtomicInteger cancelled = new AtomicInteger();
        var subscription = process(records(2, 5, 5), ProcessingOptions.ordering(Ordering.PARTITION),
                r -> Mono.never().doOnCancel(cancelled::incrementAndGet), new AtomicReference<>()).subscribe();
        subscription.dispose();
        assertThat(cancelled.get()).isEqualTo(2);
    }

    @Test
    void closingLetsRecordsInFlightFinishAndStartsOrTakesNoOther() {
        Sinks.Many<ConsumerRecord<String, String>> source = Sinks.many().unicast().onBackpressureBuffer();
        Sinks.Empty<Void> gate = Sinks.empty();
        List<Long> started = new CopyOnWriteArrayList<>();
        AtomicReference<ProcessingDriver<String, String>> driver = new AtomicReference<>();
        AtomicReference<String> end = new AtomicReference<>();
        List<ProcessedRecord<String, String>> out = new CopyOnWriteArrayList<>();
        process(source.asFlux(), ProcessingOptions.ordering(Ordering.PARTITION), r -> {
            started.add(r.offset());
            return gate.asMono();
        }, driver).subscribe(out::add, e -> end.set("error"), () -> end.set("complete"));
        source.tryEmitNext(new ConsumerRecord<>("t", 0, 0, "k", "v"));
        source.tryEmitNext(new ConsumerRecord<>("t", 0, 1, "k", "v"));
        AtomicReference<String> closed = new AtomicReference<>();
        driver.get().closing().subscribe(null, e -> closed.set("error"), () -> closed.set("done"));
        source.tryEmitNext(new ConsumerRecord<>("t", 1, 0, "k", "v")); // emitted while closing: not taken
        assertThat(closed.get()).isNull();
        gate.tryEmitEmpty();
        assertThat(closed.get()).isEqualTo("done");
        assertThat(end.get()).isNull(); // the consumer's stream has not completed yet
        source.tryEmitComplete();
        assertThat(end.get()).isEqualTo("complete");
        assertThat(started).containsExactly(0L);
        assertThat(out).extracting(p -> p.record().offset()).containsExactly(0L);
    }

    @Test
    void skipsAreCounted() {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        ProcessingOptions<String, String> options = ProcessingOptions.<String, String>ordering(Ordering.UNORDERED)
                .retry(1, Duration.ofMillis(1)).skipFailures();
        List<ProcessedRecord<String, String>> out = new CopyOnWriteArrayList<>();
        var subscription = new Flux<ProcessedRecord<String, String>>() {
            @Override
            public void subscribe(CoreSubscriber<? super ProcessedRecord<String, String>> actual) {
                records(1, 5, 5).subscribe(ProcessingDriver.create(actual, options,
                        r -> r.offset() == 3 ? Mono.error(new IllegalStateException("x")) : Mono.empty(), (tp, o) -> false, null,
                        registry, "c1", LogContext.NONE,
                        reactor.core.scheduler.Schedulers.immediate()));
            }
        }.subscribe(out::add);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (out.size() < 5 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(registry.get("kflux.processing.skipped").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("kflux.processing.retries").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("kflux.processing.handler.latency").timer().count()).isEqualTo(5);
        subscription.dispose();
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void metersWhileRunning() {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        ProcessingOptions<String, String> options = ProcessingOptions.<String, String>ordering(Ordering.KEY)
                .maxInFlight(2).retry(2, Duration.ofMillis(1)).onFailure((r, e) -> Mono.empty());
        List<ProcessedRecord<String, String>> out = new CopyOnWriteArrayList<>();
        var subscription = new Flux<ProcessedRecord<String, String>>() {
            @Override
            public void subscribe(CoreSubscriber<? super ProcessedRecord<String, String>> actual) {
                Flux.just(new ConsumerRecord<>("t", 0, 0, "a", "v"), new ConsumerRecord<>("t", 0, 1, "b", "v"),
                                new ConsumerRecord<>("t", 0, 2, "a", "v"), new ConsumerRecord<>("t", 0, 3, "c", "v"),
                                new ConsumerRecord<>("t", 0, 4, "d", "v"), new ConsumerRecord<>("t", 0, 5, "a", "v"))
                        .concatWith(Flux.never())
                        .subscribe(ProcessingDriver.create(actual, options,
                                r -> r.offset() == 1 ? Mono.error(new IllegalStateException("x"))
                                        : r.offset() == 0 ? Mono.empty() : Mono.never(), (tp, o) -> false, null, registry, "c1",
                                LogContext.NONE, reactor.core.scheduler.Schedulers.immediate()));
            }
        }.subscribe(out::add);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (out.size() < 2 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(out).extracting(ProcessedRecord::outcome)
                .containsExactlyInAnyOrder(Outcome.PROCESSED, Outcome.FAILED_HANDLED);
        assertThat(registry.get("kflux.processing.retries").counter().count()).isEqualTo(2.0);
        assertThat(registry.get("kflux.processing.failed.handled").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("kflux.processing.handler.latency").timer().count()).isEqualTo(2);
        // 2 and 3 run (never complete), 4 waits for a slot, 5 waits behind 2 (key a)
        assertThat(registry.get("kflux.processing.in.flight").tag("client.id", "c1").gauge().value()).isEqualTo(2.0);
        assertThat(registry.get("kflux.processing.waiting").gauge().value()).isEqualTo(2.0);
        assertThat(registry.get("kflux.processing.waiting.key.max").gauge().value()).isEqualTo(1.0);
        subscription.dispose();
        assertThat(registry.getMeters()).isEmpty();
    }
}
