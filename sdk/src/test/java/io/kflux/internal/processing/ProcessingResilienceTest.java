package io.kflux.internal.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.kflux.ConsumerRecord;
import io.kflux.Ordering;
import io.kflux.ProcessedRecord;
import io.kflux.ProcessedRecord.Outcome;
import io.kflux.ProcessingOptions;
import io.kflux.util.LogContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.scheduler.Schedulers;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The circuit breaker and rate limiter around process()'s handler ({@link HandlerGuard}), over in-memory records
 * (detached: acknowledging does nothing). The breaker tests run in virtual time: Reactor's delays and the breaker's
 * clock both read the {@link VirtualTimeScheduler}.
 */
class ProcessingResilienceTest {
    private static final Duration OPEN_WAIT = Duration.ofSeconds(10);

    @AfterEach
    void resetTime() {
        VirtualTimeScheduler.reset();
    }

    private static Flux<ProcessedRecord<String, String>> process(Flux<ConsumerRecord<String, String>> source,
            ProcessingOptions<String, String> options,
            Function<ConsumerRecord<String, String>, ? extends Publisher<?>> handler) {
        return new Flux<>() {
            @Override
            public void subscribe(CoreSubscriber<? super ProcessedRecord<String, String>> actual) {
                // Reactor's parallel() is the virtual time a test installed, else real time
                source.subscribe(ProcessingDriver.createWithTimer(actual, options, handler, (tp, o) -> false, null, null,
                        "test", LogContext.NONE, Schedulers.parallel()));
            }
        };
    }

    /** {@code count} records over {@code keys} keys of one partition, then no end (as a consumer's stream). */
    private static Flux<ConsumerRecord<String, String>> records(int count, int keys, AtomicLong requested) {
        return Flux.range(0, count).map(o -> new ConsumerRecord<>("t", 0, (long) o, "k" + o % keys, "v"))
                .concatWith(Flux.never()).doOnRequest(n -> requested.addAndGet(n));
    }

    private static Clock clockOf(VirtualTimeScheduler time) {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(time.now(TimeUnit.MILLISECONDS));
            }
        };
    }

    /** Opens after 4 calls of which half failed; half-open after 10 s with 2 trial calls. */
    private static CircuitBreaker breaker(VirtualTimeScheduler time) {
        return CircuitBreaker.of("downstream", CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(4).minimumNumberOfCalls(4).failureRateThreshold(50)
                .waitDurationInOpenState(OPEN_WAIT).permittedNumberOfCallsInHalfOpenState(2)
                .clock(clockOf(time)).build());
    }

    @Test
    void whileTheBreakerIsOpenRecordsWaitAndAreNeitherFailedNorDeadLetteredThenAllAreProcessed() {
        VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
        CircuitBreaker breaker = breaker(time);
        AtomicBoolean down = new AtomicBoolean(true);
        AtomicInteger calls = new AtomicInteger();
        List<Long> deadLettered = new CopyOnWriteArrayList<>();
        List<ProcessedRecord<String, String>> out = Collections.synchronizedList(new ArrayList<>());
        AtomicLong requested = new AtomicLong();
        int records = 200;
        ProcessingOptions<String, String> options = ProcessingOptions.<String, String>ordering(Ordering.KEY)
                .maxInFlight(8).maxWaiting(16)
                .retry(2, Duration.ofMillis(100))
                .onFailure((r, e) -> Mono.fromRunnable(() -> deadLettered.add(r.offset())))
                .circuitBreaker(breaker);
        Disposable run = process(records(records, 20, requested), options, r -> Mono.delay(Duration.ofMillis(10))
                .doOnSubscribe(s -> calls.incrementAndGet())
                .flatMap(x -> down.get() ? Mono.error(new IllegalStateException("downstream unavailable"))
                        : Mono.empty())).subscribe(out::add);

        time.advanceTimeBy(Duration.ofSeconds(55));
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(deadLettered).as("no record reaches the failure handler because of the outage").isEmpty();
        assertThat(out).as("nothing is reported (so nothing acknowledged) during the outage").isEmpty();
        // 4 calls open it, then 2 trial calls per half-open (every 10 s): the records do not burn through
        assertThat(calls.get()).as("handler calls during the outage").isLessThanOrEqualTo(4 + 8 + 2 * 6);
        assertThat(requested.get()).as("records requested: maxInFlight + maxWaiting, then fetching stops")
                .isEqualTo(8 + 16);

        down.set(false);
        time.advanceTimeBy(OPEN_WAIT.plusSeconds(60));
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(out).hasSize(records).allMatch(p -> p.outcome() == Outcome.PROCESSED);
        assertThat(out.stream().mapToLong(p -> p.record().offset()).sorted().toArray())
                .containsExactly(java.util.stream.LongStream.range(0, records).toArray());
        assertThat(deadLettered).isEmpty();
        run.dispose();
    }

    @Test
    void aRecordFailingOnItsOwnWhileTheBreakerStaysClosedIsRetriedThenHandedToTheFailureHandler() {
        VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
        CircuitBreaker breaker = CircuitBreaker.of("downstream", CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(20).minimumNumberOfCalls(20).failureRateThreshold(50)
                .clock(clockOf(time)).build());
        List<Throwable> deadLettered = new CopyOnWriteArrayList<>();
        List<ProcessedRecord<String, String>> out = Collections.synchronizedList(new ArrayList<>());
        Disposable run = process(records(50, 10, new AtomicLong()),
                ProcessingOptions.<String, String>ordering(Ordering.KEY).maxInFlight(4).retry(2, Duration.ofMillis(50))
                        .onFailure((r, e) -> Mono.fromRunnable(() -> deadLettered.add(e)))
                        .circuitBreaker(breaker),
                r -> r.offset() == 7 ? Mono.error(new IllegalArgumentException("poison " + r.offset()))
                        : Mono.delay(Duration.ofMillis(5))).subscribe(out::add);
        time.advanceTimeBy(Duration.ofSeconds(10));
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(deadLettered).singleElement().satisfies(e -> assertThat(e).hasMessage("poison 7"));
        assertThat(out).hasSize(50);
        assertThat(out).filteredOn(p -> p.outcome() == Outcome.FAILED_HANDLED)
                .singleElement().satisfies(p -> {
                    assertThat(p.record().offset()).isEqualTo(7);
                    assertThat(p.attempts()).isEqualTo(3);
                });
        run.dispose();
    }

    @Test
    void cancellingARecordThatHoldsAHalfOpenTrialPermissionReleasesIt() {
        VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
        CircuitBreaker breaker = breaker(time);
        breaker.transitionToOpenState();
        time.advanceTimeBy(OPEN_WAIT.plusSeconds(1));
        AtomicInteger calls = new AtomicInteger();
        Disposable run = process(records(2, 2, new AtomicLong()),
                ProcessingOptions.<String, String>ordering(Ordering.UNORDERED).circuitBreaker(breaker),
                r -> Mono.never().doOnSubscribe(s -> calls.incrementAndGet())).subscribe();
        time.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(calls.get()).isEqualTo(2);
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
        run.dispose();
        assertThat(breaker.tryAcquirePermission()).as("the 2 trial permissions came back").isTrue();
        assertThat(breaker.tryAcquirePermission()).isTrue();
        assertThat(breaker.tryAcquirePermission()).isFalse();
    }

    @Test
    void theRateLimiterSpacesHandlerCallsAndNeverFailsARecord() {
        Duration period = Duration.ofMillis(50);
        RateLimiter limiter = RateLimiter.of("downstream", RateLimiterConfig.custom()
                .limitForPeriod(2).limitRefreshPeriod(period)
                .timeoutDuration(Duration.ofMillis(60)) // most records are beyond it at first: they ask again later
                .build());
        List<Long> callNanos = new CopyOnWriteArrayList<>();
        int records = 24;
        List<ProcessedRecord<String, String>> out = process(records(records, records, new AtomicLong()),
                ProcessingOptions.<String, String>ordering(Ordering.UNORDERED).maxInFlight(records).rateLimiter(limiter),
                r -> Mono.fromRunnable(() -> callNanos.add(System.nanoTime())))
                .take(records).collectList().block(Duration.ofSeconds(30));
        assertThat(out).hasSize(records).allMatch(p -> p.outcome() == Outcome.PROCESSED && p.attempts() == 1);
        List<Long> sorted = callNanos.stream().sorted().toList();
        // at most 2 permissions per refresh cycle: calls 4 apart are in cycles at least 2 apart, so a period apart
        long tolerance = TimeUnit.MILLISECONDS.toNanos(3);
        for (int i = 0; i + 4 < sorted.size(); i++) {
            assertThat(sorted.get(i + 4) - sorted.get(i)).as("calls %d and %d", i, i + 4)
                    .isGreaterThanOrEqualTo(period.toNanos() - tolerance);
        }
    }

    @Test
    void optionsNameTheirBreakerAndLimiterAndRefuseNull() {
        CircuitBreaker breaker = CircuitBreaker.ofDefaults("b");
        RateLimiter limiter = RateLimiter.ofDefaults("l");
        ProcessingOptions<String, String> plain = ProcessingOptions.ordering(Ordering.KEY);
        ProcessingOptions<String, String> guarded = plain.circuitBreaker(breaker).rateLimiter(limiter).maxInFlight(3);
        assertThat(plain.circuitBreaker()).isEmpty();
        assertThat(plain.rateLimiter()).isEmpty();
        assertThat(guarded.circuitBreaker()).containsSame(breaker);
        assertThat(guarded.rateLimiter()).containsSame(limiter);
        assertThat(guarded.skipFailures().circuitBreaker()).containsSame(breaker);
        assertThat(guarded.toString()).contains("circuitBreaker=", "rateLimiter=", "maxInFlight=3");
        assertThatThrownBy(() -> plain.circuitBreaker(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> plain.rateLimiter(null)).isInstanceOf(NullPointerException.class);
    }
}
