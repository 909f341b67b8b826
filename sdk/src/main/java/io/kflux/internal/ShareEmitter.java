package io.kflux.internal;

import io.kflux.AcknowledgeType;
import io.kflux.ConsumerRecord;
import io.kflux.ShareRecord;
import io.kflux.protocol.message.ShareFetchResponse.AcquiredRecords;
import io.kflux.protocol.record.RecordBatch;
import io.kflux.protocol.record.RecordCursor;
import io.kflux.protocol.record.RecordsReader;
import io.kflux.share.AcquiredBatch;
import io.kflux.share.ShareFetcher;
import io.kflux.util.StateTransitions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * Hands acquired records to the share consumer's subscriber as it demands them, decoding and deserializing on its
 * emit worker (never on a Netty loop). It keeps the counts the fetcher acquires by: the demand not served
 * ({@link #requested()}) and the records acquired and not emitted yet ({@link #buffered()}). An acquired offset without a record (compacted, a
 * transaction marker) is acknowledged as a gap; a record the deserialization error handler skips is rejected.
 *
 * <p>Implicit acknowledgement ({@code share.acknowledgement.mode=implicit}): a record counts as accepted once the
 * subscriber requested the next record after it: at once when demand was left when its {@code onNext} returned,
 * else at the subscriber's next {@code request(n)}.
 */
final class ShareEmitter<K, V> {
    private final ConcurrentLinkedQueue<AcquiredBatch> queue = new ConcurrentLinkedQueue<>();
    private final AtomicLong buffered = new AtomicLong();
    private final AtomicInteger wip = new AtomicInteger();
    @SuppressWarnings("rawtypes")
    private static final java.util.concurrent.atomic.AtomicLongFieldUpdater<ShareEmitter> REQUESTED =
            java.util.concurrent.atomic.AtomicLongFieldUpdater.newUpdater(ShareEmitter.class, "requestedView");
    /** Demand not served yet (Long.MAX_VALUE: unbounded). */
    private volatile long requestedView;
    private final Scheduler.Worker worker;
    private final RecordBuilder<K, V> builder;
    private final RecordsReader reader = new RecordsReader();
    private final ShareFetcher fetcher;
    private final boolean explicit;
    private final FluxSink<ShareRecord<K, V>> sink;
    /** Observes each record's delivery; null when tracing is off. */
    private final io.kflux.internal.metrics.RecordTracing tracing;
    /** Implicit mode: emitted, to be accepted at the next request; guarded by itself (with {@link #requested}). */
    private final List<DefaultShareRecord<K, V>> awaitingRequest = new ArrayList<>();
    private final Sinks.Empty<Void> stopped = Sinks.empty();
    private final java.util.concurrent.atomic.AtomicReference<ShareEmitterState> state =
            new java.util.concurrent.atomic.AtomicReference<>(ShareEmitterState.EMITTING);
    // worker-only
    private AcquiredBatch current;
    /** {@link #current}'s share partition, one per batch (not per record). */
    private io.kflux.share.SharePartition currentPartition;
    private RecordCursor cursor;
    private RecordBatch batch;
    /**
     * The offsets of {@link #current} emitted or rejected already, as bits from {@link #handledBase} (its first
     * acquired offset): a bit per offset, not a boxed {@code Long} in a hash set per record.
     */
    private final java.util.BitSet handled = new java.util.BitSet();
    private long handledBase;

    /**
     * {@link #drain} with the consumer's log context set once per drain: its log lines and the subscriber's carry it,
     * and the fetcher's loop tasks the drain runs inline (the hand-over of each burst of acknowledgements) find it set
     * instead of putting and restoring the MDC per burst (a copy of the MDC map each time: 14 % of this thread's CPU
     * in the explicit-accept benchmark's profile).
     */
    private final Runnable drainTask;

    /**
     * @param tracing    observes each record's delivery, or null
     * @param logContext the consumer's client.id and group.id for the MDC
     */
    ShareEmitter(Scheduler.Worker worker, RecordBuilder<K, V> builder, ShareFetcher fetcher, boolean explicit,
                 FluxSink<ShareRecord<K, V>> sink, io.kflux.internal.metrics.RecordTracing tracing,
                 io.kflux.util.LogContext logContext) {
        this.drainTask = logContext.wrap(this::drain);
        this.tracing = tracing;
        this.worker = worker;
        this.builder = builder;
        this.fetcher = fetcher;
        this.explicit = explicit;
        this.sink = sink;
    }

    /** Records the subscriber asked for and was not handed yet (Long.MAX_VALUE: unbounded). Any thread. */
    long requested() {
        return requestedView;
    }

    /** Records acquired and not handed out yet. Any thread. */
    long buffered() {
        return buffered.get();
    }

    /**
     * Whether acquired records wait to be handed out to a subscriber that wants more than them: the drain wakes the
     * fetcher once they are out, and its ShareFetch carries the acknowledgements gathered meanwhile. Any thread.
     */
    boolean handingOut() {
        long b = buffered.get();
        return b > 0 && requestedView > b && state.get() == ShareEmitterState.EMITTING;
    }

    /** Acquired records arrived (on the fetcher's loop). */
    void offer(AcquiredBatch b) {
        if (state.get() != ShareEmitterState.EMITTING) {
            releaseAll(b, false);
            return;
        }
        buffered.addAndGet(b.acquiredCount());
        queue.add(b);
        schedule();
    }

    /** The subscriber's {@code request(n)}. */
    void request(long n) {
        if (explicit) {
            // no record awaits a request to be accepted: no lock per request(n), which flatMap(r -> r.accept(), n)
            // makes once per confirmed acknowledgement
            reactor.core.publisher.Operators.addCap(REQUESTED, this, n);
            schedule();
            fetcher.wake();
            return;
        }
        List<DefaultShareRecord<K, V>> accepted = List.of();
        synchronized (awaitingRequest) {
            reactor.core.publisher.Operators.addCap(REQUESTED, this, n);
            if (!awaitingRequest.isEmpty()) { // always empty in explicit mode: no copy per request(n)
                accepted = new ArrayList<>(awaitingRequest);
                awaitingRequest.clear();
            }
        }
        accepted.forEach(DefaultShareRecord::acceptImplicitly);
        schedule();
        fetcher.wake();
    }


    /**
     * Stops emitting: acquired records not emitted are released, and in implicit mode the emitted ones awaiting a
     * request are accepted (the subscriber is done with them).
     *
     * @return completes once those acknowledgements were handed to the fetcher
     */
    Mono<Void> stop() {
        if (!move(ShareEmitterState.EMITTING, ShareEmitterState.STOPPING)
                && !move(ShareEmitterState.FAILED, ShareEmitterState.STOPPING)) {
            return stopped.asMono(); // stopping already
        }
        worker.schedule(() -> {
            if (current != null) {
                releaseAll(current, true);
                current = null;
            }
            AcquiredBatch b;
            while ((b = queue.poll()) != null) {
                releaseAll(b, false);
            }
            List<DefaultShareRecord<K, V>> accepted;
            synchronized (awaitingRequest) {
                accepted = new ArrayList<>(awaitingRequest);
                awaitingRequest.clear();
            }
            accepted.forEach(DefaultShareRecord::acceptImplicitly);
            move(ShareEmitterState.STOPPING, ShareEmitterState.STOPPED);
            stopped.tryEmitEmpty();
            worker.dispose();
        });
        return stopped.asMono();
    }

    /**
     * Runs {@link #drain} on the worker. A stopped emitter has nothing to emit and its worker is disposed: a
     * {@code request(n)} that comes after {@link #stop} (an acknowledgement's completion on the loop makes
     * {@code flatMap} ask for more) must not throw into its caller, where it cut short the fetcher's handling of a
     * broker answer and so its close (seen on a 4.4 broker: close waited out its whole timeout).
     */
    private void schedule() {
        if (state.get() != ShareEmitterState.EMITTING) {
            return;
        }
        if (wip.getAndIncrement() == 0) {
            try {
                worker.schedule(drainTask);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // stop() disposed the worker between the check above and here: nothing is left to emit
            }
        }
    }

    private void drain() {
        int missed = 1;
        boolean held = fetcher.burstStarted();
        try {
            while (true) {
                // a cancelled subscriber gets nothing more: in implicit mode a record sent into the void would count
                // as accepted
                while (state.get() == ShareEmitterState.EMITTING && !sink.isCancelled() && outstanding() > 0) {
                    DefaultShareRecord<K, V> r = next();
                    if (r == null) {
                        break;
                    }
                    emit(r);
                }
                missed = wip.addAndGet(-missed);
                if (missed == 0) {
                    break;
                }
            }
        } catch (RuntimeException e) {
            move(ShareEmitterState.EMITTING, ShareEmitterState.FAILED);
            sink.error(e); // RecordDeserializationException, corrupt batches: the stream ends with them
        } finally {
            if (held) {
                fetcher.burstEnded();
            }
        }
        fetcher.wake();
    }

    /** Moves {@code from -> to} (a checked transition) if the emitter is in {@code from} still. */
    private boolean move(ShareEmitterState from, ShareEmitterState to) {
        StateTransitions.check(this, from, to);
        return state.compareAndSet(from, to);
    }

    private long outstanding() {
        return requestedView;
    }

    private void emit(DefaultShareRecord<K, V> r) {
        if (requestedView != Long.MAX_VALUE) {
            REQUESTED.decrementAndGet(this);
        }
        buffered.decrementAndGet();
        if (tracing == null) {
            sink.next(r);
        } else {
            tracing.deliver(r.consumerRecord(), () -> sink.next(r));
        }
        if (!explicit) {
            synchronized (awaitingRequest) {
                if (requestedView > 0) {
                    r.acceptImplicitly(); // the subscriber asked for the next one already
                } else {
                    awaitingRequest.add(r);
                }
            }
        }
    }

    /** The next acquired record of the queued batches, null when none is left. */
    private DefaultShareRecord<K, V> next() {
        while (true) {
            if (current == null) {
                current = queue.poll();
                if (current == null) {
                    return null;
                }
                handled.clear();
                handledBase = firstAcquired(current.acquired());
                currentPartition = current.sharePartition();
                cursor = null;
                if (current.records() == null) {
                    finishBatch();
                    continue;
                }
                reader.reset(current.records());
            }
            if (cursor != null && cursor.next()) {
                long offset = cursor.offset();
                short deliveries = deliveryCount(current.acquired(), offset);
                if (deliveries < 0 || isHandled(offset)) {
                    continue; // not this member's (outside the acquired ranges)
                }
                handled.set((int) (offset - handledBase));
                ConsumerRecord<K, V> record = builder.build(current.topicPartition(), cursor,
                        batch.timestampType() == io.kflux.protocol.record.TimestampType.LOG_APPEND_TIME
                                ? io.kflux.TimestampType.LOG_APPEND_TIME : io.kflux.TimestampType.CREATE_TIME, batch.partitionLeaderEpoch());
                if (record == null) {
                    buffered.decrementAndGet();
                    fetcher.acknowledgeQuietly(current.nodeId(), current.topicPartition(), currentPartition, offset,
                            deliveries, AcknowledgeType.REJECT); // skipped by the deserialization error handler: a poison record
                    continue;
                }
                return new DefaultShareRecord<>(record, deliveries, current.nodeId(), currentPartition, fetcher,
                        explicit);
            }
            RecordBatch next = reader.nextBatch();
            if (next == null) {
                finishBatch();
                continue;
            }
            batch = next;
            cursor = next.isControl() ? null : reader.records();
        }
    }

    /** The batch is walked: its acquired offsets without a record are gaps; its buffer goes back. */
    private void finishBatch() {
        AcquiredBatch b = current;
        current = null;
        cursor = null;
        io.kflux.share.SharePartition sp = b.sharePartition();
        for (AcquiredRecords a : b.acquired()) {
            for (long o = a.firstOffset(); o <= a.lastOffset(); o++) {
                if (!isHandled(o)) {
                    buffered.decrementAndGet();
                    fetcher.acknowledgeQuietly(b.nodeId(), b.topicPartition(), sp, o, (short) -1, null);
                }
            }
        }
        if (b.records() != null) {
            b.records().release();
        }
    }

    /** Whether offset {@code o} (an acquired offset of {@link #current}) was emitted or rejected already. */
    private boolean isHandled(long o) {
        return handled.get((int) (o - handledBase));
    }

    /** The lowest acquired offset of a batch (the broker lists the ranges in offset order, but nothing relies on it). */
    private static long firstAcquired(List<AcquiredRecords> acquired) {
        long first = Long.MAX_VALUE;
        for (AcquiredRecords a : acquired) {
            first = Math.min(first, a.firstOffset());
        }
        return first;
    }

    /** Hands back every acquired offset of {@code b} ({@code skipHandled}: {@link #current}) not handled yet. */
    private void releaseAll(AcquiredBatch b, boolean skipHandled) {
        io.kflux.share.SharePartition sp = b.sharePartition();
        for (AcquiredRecords a : b.acquired()) {
            for (long o = a.firstOffset(); o <= a.lastOffset(); o++) {
                if (!skipHandled || !isHandled(o)) {
                    buffered.decrementAndGet();
                    fetcher.acknowledgeQuietly(b.nodeId(), b.topicPartition(), sp, o, (short) -1,
                            AcknowledgeType.RELEASE);
                }
            }
        }
        if (b.records() != null) {
            b.records().release();
        }
    }

    private static short deliveryCount(List<AcquiredRecords> acquired, long offset) {
        for (AcquiredRecords a : acquired) {
            if (offset >= a.firstOffset() && offset <= a.lastOffset()) {
                return a.deliveryCount();
            }
        }
        return -1;
    }
}
