package io.kflux;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import reactor.core.publisher.Mono;

/**
 * How {@link KafkaFluxConsumer#process} runs the handler: ordering, concurrency, retries, and what happens to a
 * record whose last attempt failed. Immutable: every method returns a changed copy.
 *
 * <pre>{@code
 * ProcessingOptions<String, Order> processing = ProcessingOptions.<String, Order>ordering(Ordering.KEY)
 *     .maxInFlight(500)
 *     .retry(3, Duration.ofMillis(100))
 *     .onFailure((record, error) -> deadLetters.send(record, error));
 * }</pre>
 *
 * <p><b>Memory.</b> The records held by a {@code process} subscription (in flight, waiting for a busy key or
 * partition, or finished but not yet taken by the subscriber) are at most {@code maxInFlight + maxWaiting}: records
 * are requested from the consumer only below that bound, so when it is reached no record is emitted, fetched data
 * stays within the consumer's buffer bound ({@code ConsumerOptions.withMaxBufferedBytes}) and fetching stops. A
 * slow or retrying key delays other keys only once the waiting records fill {@code maxWaiting}.
 *
 * <p><b>Failures.</b> A failed attempt (the handler threw, returned {@code null}, or its publisher signalled an
 * error) is retried up to {@code retry}'s attempts with Reactor's {@code Retry.backoff} (exponential backoff from
 * the first backoff, doubling, at most the maximum backoff, each delay with 50 % jitter: Reactor is what kflux is
 * built on, so no further dependency). After the last attempt: the failure handler of {@link #onFailure} if set,
 * else skipping if {@link #skipFailures()} was called, else the stream ends with the handler's error. The two exclude each other: calling one on
 * options that have the other fails with {@link IllegalStateException} rather than replacing it silently.
 *
 * <p><b>Outages.</b> With a {@link #circuitBreaker(io.github.resilience4j.circuitbreaker.CircuitBreaker) circuit breaker}, records wait while it is open instead of
 * failing, and failures that open it use no retry attempt; a {@link #rateLimiter(io.github.resilience4j.ratelimiter.RateLimiter) rate limiter} spaces handler calls.
 * Both are resilience4j's (an optional dependency of kflux), applied with its core API: its Reactor operators fail a
 * call the breaker refuses ({@code CallNotPermittedException}), where {@code process} waits.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class ProcessingOptions<K, V> {
    /** Records in flight when {@link #maxInFlight(int)} is not called. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 256;
    /** Records held waiting beyond those in flight when {@link #maxWaiting(int)} is not called. */
    public static final int DEFAULT_MAX_WAITING = 1024;
    /** Largest backoff between attempts when {@link #retry(int, Duration, Duration)} does not give one. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(10);
    /** How often a record waiting for an open {@link #circuitBreaker(io.github.resilience4j.circuitbreaker.CircuitBreaker) circuit breaker} asks it again, in ms. */
    public static final long BREAKER_POLL_MILLIS = 100;
    /** How long a revocation waits for records in flight when {@link #revokeTimeout(Duration)} is not called. */
    public static final Duration DEFAULT_REVOKE_TIMEOUT = Duration.ofSeconds(30);
    /** Records completed after which progress is committed when {@link #commitAfterRecords(int)} is not called. */
    public static final int DEFAULT_COMMIT_AFTER_RECORDS = 10_000;
    /** The least time between two commits that {@link #commitAfterRecords(int)} starts, whatever the rate. */
    public static final Duration MIN_COMMIT_SPACING = Duration.ofMillis(100);

    /** What happens to a record whose last attempt failed. */
    public enum FailurePolicy {
        /** The stream ends with the error; the record is not acknowledged. */
        END_STREAM,
        /** The failure handler runs; the record is acknowledged once its {@code Mono} completed. */
        HANDLE,
        /** A WARN log line, and the record is acknowledged. */
        SKIP
    }

    private final Ordering ordering;
    private final int maxInFlight;
    private final int maxWaiting;
    private final int retries;
    private final Duration firstBackoff;
    private final Duration maxBackoff;
    private final FailurePolicy failurePolicy;
    private final BiFunction<ConsumerRecord<K, V>, Throwable, Mono<Void>> failureHandler;
    private final Duration revokeTimeout;
    /** A resilience4j {@code CircuitBreaker} or null; {@code Object} so these options load without resilience4j. */
    private final Object circuitBreaker;
    /** A resilience4j {@code RateLimiter} or null; {@code Object} for the same reason. */
    private final Object rateLimiter;
    private final int commitAfterRecords;

    private ProcessingOptions(Ordering ordering, int maxInFlight, int maxWaiting, int retries, Duration firstBackoff,
                              Duration maxBackoff, FailurePolicy failurePolicy,
                              BiFunction<ConsumerRecord<K, V>, Throwable, Mono<Void>> failureHandler,
                              Duration revokeTimeout, Object circuitBreaker, Object rateLimiter,
                              int commitAfterRecords) {
        this.ordering = ordering;
        this.maxInFlight = maxInFlight;
        this.maxWaiting = maxWaiting;
        this.retries = retries;
        this.firstBackoff = firstBackoff;
        this.maxBackoff = maxBackoff;
        this.failurePolicy = failurePolicy;
        this.failureHandler = failureHandler;
        this.revokeTimeout = revokeTimeout;
        this.circuitBreaker = circuitBreaker;
        this.rateLimiter = rateLimiter;
        this.commitAfterRecords = commitAfterRecords;
    }

    /**
     * Options with this ordering, {@value #DEFAULT_MAX_IN_FLIGHT} records in flight, {@value #DEFAULT_MAX_WAITING}
     * waiting, no retries, and the stream ending at a failure.
     *
     * @throws NullPointerException for a null ordering
     */
    public static <K, V> ProcessingOptions<K, V> ordering(Ordering ordering) {
        return new ProcessingOptions<>(Objects.requireNonNull(ordering, "ordering"), DEFAULT_MAX_IN_FLIGHT,
                DEFAULT_MAX_WAITING, 0, Duration.ZERO, DEFAULT_MAX_BACKOFF, FailurePolicy.END_STREAM, null,
                DEFAULT_REVOKE_TIMEOUT, null, null, DEFAULT_COMMIT_AFTER_RECORDS);
    }

    /**
     * At most {@code maxInFlight} records of the consumer are being handled (retries and failure handler
     * included) at any time.
     *
     * @throws IllegalArgumentException below 1
     */
    public ProcessingOptions<K, V> maxInFlight(int maxInFlight) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, was " + maxInFlight);
        }
        return new ProcessingOptions<>(ordering, maxInFlight, maxWaiting, retries, firstBackoff, maxBackoff,
                failurePolicy, failureHandler, revokeTimeout, circuitBreaker, rateLimiter, commitAfterRecords);
    }

    /**
     * At most {@code maxWaiting} records are held beyond those in flight (waiting for a busy key or partition, or
     * for the subscriber to take their result); see "Memory" above.
     *
     * @throws IllegalArgumentException below 0
     */
    public ProcessingOptions<K, V> maxWaiting(int maxWaiting) {
        if (maxWaiting < 0) {
            throw new IllegalArgumentException("maxWaiting must not be negative, was " + maxWaiting);
        }
        return new ProcessingOptions<>(ordering, maxInFlight, maxWaiting, retries, firstBackoff, maxBackoff,
                failurePolicy, failureHandler, revokeTimeout, circuitBreaker, rateLimiter, commitAfterRecords);
    }

    /**
     * Retries a failed record {@code attempts} times after its first attempt, the first after about
     * {@code firstBackoff}, each later one after twice the previous delay, at most {@link #DEFAULT_MAX_BACKOFF} (10 s);
     * every delay with 50 % jitter.
     *
     * @param attempts     retries after the first attempt, 0 for none
     * @param firstBackoff delay before the first retry
     * @throws IllegalArgumentException for negative attempts or a negative backoff
     * @throws NullPointerException for a null backoff
     */
    public ProcessingOptions<K, V> retry(int attempts, Duration firstBackoff) {
        return retry(attempts, firstBackoff, DEFAULT_MAX_BACKOFF);
    }

    /**
     * As {@link #retry(int, Duration)}, with the largest delay between attempts.
     *
     * @throws IllegalArgumentException for negative attempts, a negative backoff or a maximum below the first
     * @throws NullPointerException for a null backoff
     */
    public ProcessingOptions<K, V> retry(int attempts, Duration firstBackoff, Duration maxBackoff) {
        Objects.requireNonNull(firstBackoff, "firstBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (attempts < 0) {
            throw new IllegalArgumentException("retry attempts must not be negative, was " + attempts);
        }
        if (firstBackoff.isNegative() || maxBackoff.compareTo(firstBackoff) < 0) {
            throw new IllegalArgumentException("backoffs must satisfy 0 <= firstBackoff <= maxBackoff, were "
                    + firstBackoff + " and " + maxBackoff);
        }
        return new ProcessingOptions<>(ordering, maxInFlight, maxWaiting, attempts, firstBackoff, maxBackoff,
                failurePolicy, failureHandler, revokeTimeout, circuitBreaker, rateLimiter, commitAfterRecords);
    }

    /**
     * Hands a record whose last attempt failed to {@code handler} (e.g. to write it to a dead-letter topic) with
     * the last attempt's error; the record is acknowledged and emitted as
     * {@link ProcessedRecord.Outcome#FAILED_HANDLED} once the returned {@code Mono} completed. A failure handler
     * that throws or whose {@code Mono} fails ends the stream with that error (its cause's error added as
     * suppressed), and the record is not acknowledged. Called at most once per record. Calling it again replaces
     * the handler.
     *
     * @throws NullPointerException for a null handler
     * @throws IllegalStateException when {@link #skipFailures()} was called on these options
     */
    public ProcessingOptions<K, V> onFailure(BiFunction<ConsumerRecord<K, V>, Throwable, Mono<Void>> handler) {
        Objects.requireNonNull(handler, "handler");
        if (failurePolicy == FailurePolicy.SKIP) {
            throw new IllegalStateException("onFailure(...) after skipFailures(): a failed record is either handed to"
                    + " a failure handler or skipped; choose one");
        }
        return new ProcessingOptions<>(ordering, maxInFlight, maxWaiting, retries, firstBackoff, maxBackoff,
                FailurePolicy.HANDLE, handler, revokeTimeout, circuitBreaker, rateLimiter, commitAfterRecords);
    }

    /**
     * Skips a record whose last attempt failed: a WARN log line (topic, partition, offset, attempts, error), the
     * record is acknowledged and emitted as {@link ProcessedRecord.Outcome#SKIPPED}.
     *
     * @throws IllegalStateException when {@link #onFailure} was called on these options
     */
    public ProcessingOptions<K, V> skipFailures() {
        if (failurePolicy == FailurePolicy.HANDLE) {
            throw new IllegalStateException("skipFailures() after onFailure(...): a failed record is either handed to"
                    + " a failure handler or skipped; choose one");
        }
        return new ProcessingOptions<>(ordering, maxInFlight, maxWaiting, retries, firstBackoff, maxBackoff,
                FailurePolicy.SKIP, null, revokeTimeout, circuitBreaker, rateLimiter, commitAfterRecords);
    }

    /**
     * When the group revokes partitions, their records not started yet are dropped (their next owner processes
     * them) and the revocation waits for their records in flight up to {@code timeout}; records still in flight
     * then are abandoned (their handler is cancelled, they are not acknowledged, their next owner processes them
     * again). The revocation as a whole is bounded by {@code max.poll.interval.ms}, so a longer timeout has no
     * effect beyond it.
     *
     * @throws NullPointerException for null
     * @throws IllegalArgumentException for a negative timeout
     */
    public ProcessingOptions<K, V> revokeTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("revokeTimeout must not be negative, was " + timeout);
        }
        return new ProcessingOptions<>(ordering, maxInFlight, maxWaiting, retries, firstBackoff, maxBackoff,
                failurePolicy, failureHandler, timeout, circuitBreaker, rateLimiter, commitAfterRecords);
    }

    /**
     * Guards the handler with a resilience4j circuit breaker (needs {@code io.github.resilience4j:
     * resilience4j-circuitbreaker} on the class path; kflux depends on it optionally), so that a downstream outage
     * pauses processing instead of sending every record through the retries and the failure handler.
     *
     * <ul>
     *   <li>Before each handler call the record takes a permission ({@code tryAcquirePermission}). While the breaker
     *       refuses (OPEN, FORCED_OPEN, or HALF_OPEN with its trial calls taken) the record <b>waits</b>: it is not
     *       failed, not retried, not handed to the failure handler and not acknowledged; it asks again every
     *       {@value #BREAKER_POLL_MILLIS} ms (asking is what moves a breaker from OPEN to HALF_OPEN after its
     *       {@code waitDurationInOpenState}). Waiting records stay in flight, so once {@code maxInFlight} of them
     *       wait and {@code maxWaiting} more are held, no record is requested and fetching stops (see "Memory").</li>
     *   <li>Each call's outcome and duration are recorded ({@code onSuccess}/{@code onError}; a cancelled call
     *       releases its permission).</li>
     *   <li>A failed call counts as one of the record's {@link #retry retry} attempts only when the breaker still
     *       permits calls after recording it (CLOSED, DISABLED, METRICS_ONLY). A failure that opened the breaker, or
     *       came while it was open or half-open, is the outage's: the record waits for the breaker and calls the
     *       handler again, without using an attempt. So during an outage no record reaches the failure handler,
     *       and a record that fails on its own (the breaker stays closed) is retried and handed over as before.
     *       Choose {@code minimumNumberOfCalls} and the failure rate so that one record's failures cannot open the
     *       breaker, or that record's failures count as an outage.</li>
     *   <li>{@link ProcessedRecord#attempts()} counts every handler call, those repeated after an outage included.
     *       A revocation waits for waiting records like for any in flight ({@link #revokeTimeout}).</li>
     * </ul>
     * The breaker may be shared with other users (its metrics and state are then shared too). Calling this again
     * replaces the breaker.
     *
     * @param breaker an {@code io.github.resilience4j.circuitbreaker.CircuitBreaker}
     * @throws NullPointerException for null
     */
    public ProcessingOptions<K, V> circuitBreaker(io.github.resilience4j.circuitbreaker.CircuitBreaker breaker) {
        Objects.requireNonNull(breaker, "breaker");
        return new ProcessingOptions<>(ordering, maxInFlight, maxWaiting, retries, firstBackoff, maxBackoff,
                failurePolicy, failureHandler, revokeTimeout, breaker, rateLimiter, commitAfterRecords);
    }

    /**
     * Spaces handler calls with a resilience4j rate limiter (needs {@code io.github.resilience4j:
     * resilience4j-ratelimiter} on the class path; kflux depends on it optionally): each call, retries included,
     * takes one permission ({@code reservePermission}) and starts when the limiter grants it; a record whose
     * permission lies beyond the limiter's {@code timeoutDuration} asks again one {@code limitRefreshPeriod} later.
     * A record never fails for want of a permission: it waits in flight, so a limit below the records' arrival rate
     * ends in backpressure and fetching stops (see "Memory"). With a {@link #circuitBreaker(io.github.resilience4j.circuitbreaker.CircuitBreaker) circuit breaker} too, a record first
     * takes the breaker's permission, then the limiter's. Calling this again replaces the limiter.
     *
     * @param limiter an {@code io.github.resilience4j.ratelimiter.RateLimiter}
     * @throws NullPointerException for null
     */
    public ProcessingOptions<K, V> rateLimiter(io.github.resilience4j.ratelimiter.RateLimiter limiter) {
        Objects.requireNonNull(limiter, "limiter");
        return new ProcessingOptions<>(ordering, maxInFlight, maxWaiting, retries, firstBackoff, maxBackoff,
                failurePolicy, failureHandler, revokeTimeout, circuitBreaker, limiter, commitAfterRecords);
    }

    /**
     * With automatic commits ({@code enable.auto.commit}, the default with a {@code group.id}), commits the progress
     * also once {@code records} records completed (acknowledged) since the last commit, not only every
     * {@code auto.commit.interval.ms}; 0 commits by time alone. Default {@value #DEFAULT_COMMIT_AFTER_RECORDS}.
     *
     * <p>Why: after a crash the partitions' next owner runs again what completed since the last commit that reached
     * the broker (and what was in flight). By time alone that is one commit interval of work, so the faster the
     * handlers, the more records: at 90,000 records a second and the default 5 s interval, up to 450,000. With this
     * bound, a crash re-does at most about {@code records} plus {@code maxInFlight} records, or one interval of work
     * if that is fewer. Commits started this way are at least {@link #MIN_COMMIT_SPACING} (100 ms) apart and one at
     * a time, so a consumer that completes more than {@code records} per 100 ms commits ten times a second and may
     * re-do more than {@code records}; each commit is one OffsetCommit to the group coordinator carrying the
     * partitions whose offset or progress moved. A consumer below {@code records} per commit interval commits as
     * before. Without automatic commits ({@code enable.auto.commit=false}) nothing is committed this way.
     *
     * @param records completed records per commit, at least 1, or 0 to commit by time alone
     * @throws IllegalArgumentException for a negative count
     */
    public ProcessingOptions<K, V> commitAfterRecords(int records) {
        if (records < 0) {
            throw new IllegalArgumentException("commitAfterRecords must not be negative, was " + records);
        }
        return new ProcessingOptions<>(ordering, maxInFlight, maxWaiting, retries, firstBackoff, maxBackoff,
                failurePolicy, failureHandler, revokeTimeout, circuitBreaker, rateLimiter, records);
    }

    /** Completed records after which progress is committed ahead of the commit interval; 0 for never. */
    public int commitAfterRecords() {
        return commitAfterRecords;
    }

    /** The ordering. */
    public Ordering ordering() {
        return ordering;
    }

    /** Records in flight at most. */
    public int maxInFlight() {
        return maxInFlight;
    }

    /** Records held beyond those in flight at most. */
    public int maxWaiting() {
        return maxWaiting;
    }

    /** Attempts after the first. */
    public int retries() {
        return retries;
    }

    /** Delay before the first retry (jittered). */
    public Duration firstBackoff() {
        return firstBackoff;
    }

    /** Largest delay between attempts. */
    public Duration maxBackoff() {
        return maxBackoff;
    }

    /** What happens after the last failed attempt. */
    public FailurePolicy failurePolicy() {
        return failurePolicy;
    }

    /** The failure handler, or null unless the policy is {@link FailurePolicy#HANDLE}. */
    public BiFunction<ConsumerRecord<K, V>, Throwable, Mono<Void>> failureHandler() {
        return failureHandler;
    }

    /** How long a revocation waits for records in flight. */
    public Duration revokeTimeout() {
        return revokeTimeout;
    }

    /**
     * The circuit breaker of {@link #circuitBreaker(io.github.resilience4j.circuitbreaker.CircuitBreaker)}, typed as {@code Object} so that calling this needs no
     * resilience4j on the class path.
     *
     * @return the {@code CircuitBreaker}, or empty (the default)
     */
    public Optional<Object> circuitBreaker() {
        return Optional.ofNullable(circuitBreaker);
    }

    /**
     * The rate limiter of {@link #rateLimiter(io.github.resilience4j.ratelimiter.RateLimiter)}, typed as {@code Object} like {@link #circuitBreaker()}.
     *
     * @return the {@code RateLimiter}, or empty (the default)
     */
    public Optional<Object> rateLimiter() {
        return Optional.ofNullable(rateLimiter);
    }

    @Override
    public String toString() {
        return "ProcessingOptions[ordering=" + ordering + ", maxInFlight=" + maxInFlight + ", maxWaiting=" + maxWaiting
                + ", retries=" + retries + ", firstBackoff=" + firstBackoff + ", maxBackoff=" + maxBackoff
                + ", onFailure=" + failurePolicy + ", revokeTimeout=" + revokeTimeout
                + ", commitAfterRecords=" + commitAfterRecords
                + (circuitBreaker == null ? "" : ", circuitBreaker=" + circuitBreaker)
                + (rateLimiter == null ? "" : ", rateLimiter=" + rateLimiter) + "]";
    }
}
