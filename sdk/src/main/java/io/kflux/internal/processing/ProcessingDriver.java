package io.kflux.internal.processing;

import io.kflux.network.IoLoops;
import io.kflux.ConsumerRecord;
import io.kflux.ProcessedRecord;
import io.kflux.ProcessedRecord.Outcome;
import io.kflux.ProcessingOptions;
import io.kflux.TopicPartition;
import io.kflux.internal.metrics.ProcessingMeters;
import io.kflux.internal.metrics.RecordTracing;
import io.kflux.util.LogContext;
import io.kflux.util.StateTransitions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.publisher.Sinks;
import reactor.util.retry.Retry;

/**
 * {@code process()}: subscribes to the consumer's records like a subscriber of {@code receive()} (but with the
 * partitions' fetched results in turns of {@link #resultSlice()} records, so the records held span several
 * partitions), runs the handler
 * on the records the {@link Dispatcher} lets start, acknowledges each record when it is done, and emits a
 * {@link ProcessedRecord} for it. Also the consumer's {@link RevocationHook}.
 *
 * <p>Bounded memory: records are requested from the consumer only while the records held (received, and whose
 * result the subscriber has not taken yet) plus the records requested and not received stay within
 * {@code maxInFlight + maxWaiting}; each record leaving (its result taken, or dropped) requests one more.
 *
 * <p>Threads: the handler is called on the thread that lets its record start (the consumer's emit thread, or the
 * thread that completed the record before it in its lane); it must not block. The bookkeeping runs under this
 * object's lock; handlers, acknowledgements' commits and the subscriber are called outside it, the latter two
 * through queue-drain loops so a handler completing synchronously does not recurse.
 *
 * <p><b>Why one class past 500 lines.</b> It is one reactive operator: the consumer's subscriber, the application's
 * subscription and the revocation hook share one lock and one set of counters (held, outstanding, demand), and
 * splitting them would spread that invariant over classes. The decisions are elsewhere ({@link Dispatcher}).
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class ProcessingDriver<K, V> implements CoreSubscriber<ConsumerRecord<K, V>>, Subscription,
        RevocationHook {
    private static final Logger log = LoggerFactory.getLogger(ProcessingDriver.class);

    private final CoreSubscriber<? super ProcessedRecord<K, V>> actual;
    private final ProcessingOptions<K, V> options;
    private final Function<ConsumerRecord<K, V>, ? extends Publisher<?>> handler;
    /** Records an earlier owner of their partition completed (from the commit metadata): not run again. */
    private final BiPredicate<TopicPartition, Long> completedEarlier;
    /** Observes each record's handling, or null (tracing off). */
    private final RecordTracing tracing;
    private final LogContext logContext;
    private final ProcessingMeters meters;
    private final Dispatcher<Job> dispatcher;
    /** The circuit breaker and rate limiter around the handler, or null (neither configured). */
    private final HandlerGuard guard;
    /** Retry backoffs, the guard's waits and the revocation's bound: kflux's timers, virtual time in tests. */
    private final Scheduler timer;
    /**
     * Where a handler call moves when it would start on a kflux I/O loop (a retry or a guard's wait ends on the
     * timer's thread, which is one): the consumer's emit scheduler, so no user code holds up the loop's connections.
     */
    private final Scheduler handlerScheduler;
    private final int bound;
    /**
     * The least the driver asks the consumer for once records are held, a quarter of the bound: a request per record
     * that left would hand a task to the consumer's emit thread (and wake it) per record; asking in quarters lets
     * it emit a run of records per wake-up, while what is held and requested still never exceeds the bound.
     */
    private final int minRequest;
    /** Started and not ended (their handler or failure handler may still signal). */
    private final Set<Job> running = new HashSet<>();
    private final ArrayDeque<ProcessedRecord<K, V>> results = new ArrayDeque<>();
    private final AtomicLong requested = new AtomicLong();
    private final AtomicInteger drainWip = new AtomicInteger();
    private final AtomicInteger dispatchWip = new AtomicInteger();
    private Subscription upstream;
    private DriverState state = DriverState.ACTIVE;
    private Throwable error;
    /** Received and neither reported to the subscriber nor given up. */
    private int held;
    /** Requested from the consumer and not received. */
    private long outstanding;
    private volatile int inFlightNow;
    private volatile int waitingNow;

    /** One record in process(). Its fields other than state are written before it starts or by its own attempts. */
    private final class Job {
        final ConsumerRecord<K, V> record;
        JobState state = JobState.HELD;
        long startNanos;
        /** Written by each attempt, one at a time (retries are sequential). */
        volatile int attempts;
        volatile Disposable running;
        /**
         * Set by the first revocation or close() waiting for this job (later ones share it); completed when the job
         * ends.
         */
        Sinks.Empty<Void> ended;

        Job(ConsumerRecord<K, V> record) {
            this.record = record;
        }

        void to(JobState next) {
            state = StateTransitions.check(this, state, next);
        }

        @Override
        public String toString() {
            return record.topicPartition() + "@" + record.offset();
        }
    }

    /**
     * @param meters built by the caller with {@link #inFlightGauge()} and {@link #waitingGauge()} of no driver yet:
     *               see {@link #create}
     */
    private ProcessingDriver(CoreSubscriber<? super ProcessedRecord<K, V>> actual, ProcessingOptions<K, V> options,
                             Function<ConsumerRecord<K, V>, ? extends Publisher<?>> handler,
                             BiPredicate<TopicPartition, Long> completedEarlier, RecordTracing tracing,
                             LogContext logContext, Function<ProcessingDriver<K, V>, ProcessingMeters> meters,
                             Scheduler timer, Scheduler handlerScheduler) {
        this.actual = actual;
        this.timer = timer;
        this.handlerScheduler = handlerScheduler;
        this.options = options;
        this.handler = handler;
        this.completedEarlier = completedEarlier;
        this.tracing = tracing;
        this.logContext = logContext;
        this.dispatcher = new Dispatcher<>(options.ordering(), options.maxInFlight(), j -> j.record.topicPartition(),
                j -> j.record.key());
        // HandlerGuard (and with it resilience4j) is loaded only when configured: kflux runs without resilience4j
        this.guard = options.circuitBreaker().isPresent() || options.rateLimiter().isPresent()
                ? HandlerGuard.of(options, timer) : null;
        this.bound = Math.addExact(options.maxInFlight(), options.maxWaiting());
        this.minRequest = Math.max(1, bound / 4);
        this.meters = meters.apply(this);
    }

    /**
     * A driver for one subscription.
     *
     * @param completedEarlier whether a record (partition, offset) was completed by an earlier owner of its
     *                         partition, as the commit metadata says: it is acknowledged already and not run again
     * @param tracing          observes each record's handling (current while the handler runs), or null
     * @param meterRegistry    a Micrometer {@code MeterRegistry} or null
     * @param handlerScheduler where a handler call moves when it would start on a kflux I/O loop (after a retry's
     *                         backoff or a guard's wait): the consumer's emit scheduler
     */
    public static <K, V> ProcessingDriver<K, V> create(CoreSubscriber<? super ProcessedRecord<K, V>> actual,
                                                       ProcessingOptions<K, V> options,
                                                       Function<ConsumerRecord<K, V>, ? extends Publisher<?>> handler,
                                                       BiPredicate<TopicPartition, Long> completedEarlier,
                                                       RecordTracing tracing, Object meterRegistry, String clientId,
                                                       LogContext logContext, Scheduler handlerScheduler) {
        return create(actual, options, handler, completedEarlier, tracing, meterRegistry, clientId, logContext,
                IoLoops.timers(), handlerScheduler);
    }

    /**
     * As {@link #create}, with the timer of retry backoffs, breaker polls and rate-limit waits (tests: virtual time,
     * so no handler call starts on an I/O loop and none moves).
     */
    static <K, V> ProcessingDriver<K, V> createWithTimer(CoreSubscriber<? super ProcessedRecord<K, V>> actual,
                                                ProcessingOptions<K, V> options,
                                                Function<ConsumerRecord<K, V>, ? extends Publisher<?>> handler,
                                                BiPredicate<TopicPartition, Long> completedEarlier,
                                                RecordTracing tracing, Object meterRegistry, String clientId,
                                                LogContext logContext, Scheduler timer) {
        return create(actual, options, handler, completedEarlier, tracing, meterRegistry, clientId, logContext, timer,
                Schedulers.immediate());
    }

    private static <K, V> ProcessingDriver<K, V> create(CoreSubscriber<? super ProcessedRecord<K, V>> actual,
                                                        ProcessingOptions<K, V> options,
                                                        Function<ConsumerRecord<K, V>, ? extends Publisher<?>> handler,
                                                        BiPredicate<TopicPartition, Long> completedEarlier,
                                                        RecordTracing tracing, Object meterRegistry, String clientId,
                                                        LogContext logContext, Scheduler timer,
                                                        Scheduler handlerScheduler) {
        return new ProcessingDriver<>(Objects.requireNonNull(actual, "actual"), Objects.requireNonNull(options,
                "options"), Objects.requireNonNull(handler, "handler"),
                Objects.requireNonNull(completedEarlier, "completedEarlier"), tracing, logContext,
                d -> ProcessingMeters.create(meterRegistry, clientId, d.inFlightGauge(), d.waitingGauge(),
                        d.mostWaitingPerKeyGauge()), timer,
                Objects.requireNonNull(handlerScheduler, "handlerScheduler"));
    }

    /**
     * How many records (offsets) of one partition's fetched result the consumer hands over before another partition's
     * waiting result takes a turn: a sixteenth of the bound, so the records held come from up to 16 turns, and a
     * partition with fewer keys than {@code maxInFlight} does not leave slots idle while other partitions' records
     * wait as fetched bytes (issue #27: one whole 1 MiB result of one partition filled the bound).
     */
    public int resultSlice() {
        return Math.max(1, bound / 16);
    }

    private IntSupplier inFlightGauge() {
        return () -> inFlightNow;
    }

    private IntSupplier waitingGauge() {
        return () -> waitingNow;
    }

    /** Read when the registry reads it (O(busy keys)), under the lock that guards the dispatcher. */
    private IntSupplier mostWaitingPerKeyGauge() {
        return () -> {
            synchronized (this) {
                return dispatcher.mostQueuedInOneLane();
            }
        };
    }

    @Override
    public reactor.util.context.Context currentContext() {
        return actual.currentContext();
    }

    // ------------------------------------------------------------------------------------------- from the consumer

    @Override
    public void onSubscribe(Subscription s) {
        if (Operators.validate(upstream, s)) {
            upstream = s;
            actual.onSubscribe(this);
            replenish();
        }
    }

    @Override
    public void onNext(ConsumerRecord<K, V> record) {
        if (completedEarlier.test(record.topicPartition(), record.offset())) {
            synchronized (this) {
                outstanding--;
            }
            // an earlier owner completed it (the commit metadata said so); acknowledged already, harmless again
            record.acknowledge();
            replenish();
            return;
        }
        synchronized (this) {
            outstanding--;
            if (state != DriverState.ACTIVE) {
                return; // the stream is ending: the record is not started, its next reader gets it
            }
            held++;
            dispatcher.offer(new Job(record));
            gauges();
        }
        dispatch();
    }

    @Override
    public void onError(Throwable t) {
        List<Job> cancelled;
        synchronized (this) {
            if (!state.running()) {
                Operators.onErrorDropped(t, actual.currentContext());
                return;
            }
            cancelled = endAll(t);
        }
        cancelled.forEach(this::dispose);
        drain();
    }

    @Override
    public void onComplete() {
        synchronized (this) {
            if (state != DriverState.ACTIVE && state != DriverState.CLOSING) {
                return;
            }
            state = StateTransitions.check(state, DriverState.DRAINING);
            // The consumer stopped (close()): acknowledgements from now on are not committed, so records not
            // started are left to the next reader instead of being processed for nothing.
            forget(dispatcher.drop(tp -> true), JobState.DROPPED);
        }
        drain();
    }

    // ------------------------------------------------------------------------------------------- from the subscriber

    @Override
    public void request(long n) {
        if (Operators.validate(n)) {
            requested.getAndUpdate(r -> Operators.addCap(r, n));
            drain();
        }
    }

    @Override
    public void cancel() {
        List<Job> cancelled;
        synchronized (this) {
            if (state == DriverState.CANCELLED || state == DriverState.TERMINATED) {
                return;
            }
            state = StateTransitions.check(state, DriverState.CANCELLED);
            cancelled = cancelJobs();
            results.clear();
        }
        upstream.cancel();
        cancelled.forEach(this::dispose);
        meters.close();
    }

    // ------------------------------------------------------------------------------------------- revocation

    @Override
    public Mono<Void> revoked(Set<TopicPartition> partitions) {
        return finishInFlight(partitions::contains, false);
    }

    @Override
    public Mono<Void> closing() {
        return finishInFlight(tp -> true, true);
    }

    /**
     * Drops the held records of the partitions {@code which} accepts and waits for their records in flight, at
     * most the revoke timeout; with {@code closing}, nothing is taken or started any more.
     */
    private Mono<Void> finishInFlight(java.util.function.Predicate<TopicPartition> which, boolean closing) {
        List<Mono<Void>> waits = new ArrayList<>();
        List<Job> waited = new ArrayList<>();
        synchronized (this) {
            if (closing) {
                if (state != DriverState.ACTIVE) {
                    return Mono.empty();
                }
                state = StateTransitions.check(state, DriverState.CLOSING);
            }
            forget(dispatcher.drop(which), JobState.DROPPED);
            for (Job job : running) {
                if (which.test(job.record.topicPartition())) {
                    // one signal per job, shared: close() during a revocation waits for the same jobs, and a second
                    // sink replacing the first left the revocation waiting out its whole revoke timeout
                    if (job.ended == null) {
                        job.ended = Sinks.empty();
                    }
                    waits.add(job.ended.asMono());
                    waited.add(job);
                }
            }
        }
        replenish();
        if (waits.isEmpty()) {
            return Mono.empty();
        }
        Duration timeout = options.revokeTimeout();
        return Mono.when(waits).timeout(timeout, timer).onErrorResume(TimeoutException.class, e -> {
            abandon(waited, timeout);
            return Mono.empty();
        });
    }

    @Override
    public int commitAfterRecords() {
        return options.commitAfterRecords();
    }

    @Override
    public void lost(Set<TopicPartition> partitions) {
        synchronized (this) {
            forget(dispatcher.drop(partitions::contains), JobState.DROPPED);
        }
        replenish();
    }

    /** The revocation timed out: jobs still running are cancelled and never acknowledged. */
    private void abandon(List<Job> jobs, Duration timeout) {
        List<Job> abandoned = new ArrayList<>();
        synchronized (this) {
            for (Job job : jobs) {
                if (job.state.active()) {
                    job.to(JobState.ABANDONED);
                    running.remove(job);
                    dispatcher.complete(job);
                    held--;
                    abandoned.add(job);
                }
            }
            gauges();
        }
        if (!abandoned.isEmpty()) {
            logContext.run(() -> log.warn("revocation or close: {} record(s) still in process() after the revoke timeout of {}"
                    + " are abandoned, not acknowledged (their next owner processes them again): {}",
                    abandoned.size(), timeout, abandoned));
        }
        abandoned.forEach(this::dispose);
        replenish();
        dispatch();
        drain();
    }

    // ------------------------------------------------------------------------------------------- running records

    /** Starts what the dispatcher lets start; one thread at a time, so a synchronous handler does not recurse. */
    private void dispatch() {
        if (dispatchWip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            Job next;
            while ((next = nextToStart()) != null) {
                start(next);
            }
            missed = dispatchWip.addAndGet(-missed);
        } while (missed != 0);
    }

    private synchronized Job nextToStart() {
        if (!state.running()) {
            return null;
        }
        Job next = dispatcher.poll();
        if (next != null) {
            next.to(JobState.RUNNING);
            next.startNanos = System.nanoTime();
            running.add(next);
            gauges();
        }
        return next;
    }

    private void start(Job job) {
        RecordTracing.Processing observed = tracing == null ? null : tracing.processing(job.record);
        Mono<Void> call = Mono.defer(() -> {
            if (++job.attempts > 1) {
                meters.retried();
            }
            Publisher<?> p = observed == null ? handler.apply(job.record)
                    : observed.inScope(() -> handler.apply(job.record));
            return Flux.from(Objects.requireNonNull(p, "the handler returned null for " + job)).then();
        });
        Mono<Void> attempt = Mono.defer(() -> IoLoops.inLoop() ? call.subscribeOn(handlerScheduler) : call);
        if (guard != null) {
            attempt = guard.around(attempt);
        }
        if (options.retries() > 0) {
            attempt = attempt.retryWhen(Retry.backoff(options.retries(), options.firstBackoff())
                    .maxBackoff(options.maxBackoff())
                    .scheduler(timer)
                    .onRetryExhaustedThrow((spec, signal) -> signal.failure()));
        }
        if (observed != null) {
            attempt = observed.around(attempt);
        }
        job.running = attempt.subscribe(null, e -> failed(job, e), () -> finish(job, Outcome.PROCESSED));
    }

    private void failed(Job job, Throwable e) {
        synchronized (this) {
            if (job.state != JobState.RUNNING) {
                return;
            }
            if (options.failurePolicy() == ProcessingOptions.FailurePolicy.HANDLE) {
                job.to(JobState.HANDLING_FAILURE);
            }
        }
        switch (options.failurePolicy()) {
            case HANDLE -> job.running = Mono.defer(() -> Objects.requireNonNull(
                            options.failureHandler().apply(job.record, e), "the failure handler returned null"))
                    .subscribe(null, fe -> {
                        fe.addSuppressed(e);
                        endStream(job, fe);
                    }, () -> finish(job, Outcome.FAILED_HANDLED));
            case SKIP -> {
                logContext.run(() -> log.warn("process(): skipping {}-{} offset {} after {} attempt(s): {}",
                        job.record.topic(), job.record.partition(), job.record.offset(), job.attempts, e.toString()));
                finish(job, Outcome.SKIPPED);
            }
            case END_STREAM -> endStream(job, e);
        }
    }

    /** The job is done: acknowledged, reported, its lane freed. */
    private void finish(Job job, Outcome outcome) {
        Sinks.Empty<Void> ended;
        synchronized (this) {
            if (!job.state.active()) {
                return; // abandoned or cancelled meanwhile: not acknowledged
            }
            job.to(JobState.DONE);
            running.remove(job);
            dispatcher.complete(job);
            // under the lock, so an abandonment cannot slip between the state check and the acknowledgement
            job.record.acknowledge();
            long nanos = System.nanoTime() - job.startNanos;
            results.add(new ProcessedRecord<>(job.record, Math.max(1, job.attempts), outcome, Duration.ofNanos(nanos)));
            meters.finished(nanos);
            if (outcome == Outcome.FAILED_HANDLED) {
                meters.failedHandled();
            } else if (outcome == Outcome.SKIPPED) {
                meters.skipped();
            }
            gauges();
            ended = job.ended;
        }
        if (ended != null) {
            ended.tryEmitEmpty();
        }
        dispatch();
        drain();
    }

    /** The job failed for good: the stream ends with {@code e}; the job and every other one are not acknowledged. */
    private void endStream(Job job, Throwable e) {
        List<Job> cancelled;
        synchronized (this) {
            if (!job.state.active()) {
                return;
            }
            job.to(JobState.FAILED);
            running.remove(job);
            if (!state.running()) {
                return;
            }
            cancelled = endAll(e);
        }
        if (job.ended != null) {
            job.ended.tryEmitEmpty();
        }
        upstream.cancel();
        cancelled.forEach(this::dispose);
        drain();
    }

    /** Under the lock: the stream fails with {@code e}; every job is cancelled. */
    private List<Job> endAll(Throwable e) {
        state = StateTransitions.check(state, DriverState.FAILING);
        error = e;
        return cancelJobs();
    }

    /** Under the lock: every job held or running is cancelled; returns the running ones, to dispose. */
    private List<Job> cancelJobs() {
        forget(dispatcher.drop(tp -> true), JobState.CANCELLED);
        List<Job> cancelled = new ArrayList<>(running);
        cancelled.forEach(j -> j.to(JobState.CANCELLED));
        running.clear();
        gauges();
        return cancelled;
    }

    private void dispose(Job job) {
        Disposable d = job.running;
        if (d != null) {
            d.dispose();
        }
        if (job.ended != null) {
            job.ended.tryEmitEmpty();
        }
    }

    /** Under the lock: held records given up (dropped or cancelled before they started). */
    private void forget(List<Job> jobs, JobState to) {
        jobs.forEach(j -> j.to(to));
        held -= jobs.size();
        gauges();
    }

    private void gauges() {
        inFlightNow = dispatcher.inFlight();
        waitingNow = dispatcher.waiting();
    }

    // ------------------------------------------------------------------------------------------- demand and results

    /**
     * Requests from the consumer what the bound allows, once that is at least {@link #minRequest} records (with
     * nothing held or requested the room is the whole bound, so the stream never stalls for want of a request).
     */
    private void replenish() {
        long n;
        synchronized (this) {
            if (state != DriverState.ACTIVE) {
                return;
            }
            n = bound - held - outstanding;
            if (n < minRequest) {
                return;
            }
            outstanding += n;
        }
        upstream.request(n);
    }

    /** Hands results to the subscriber as it asks for them, then the end; one thread at a time. */
    private void drain() {
        if (drainWip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            long wanted = requested.get();
            long emitted = 0;
            while (true) {
                ProcessedRecord<K, V> next;
                Throwable failure = null;
                boolean complete = false;
                synchronized (this) {
                    if (state == DriverState.FAILING) {
                        state = StateTransitions.check(state, DriverState.TERMINATED);
                        results.clear();
                        failure = error;
                        next = null;
                    } else if (state == DriverState.CANCELLED || state == DriverState.TERMINATED) {
                        results.clear();
                        next = null;
                    } else if (emitted < wanted && !results.isEmpty()) {
                        next = results.poll();
                        held--;
                    } else {
                        next = null;
                        if (state == DriverState.DRAINING && held == 0) {
                            state = StateTransitions.check(state, DriverState.TERMINATED);
                            complete = true;
                        }
                    }
                }
                if (failure != null) {
                    meters.close();
                    actual.onError(failure);
                    break;
                }
                if (complete) {
                    meters.close();
                    actual.onComplete();
                    break;
                }
                if (next == null) {
                    break;
                }
                actual.onNext(next);
                emitted++;
            }
            if (emitted > 0) {
                long done = emitted;
                requested.getAndUpdate(r -> r == Long.MAX_VALUE ? r : r - done);
                replenish();
            }
            missed = drainWip.addAndGet(-missed);
        } while (missed != 0);
    }
}
