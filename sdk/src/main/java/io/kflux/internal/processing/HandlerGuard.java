package io.kflux.internal.processing;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.kflux.ProcessingOptions;
import java.time.Duration;
import reactor.core.scheduler.Scheduler;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The optional circuit breaker and rate limiter around {@code process()}'s handler (semantics:
 * {@link ProcessingOptions#circuitBreaker(CircuitBreaker)} and {@link ProcessingOptions#rateLimiter(RateLimiter)}).
 * resilience4j's core API rather than its Reactor operators, because those fail a call the breaker refuses where
 * {@code process()} must wait. Loaded only when the options have one of the two, so kflux runs without resilience4j.
 */
final class HandlerGuard {
    private static final Duration POLL = Duration.ofMillis(ProcessingOptions.BREAKER_POLL_MILLIS);

    private final CircuitBreaker breaker;
    private final RateLimiter limiter;
    /** The breaker's polls and the limiter's waits. */
    private final Scheduler timer;

    private HandlerGuard(CircuitBreaker breaker, RateLimiter limiter, Scheduler timer) {
        this.breaker = breaker;
        this.limiter = limiter;
        this.timer = timer;
    }

    /** A guard for the options' breaker and limiter (at least one of them is set), waiting on {@code timer}. */
    static HandlerGuard of(ProcessingOptions<?, ?> options, Scheduler timer) {
        return new HandlerGuard((CircuitBreaker) options.circuitBreaker().orElse(null),
                (RateLimiter) options.rateLimiter().orElse(null), timer);
    }

    /** The refusal of a permission; only ever retried here, never seen outside. */
    private static final class Refused extends RuntimeException {
        Refused() {
            super(null, null, false, false);
        }
    }

    /** A failed call that the breaker counts as an outage (it refuses calls now): the call is made again. */
    private static final class Outage extends RuntimeException {
        Outage(Throwable cause) {
            super(null, cause, false, false);
        }
    }

    private static final Refused REFUSED = new Refused();

    /**
     * {@code call} (one attempt of the handler, deferred) behind the permissions; a failure that the breaker counts
     * as an outage makes the record wait and call again, any other failure is signalled (and retried, or not, by
     * the caller's retry policy).
     */
    Mono<Void> around(Mono<Void> call) {
        if (breaker == null) {
            return ratePermit().then(call);
        }
        Mono<Void> once = breakerPermit()
                .then(ratePermit().doOnCancel(breaker::releasePermission))
                .then(Mono.defer(() -> recorded(call)));
        return once.retryWhen(Retry.indefinitely().filter(Outage.class::isInstance));
    }

    private Mono<Void> recorded(Mono<Void> call) {
        long start = breaker.getCurrentTimestamp();
        return call
                .doOnSuccess(v -> breaker.onSuccess(breaker.getCurrentTimestamp() - start, breaker.getTimestampUnit()))
                .onErrorMap(e -> {
                    breaker.onError(breaker.getCurrentTimestamp() - start, breaker.getTimestampUnit(), e);
                    return refusesCalls() ? new Outage(e) : e;
                })
                .doOnCancel(breaker::releasePermission);
    }

    /** Whether the breaker refuses calls now (OPEN, FORCED_OPEN, HALF_OPEN): a failure then is the outage's. */
    private boolean refusesCalls() {
        return switch (breaker.getState()) {
            case OPEN, FORCED_OPEN, HALF_OPEN -> true;
            default -> false;
        };
    }

    /** Completes once the breaker gave a permission, asking every {@link #POLL}. */
    private Mono<Void> breakerPermit() {
        return Mono.<Void>defer(() -> breaker.tryAcquirePermission() ? Mono.empty() : Mono.error(REFUSED))
                .retryWhen(Retry.fixedDelay(Long.MAX_VALUE, POLL).scheduler(timer).filter(Refused.class::isInstance));
    }

    /** Completes when the limiter's permission is due; beyond its timeout, asks again a refresh period later. */
    private Mono<Void> ratePermit() {
        if (limiter == null) {
            return Mono.empty();
        }
        return Mono.defer(() -> {
            long nanos = limiter.reservePermission();
            if (nanos == 0) {
                return Mono.empty();
            }
            if (nanos > 0) {
                return Mono.delay(Duration.ofNanos(nanos), timer).then();
            }
            return Mono.delay(limiter.getRateLimiterConfig().getLimitRefreshPeriod(), timer).then(ratePermit());
        });
    }
}
