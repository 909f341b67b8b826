package io.kflux.internal;

import io.kflux.internal.metrics.RecordTracing;
import io.kflux.util.ClientMetrics;
import io.kflux.ConsumerRecord;
import io.kflux.DeserializationErrorHandler;
import io.kflux.RecordBatch;
import io.kflux.Deserializer;
import io.kflux.TopicPartition;
import io.kflux.fetch.CompletedFetch;
import io.kflux.fetch.PartitionState;
import io.kflux.protocol.record.RecordCursor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;

/**
 * Hands buffered fetch data to the subscriber, one record per unit of demand, or under {@code receiveBatches()} one
 * {@link RecordBatch} per unit: the records one fetched result of a partition holds, up to {@code max.poll.records},
 * built in one drain loop and handed over in one {@code onNext} (see {@link Downstream}). It decodes and
 * deserializes on its own worker (never on a Netty thread, so a slow subscriber cannot stall
 * I/O or heartbeats) and advances each partition's position only as records are emitted.
 * A finished {@link CompletedFetch} is released and handed back through {@link Returns}, which
 * lets the fetcher send the next Fetch for that partition.
 *
 * <p>What it holds is demand and draining: downstream demand, hold-back, pause/resume (parked results) and the order
 * in which results are emitted. The walk through a result's batches (what is passed over) is {@link BatchWalk}'s, the
 * building of each record (headers, deserialization, deserializer failures) {@link RecordBuilder}'s.
 *
 * <p><b>Why one class past 500 lines.</b> It is one Reactive Streams operator: demand, cancellation, the drain loop
 * and the end of the stream share one set of fields read on every record, under one serialization rule (only the
 * drain loop on the worker touches the queue's head and the positions). The parts that do not need those fields
 * (the batch walk, record building, the hand-over downstream) are already out of it; splitting the drain loop from
 * its demand accounting would put the hot loop's state behind calls or accessors on the path of every record.
 */
final class RecordEmitter<K, V> implements Subscription {
    /**
     * Records one task on the worker emits before it makes way for the other subscriptions pinned to the same emit
     * thread (the default emit threads are shared, {@link EmitScheduler}): without it, a subscription whose results
     * kept arriving faster than it emitted them held its thread for as long as that lasted. Large enough that the
     * re-scheduling costs nothing measurable per record.
     */
    static final int RECORDS_PER_TURN = 1024;

    /** Told, on the emitter's worker, where tracking of acknowledgements starts and which offsets hold nothing to emit. */
    interface Progress {
        Progress NONE = new Progress() {
            @Override public AckHandle positioned(TopicPartition tp, long position, int epoch) {
                return null;
            }

            @Override public void skipped(TopicPartition tp, long from, long to) {
            }

            @Override public void leaderEpoch(TopicPartition tp, long offset, int epoch) {
            }
        };

        /**
         * Emission of {@code tp} (re)starts at {@code position} (first data after an assignment, seek or reset);
         * {@code epoch} is the leader epoch of the record before it, -1 unknown.
         *
         * @return the handle the records emitted from there carry (their assignment's), or null for the emitter's own
         */
        AckHandle positioned(TopicPartition tp, long position, int epoch);

        /** From {@code offset} on, emitted or passed-over batches of {@code tp} carry leader epoch {@code epoch}. */
        void leaderEpoch(TopicPartition tp, long offset, int epoch);

        /** Offsets {@code [from, to)} of {@code tp} were passed over: control markers, compaction gaps. */
        void skipped(TopicPartition tp, long from, long to);
    }

    /** Where finished fetch results go back to (the fetcher, on its loop). */
    @FunctionalInterface
    interface Returns {
        /** Emitted, stale, or dropped when the subscription ended. */
        void consumed(CompletedFetch cf);

        /**
         * Refused without emitting anything: it was fetched from an offset past the partition's position, so the
         * records in between were never in hand. The fetcher must fetch again from the position.
         */
        default void outOfOrder(CompletedFetch cf) {
            consumed(cf);
        }
    }

    /** The per-record subscriber; null under receiveBatches(). */
    private final CoreSubscriber<? super ConsumerRecord<K, V>> actual;
    /** The batch subscriber under receiveBatches(), else null. */
    private final CoreSubscriber<? super RecordBatch<K, V>> batches;
    /** Whichever of the two is set: told of the end. */
    private final CoreSubscriber<?> downstream;
    /** At most this many records per batch ({@code max.poll.records}). */
    private final int maxBatch;
    private final RecordBuilder<K, V> builder;
    private final Returns returns;
    private final Runnable onTerminate;
    private final Scheduler.Worker worker;
    private final Queue<CompletedFetch> queue = new ConcurrentLinkedQueue<>();
    @SuppressWarnings("rawtypes")
    private static final AtomicLongFieldUpdater<RecordEmitter> REQUESTED =
            AtomicLongFieldUpdater.newUpdater(RecordEmitter.class, "requested");
    private volatile long requested;
    private final AtomicInteger wip = new AtomicInteger();
    private final boolean checkCrcs;
    /** The walk through {@link #current}; swapped with a result's own when results take turns. */
    private BatchWalk walk;
    /** process(): partitions take turns ({@link ResultRotation}); null for every other call. */
    private final ResultRotation rotation;
    /** Walks not in use, for results taking turns (each such result keeps its own walk while it waits). */
    private final java.util.ArrayDeque<BatchWalk> spareWalks = new java.util.ArrayDeque<>();
    /** The position of {@link #current}'s partition when its turn began (rotation only). */
    private long turnStart;
    private final List<CompletedFetch> parked = new ArrayList<>();
    /**
     * Parked results of resumed partitions, emitted before anything in {@link #queue}: a Fetch sent on resume may
     * have queued a newer result of the same partition already, and emitting that one first would jump the
     * position past the parked records (passed over as a gap: never emitted, yet committed).
     */
    private final java.util.ArrayDeque<CompletedFetch> resumed = new java.util.ArrayDeque<>();
    private final Runnable drainLoop;
    private final Progress progress;
    /** Per assigned partition: the position epoch emission was last positioned at, and its records' handle. */
    private final java.util.Map<PartitionState, Positioned> trackedEpochs = new java.util.IdentityHashMap<>();
    /** The emitter's own handle: for records whose positioning gave none ({@link Progress#NONE}). */
    private final AckHandle ackHandle;

    private record Positioned(int epoch, AckHandle acks) {
    }

    private volatile boolean cancelled;
    private volatile Throwable error;
    private volatile boolean completeRequested;
    private volatile boolean unparkRequested;
    /** {@link #holdBack}: set by the group member's loop, read by the drain loop. */
    private volatile boolean heldBack;
    private final Queue<Runnable> barriers = new ConcurrentLinkedQueue<>();
    /** receivePartitioned(): marker records ({@link PartitionMarkers}), emitted before the fetched records. */
    private final Queue<ConsumerRecord<K, V>> markers = new ConcurrentLinkedQueue<>();
    /** System.nanoTime() when emitted records used up the demand (0 while demand is left): for max.poll.interval.ms. */
    private volatile long demandExhaustedSince;
    private boolean terminated;

    private CompletedFetch current;
    /** Set before the subscriber gets its subscription; read by the drain loop only. */
    private ClientMetrics metrics = ClientMetrics.NONE;
    /** Records (and their bytes) of {@link #countedTopic} emitted since the last report: reported once per drain. */
    private int countedRecords;
    private long countedBytes;
    private String countedTopic;

    RecordEmitter(Downstream<K, V> downstream, Deserializer<K> keyDeserializer,
                  Deserializer<V> valueDeserializer, DeserializationErrorHandler deserializationErrorHandler,
                  AckHandle ackHandle, boolean checkCrcs, Returns returns, Runnable onTerminate,
                  Scheduler.Worker worker, Progress progress, io.kflux.util.LogContext logContext) {
        this.drainLoop = logContext.wrap(this::drainLoop); // the handler's and the subscriber's log lines too
        this.progress = progress;
        this.ackHandle = ackHandle;
        this.actual = downstream.records();
        this.batches = downstream.batches();
        this.downstream = downstream.subscriber();
        this.maxBatch = downstream.maxBatch();
        this.builder = new RecordBuilder<>(keyDeserializer, valueDeserializer, deserializationErrorHandler, ackHandle);
        this.returns = returns;
        this.onTerminate = onTerminate;
        this.worker = worker;
        this.checkCrcs = checkCrcs;
        this.walk = new BatchWalk(checkCrcs, progress);
        this.rotation = downstream.slice() > 0 ? new ResultRotation(downstream.slice()) : null;
    }

    /** Observes each record's delivery, or null (tracing off: no cost but a null check). Set like {@link #metrics}. */
    private RecordTracing tracing;

    /** Turns tracing on; call before the subscriber gets its subscription. */
    void tracing(RecordTracing recordTracing) {
        this.tracing = recordTracing;
    }

    /** Where emitted records are counted; call before the subscriber gets its subscription. */
    void metrics(ClientMetrics clientMetrics) {
        this.metrics = clientMetrics;
    }

    /** Reports the records counted since the last report (per drain, not per record: the hot path stays cheap). */
    private void reportConsumed() {
        if (countedRecords != 0) {
            metrics.recordsConsumed(countedTopic, countedRecords, countedBytes);
            countedRecords = 0;
            countedBytes = 0L;
        }
    }

    /** Queues a fetch result; called by the event loop. */
    void offer(CompletedFetch fetch) {
        queue.add(fetch);
        drain();
    }

    /** Ends the flux with {@code t}; buffered records are not emitted and positions stay where they are. */
    void fail(Throwable t) {
        if (error == null) {
            error = t;
        }
        drain();
    }

    /** Completes the flux once everything already queued is dropped (close). */
    void complete() {
        completeRequested = true;
        drain();
    }

    /**
     * Holds back every fetched record (true) until told otherwise (false): the group member's session is in doubt
     * (issue #15). Queued results stay queued; markers still go out.
     */
    void holdBack(boolean hold) {
        heldBack = hold;
        if (!hold) {
            drain();
        }
    }

    /** Paused partitions' data is parked, not dropped: resume re-queues it. */
    void unpark() {
        unparkRequested = true;
        drain();
    }

    /**
     * Queues a {@link PartitionMarkers} record (receivePartitioned()). It is emitted, with demand, before any
     * fetched record: an assigned marker is queued before its partition's first fetch, an ended marker after its
     * partition stopped being fetched (its unemitted data is then stale), so either is in order with the
     * partition's records.
     */
    void mark(ConsumerRecord<K, V> marker) {
        markers.add(marker);
        drain();
    }

    /**
     * Completes once the emitter is past any record it is emitting now (a record in the
     * subscriber's {@code onNext} counts as emitted only when that call returns): after it, the
     * positions of partitions that stopped being fetched no longer move.
     */
    reactor.core.publisher.Mono<Void> barrier() {
        return reactor.core.publisher.Mono.create(sink -> {
            barriers.add(sink::success);
            drain();
        });
    }

    /** Downstream demand not yet served (Long.MAX_VALUE: unbounded); a gauge, any thread. */
    long demand() {
        return requested;
    }

    /** Nanos since emitted records used up downstream demand, or 0 when demand is left. */
    long demandExhaustedNanos() {
        long since = demandExhaustedSince;
        // A request racing with the drain may leave a stale timestamp: demand left means no stall.
        return since == 0L || requested != 0L ? 0L : System.nanoTime() - since;
    }

    @Override
    public void request(long n) {
        if (Operators.validate(n)) {
            demandExhaustedSince = 0L;
            Operators.addCap(REQUESTED, this, n);
            drain();
        }
    }

    /** True once the subscriber cancelled (set at once, before the emitter's worker reacts). */
    boolean isCancelled() {
        return cancelled;
    }

    @Override
    public void cancel() {
        if (!cancelled) {
            cancelled = true;
            drain();
        }
    }

    private void drain() {
        if (wip.getAndIncrement() == 0) {
            try {
                worker.schedule(drainLoop);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // This caller owns the drain (wip), so it drains here; with the error set first, that emits nothing,
                // it only ends the flux and releases.
                refused(e);
                drainLoop.run();
            }
        }
    }

    /**
     * No thread will drain: the session stopped and disposed its worker (then only releasing is left), or the emit
     * scheduler was disposed under a running subscription, which must not leave the flux without an end.
     */
    private void refused(java.util.concurrent.RejectedExecutionException e) {
        if (!terminated && error == null) {
            error = new IllegalStateException("the emit scheduler refused the emitter's task (was it disposed? see "
                    + "ConsumerOptions.withEmitScheduler)", e);
        }
    }

    private void drainLoop() {
        int missed = 1;
        for (;;) {
            boolean turnUsedUp = false;
            if (terminated) {
                clear();
            } else {
                turnUsedUp = emitAvailable();
            }
            for (Runnable barrier; (barrier = barriers.poll()) != null; ) {
                barrier.run();
            }
            if (turnUsedUp) {
                // Give the thread to the other subscriptions pinned to it (emit threads are shared), then go on: still
                // owning the drain (wip not given back), so nobody else schedules it meanwhile.
                try {
                    worker.schedule(drainLoop);
                    return;
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    refused(e);
                    continue; // the next round ends the flux here
                }
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    /**
     * Emits what demand and buffered data allow, up to {@link #RECORDS_PER_TURN}.
     *
     * @return true if it stopped at that limit (more may be waiting), false if demand or data ran out or it terminated
     */
    private boolean emitAvailable() {
        if (unparkRequested) {
            unparkRequested = false;
            unparkResumed();
        }
        long r = requested;
        long e = 0L;
        int turnRecords = 0; // batches: a turn ends after RECORDS_PER_TURN records, whatever the number of batches
        boolean turnUsedUp = false;
        for (;;) {
            if (cancelled) {
                terminate();
                return false;
            }
            Throwable ex = error;
            if (ex != null) {
                terminate();
                downstream.onError(ex);
                return false;
            }
            if (completeRequested) {
                terminate();
                downstream.onComplete();
                return false;
            }
            if (e == r) {
                break;
            }
            if (e == RECORDS_PER_TURN || turnRecords >= RECORDS_PER_TURN) {
                turnUsedUp = true;
                break;
            }
            if (batches != null) {
                if (heldBack) {
                    break;
                }
                RecordBatch<K, V> batch;
                try {
                    batch = pollBatch();
                } catch (Throwable t) {
                    error = t;
                    continue;
                }
                if (batch == null) {
                    break;
                }
                batches.onNext(batch);
                turnRecords += batch.records().size();
                e++;
                continue;
            }
            ConsumerRecord<K, V> record = markers.poll();
            boolean marker = record != null;
            if (record == null && heldBack) {
                break;
            }
            if (record == null) {
                try {
                    record = poll(false);
                } catch (Throwable t) {
                    error = t;
                    continue;
                }
            }
            if (record == null) {
                break;
            }
            RecordTracing t = tracing;
            if (t == null || marker) {
                actual.onNext(record);
            } else {
                ConsumerRecord<K, V> traced = record;
                t.deliver(traced, () -> actual.onNext(traced));
            }
            e++;
        }
        reportConsumed();
        if (e != 0L && r != Long.MAX_VALUE) {
            if (REQUESTED.addAndGet(this, -e) == 0L) {
                demandExhaustedSince = System.nanoTime();
            }
        }
        return turnUsedUp;
    }

    private void terminate() {
        reportConsumed();
        terminated = true;
        clear();
        onTerminate.run();
    }

    private void clear() {
        markers.clear();
        if (current != null) {
            finish(current);
            current = null;
        }
        for (CompletedFetch cf : parked) {
            finish(cf);
        }
        parked.clear();
        for (CompletedFetch cf; (cf = resumed.poll()) != null; ) {
            finish(cf);
        }
        for (CompletedFetch cf; (cf = queue.poll()) != null; ) {
            finish(cf);
        }
        if (rotation != null) {
            rotation.clear(this::finish);
        }
    }

    private void unparkResumed() {
        for (Iterator<CompletedFetch> it = parked.iterator(); it.hasNext(); ) {
            CompletedFetch cf = it.next();
            if (cf.isStale()) {
                it.remove();
                finish(cf);
            } else if (!cf.partition().isPaused()) {
                it.remove();
                resumed.add(cf);
            }
        }
    }

    private void finish(CompletedFetch cf) {
        cf.release();
        returns.consumed(cf);
    }

    /**
     * The next batch: records of the first result that has one to emit, up to {@link #maxBatch}, taken step by step
     * as {@link #poll} takes them for {@code receive()} (each step checks staleness and pause), so a batch ends early
     * where that result ends or its partition turned stale or paused, or before a record that failed (the failure then
     * ends the flux after this batch). A batch whose partition's revocation started
     * while it was built is dropped unemitted: its records were never acknowledged, so nothing of them is committed
     * and the partition's next owner reads them.
     *
     * @return null when nothing is buffered for an unpaused partition
     */
    private RecordBatch<K, V> pollBatch() {
        for (;;) {
            ConsumerRecord<K, V> first = poll(false);
            if (first == null) {
                return null;
            }
            CompletedFetch from = current; // the record's result: poll returns a record before finishing its result
            int firstSize = walk.cursor().sizeInBytes(); // the cursor is at the record poll returned until the next step
            long bytes = firstSize;
            // sized for what the result holds, so that a batch is one array and no growing list (issue #28)
            @SuppressWarnings("unchecked")
            ConsumerRecord<K, V>[] records = new ConsumerRecord[Math.min(maxBatch, walk.recordsLeft(firstSize))];
            records[0] = first;
            int size = 1;
            while (size < maxBatch) {
                // the rest of the wire batch of the record just taken, the position moved once for all of it
                int room = Math.min(maxBatch - size, walk.cursor().remaining());
                if (room > 0) {
                    if (size + room > records.length) {
                        records = java.util.Arrays.copyOf(records, (int) Math.min(maxBatch,
                                Math.max(2L * size, (long) size + room)));
                    }
                    size = takeRun(from, records, size, size + room);
                    bytes += runBytes;
                    if (size == maxBatch || error != null) {
                        break;
                    }
                }
                ConsumerRecord<K, V> next;
                try {
                    next = poll(true);
                } catch (Throwable t) {
                    // as receive(): the records before the failing one go out first, then the flux ends with it
                    if (error == null) {
                        error = t;
                    }
                    break;
                }
                if (next == null) {
                    break;
                }
                if (size == records.length) {
                    records = java.util.Arrays.copyOf(records, (int) Math.min(maxBatch, 2L * size));
                }
                records[size++] = next;
                bytes += walk.cursor().sizeInBytes();
            }
            if (from.partition().isRevoked()) {
                // counted as they were taken, all of one topic since the last report: not consumed after all
                countedRecords -= size;
                countedBytes -= bytes;
                continue;
            }
            // one partition's records in offset order by construction: RecordBatch's public checks would repeat that
            return Records.batch(first.topicPartition(), records, size);
        }
    }

    /** The wire bytes of the records the last {@link #takeRun} added (what the metrics count). */
    private long runBytes;

    /**
     * Takes the records after the cursor's one in its wire batch into {@code records[size, limit)}, the position moved
     * once at the end rather than per record (issue #28: the compare-and-set and the step's per-record checks were a
     * tenth of the emit thread). Stops early where the result turns stale or its partition is paused (the next
     * {@link #poll} then drops or parks the result), or at a record that failed (set as {@link #error}: the records
     * before it go out, then the flux ends with it).
     *
     * @return the new size; {@code size} when the result turned stale meanwhile (the run's records are then dropped
     *         unemitted, the position where the seek put it)
     */
    private int takeRun(CompletedFetch cf, ConsumerRecord<K, V>[] records, int size, int limit) {
        PartitionState ps = cf.partition();
        TopicPartition tp = ps.topicPartition();
        RecordCursor cursor = walk.cursor();
        io.kflux.TimestampType timestampType = walk.timestampType();
        int leaderEpoch = walk.leaderEpoch();
        int taken = size;
        long bytes = 0L;
        walk.startRun();
        try {
            while (taken < limit && !cf.isStale() && !ps.isPaused() && walk.nextInRun(ps)) {
                ConsumerRecord<K, V> record = builder.build(tp, cursor, timestampType, leaderEpoch);
                if (record == null) {
                    walk.passedOverInRun(ps); // a poison record the handler skipped
                    continue;
                }
                walk.taken(ps);
                records[taken++] = record;
                bytes += cursor.sizeInBytes();
            }
        } catch (Throwable t) {
            if (error == null) {
                error = t;
            }
        }
        runBytes = 0L;
        if (!walk.endRun(ps, cf.seekEpoch())) {
            java.util.Arrays.fill(records, size, taken, null);
            return size;
        }
        if (taken > size) {
            count(tp.topic(), taken - size, bytes);
            runBytes = bytes;
        }
        return taken;
    }

    /**
     * The next record to emit, or null when nothing is buffered for an unpaused partition.
     *
     * @param sameResult only from the result being emitted now: null once it ended, turned stale or was parked
     */
    private ConsumerRecord<K, V> poll(boolean sameResult) {
        for (;;) {
            if (current == null) {
                if (sameResult) {
                    return null;
                }
                CompletedFetch cf;
                BatchWalk stoppedAt = null;
                if (!resumed.isEmpty()) {
                    cf = resumed.poll();
                } else if (rotation == null) {
                    cf = queue.poll();
                } else {
                    ResultRotation.Turn turn = nextTurn();
                    cf = turn == null ? null : turn.result();
                    stoppedAt = turn == null ? null : turn.walk();
                }
                if (cf == null) {
                    return null;
                }
                if (stoppedAt != null) {
                    spareWalks.add(stoppedAt); // used below if its turn goes on, else re-read from the start if parked
                }
                if (cf.isStale()) {
                    finish(cf);
                    continue;
                }
                if (cf.partition().isPaused()) {
                    parked.add(cf);
                    continue;
                }
                if (cf.fetchOffset() > cf.partition().position() && cf.partition().position() >= 0) {
                    // Never reached when results come in fetch order; kept as the last line of defence of the rule
                    // that no offset is passed over unseen: emitting this would treat the records in between as a
                    // gap, and a gap is committed as if consumed.
                    cf.release();
                    returns.outOfOrder(cf);
                    continue;
                }
                current = cf;
                turnStart = cf.partition().position();
                if (stoppedAt != null) {
                    // its turn goes on where it gave way: positioned already, nothing re-read
                    spareWalks.remove(stoppedAt);
                    spareWalks.add(walk);
                    walk = stoppedAt;
                    Positioned p = trackedEpochs.get(cf.partition());
                    builder.attach(p == null ? ackHandle : p.acks());
                    continue;
                }
                int positionEpoch = cf.partition().positionEpoch();
                Positioned tracked = trackedEpochs.get(cf.partition());
                if (tracked == null || tracked.epoch() != positionEpoch) {
                    AckHandle acks = progress.positioned(cf.partition().topicPartition(), cf.partition().position(),
                            cf.partition().lastEmittedEpoch());
                    tracked = new Positioned(positionEpoch, acks == null ? ackHandle : acks);
                    // revoked partitions' states never come back (an assignment gets a new one): their entries, and
                    // the assignments their handles hold, would otherwise pile up over a long session's rebalances
                    trackedEpochs.keySet().removeIf(PartitionState::isRevoked);
                    trackedEpochs.put(cf.partition(), tracked);
                }
                builder.attach(tracked.acks());
                walk.start(cf);
            }
            PartitionState ps = current.partition();
            if (current.isStale()) {
                finish(current);
                current = null;
                continue;
            }
            if (ps.isPaused()) {
                // Re-reading it later from the start is cheap: records below the position are skipped.
                parked.add(current);
                current = null;
                continue;
            }
            if (rotation != null && ps.position() - turnStart >= rotation.sliceRecords() && gaveWay()) {
                continue;
            }
            switch (walk.step(ps)) {
                case RECORD -> {
                    RecordCursor cursor = walk.cursor();
                    ConsumerRecord<K, V> record = builder.build(ps.topicPartition(), cursor, walk.timestampType(),
                            walk.leaderEpoch());
                    if (record == null) {
                        walk.passedOver(ps); // a poison record the handler skipped
                    } else if (walk.emitted(ps)) {
                        count(ps.topicPartition().topic(), cursor.sizeInBytes());
                        return record;
                    } // else a seek landed while the record was built: it is stale, and so is its result
                }
                case END -> {
                    ps.sampleLag(); // every record of this answer handed on: where the official client samples lag
                    finish(current);
                    current = null;
                }
                case MOVED -> {
                }
            }
        }
    }

    /** Rotation: the queued results join the rotation, and the next turn's result is taken. */
    private ResultRotation.Turn nextTurn() {
        rotateQueued();
        return rotation.next();
    }

    /** Rotation: the results the fetcher queued join the rotation, in the order they came. */
    private void rotateQueued() {
        for (CompletedFetch cf; (cf = queue.poll()) != null; ) {
            rotation.add(cf);
        }
    }

    /**
     * Rotation, once {@link #current} emitted a slice since its turn began: it gives way if another partition's result
     * waits, keeping its walk (between two records, possibly inside a record batch of the log); else a new slice
     * begins. Not while parked results of resumed partitions go first ({@link #resumed}): those are emitted whole, in
     * order.
     *
     * @return true when it gave way ({@link #current} is null)
     */
    private boolean gaveWay() {
        if (!resumed.isEmpty() || !rotation.isTaken(current)) {
            return false;
        }
        rotateQueued();
        if (!rotation.othersWaiting()) {
            turnStart = current.partition().position();
            return false;
        }
        rotation.giveWay(current, walk);
        BatchWalk spare = spareWalks.poll();
        walk = spare != null ? spare : new BatchWalk(checkCrcs, progress);
        current = null;
        return true;
    }

    /** Counts an emitted record for the metrics, reported per drain. */
    private void count(String topic, int sizeInBytes) {
        count(topic, 1, sizeInBytes);
    }

    /** Counts emitted records of one topic for the metrics, reported per drain. */
    private void count(String topic, int records, long sizeInBytes) {
        if (!topic.equals(countedTopic)) {
            reportConsumed();
            countedTopic = topic;
        }
        countedRecords += records;
        countedBytes += sizeInBytes;
    }
}
