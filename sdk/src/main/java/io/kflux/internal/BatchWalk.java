package io.kflux.internal;

import io.kflux.CorruptRecordException;
import io.kflux.TimestampType;
import io.kflux.fetch.AbortedTransactions;
import io.kflux.fetch.CompletedFetch;
import io.kflux.fetch.PartitionState;
import io.kflux.protocol.record.ControlRecordType;
import io.kflux.protocol.record.CorruptRecordBatchException;
import io.kflux.protocol.record.RecordBatch;
import io.kflux.protocol.record.RecordCursor;
import io.kflux.protocol.record.RecordsReader;
import io.kflux.protocol.record.UnsupportedRecordFormatException;

/**
 * Walks the batches of one fetch result to the records to emit, passing over (and so moving the partition's position
 * past) what is never emitted: control batches, aborted transactions' data under read_committed, records below the
 * position, and offsets compaction removed. Each move past offsets is told to {@link RecordEmitter.Progress}, so
 * acknowledgement tracking never waits for them.
 *
 * <p>One step at a time ({@link #step}): the emitter checks between steps whether the result turned stale or its
 * partition was paused, so nothing is passed over for a partition that stopped being emitted. Runs on the emitter's
 * worker only; the cursor's arrays are valid until the next step.
 */
final class BatchWalk {
    /** What a {@link #step} reached. */
    enum Step {
        /** {@link #cursor()} is at a record to emit, at or after the position. */
        RECORD,
        /** Moved to or past a batch; step again. */
        MOVED,
        /** The result holds nothing more. */
        END
    }

    private final RecordsReader reader;
    private final RecordEmitter.Progress progress;
    private AbortedTransactions aborted;
    private RecordBatch batch;
    private RecordCursor cursor;
    private TimestampType timestampType;
    /**
     * The position the cursor's record was chosen against: the emitter moves the position from exactly this value, so
     * a seek that lands while the record is built (deserializers run in between) is not undone.
     */
    private long chosenAt;
    /**
     * A run ({@link #startRun} to {@link #endRun}): the position it moves from, and the offset after its last record
     * taken or passed over.
     */
    private long runFrom;
    private long runNext;

    BatchWalk(boolean checkCrcs, RecordEmitter.Progress progress) {
        this.reader = new RecordsReader(checkCrcs);
        this.progress = progress;
    }

    /** Starts walking {@code cf} from its first batch (records below the position are passed over as they come). */
    void start(CompletedFetch cf) {
        reader.reset(cf.records());
        aborted = cf.abortedTransactions().isEmpty() ? null : new AbortedTransactions(cf.abortedTransactions());
        batch = null;
        cursor = null;
    }

    /**
     * Moves to the next record at or after {@code ps}'s position, by at most one batch.
     *
     * @throws CorruptRecordException when a batch or record cannot be read (position unchanged at the bad data)
     */
    Step step(PartitionState ps) {
        if (cursor != null) {
            if (nextRecord(ps)) {
                return Step.RECORD;
            }
            if (batch.nextOffset() > ps.position()) {
                skip(ps, batch.nextOffset(), -1); // compaction can leave the batch's tail empty
            }
            cursor = null;
        }
        try {
            batch = reader.nextBatch();
        } catch (CorruptRecordBatchException | UnsupportedRecordFormatException e) {
            throw corrupt(ps, e);
        }
        if (batch == null) {
            return Step.END;
        }
        if (aborted != null && skipAborted(batch)) {
            if (batch.nextOffset() > ps.position()) {
                // read_committed: an aborted transaction's data is never emitted
                skip(ps, batch.nextOffset(), batch.partitionLeaderEpoch());
            }
            return Step.MOVED;
        }
        if (batch.isControl() || batch.nextOffset() <= ps.position()) {
            if (batch.nextOffset() > ps.position()) {
                // control markers take offsets but are never emitted
                skip(ps, batch.nextOffset(), batch.partitionLeaderEpoch());
            }
            return Step.MOVED;
        }
        try {
            cursor = reader.records();
        } catch (CorruptRecordBatchException | UnsupportedRecordFormatException e) {
            throw corrupt(ps, e);
        }
        timestampType = batch.timestampType() == io.kflux.protocol.record.TimestampType.LOG_APPEND_TIME
                ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
        return Step.MOVED;
    }

    /** The record {@link Step#RECORD} reached; its arrays are valid until the next step. */
    RecordCursor cursor() {
        return cursor;
    }

    /**
     * About how many records the result holds from the cursor's record on (at least 1), taking each one after the
     * cursor's batch as {@code recordSize} bytes: what sizes a receiveBatches() batch up front. An estimate only:
     * batch headers, records below the position and control batches count as records too.
     */
    int recordsLeft(int recordSize) {
        long later = reader.remainingBytes() / Math.max(1, recordSize);
        return (int) Math.min(Integer.MAX_VALUE, 1L + cursor.remaining() + later);
    }

    /** The timestamp type of the batch of {@link #cursor()}. */
    TimestampType timestampType() {
        return timestampType;
    }

    /** The partition leader epoch of the batch of {@link #cursor()}, -1 unknown. */
    int leaderEpoch() {
        return batch.partitionLeaderEpoch();
    }

    /**
     * The record at the cursor is being emitted: the position moves past it, past any compaction gap before it too.
     *
     * @return false when a seek moved the position since the record was chosen: the record is stale and must not be
     *         emitted (the emitter finds its result stale next)
     */
    boolean emitted(PartitionState ps) {
        long offset = cursor.offset();
        int epoch = batch.partitionLeaderEpoch();
        if (offset > chosenAt) {
            progress.skipped(ps.topicPartition(), chosenAt, offset); // compacted away inside the batch
        }
        reportEpoch(ps, offset, epoch);
        return ps.advance(chosenAt, offset + 1, epoch);
    }

    /**
     * The record at the cursor is passed over unemitted (the deserialization error handler chose to skip it): it
     * counts as consumed with any compaction gap before it, so it never holds commits back.
     */
    void passedOver(PartitionState ps) {
        long offset = cursor.offset();
        int epoch = batch.partitionLeaderEpoch();
        reportEpoch(ps, offset, epoch);
        progress.skipped(ps.topicPartition(), chosenAt, offset + 1);
        ps.advance(chosenAt, offset + 1, epoch); // false: a seek moved it, and the result is stale anyway
    }

    /**
     * Starts a run over the rest of the cursor's wire batch, right after its record was {@link #emitted}: the records
     * the run takes ({@link #nextInRun}, {@link #taken}, {@link #passedOverInRun}) move the position once, at
     * {@link #endRun}. Within one wire batch the leader epoch is one and the offsets only grow, so nothing a step
     * checks per record can change there but staleness and pause, which the caller checks.
     */
    void startRun() {
        runFrom = cursor.offset() + 1;
        runNext = runFrom;
    }

    /**
     * Moves the cursor to the next record of its wire batch, for a run.
     *
     * @return false at the batch's end (the next {@link #step} goes on from there)
     * @throws CorruptRecordException when the record cannot be read (the position then stays at the run's end)
     */
    boolean nextInRun(PartitionState ps) {
        try {
            return cursor.next();
        } catch (CorruptRecordBatchException e) {
            throw new CorruptRecordException(ps.topicPartition(), runNext, "corrupt record data in "
                    + ps.topicPartition() + " at or after offset " + runNext + ": " + e.getMessage(), e);
        }
    }

    /** The run takes the cursor's record: told as {@link #emitted} tells it, the position not moved yet. */
    void taken(PartitionState ps) {
        long offset = cursor.offset();
        if (offset > runNext) {
            progress.skipped(ps.topicPartition(), runNext, offset); // compacted away inside the batch
        }
        runNext = offset + 1;
    }

    /** The run passes the cursor's record over unemitted (the deserialization error handler skipped it). */
    void passedOverInRun(PartitionState ps) {
        long offset = cursor.offset();
        progress.skipped(ps.topicPartition(), runNext, offset + 1);
        runNext = offset + 1;
    }

    /**
     * Ends the run: the position moves over what it took, unless the result turned stale (fetched under
     * {@code seekEpoch}) since.
     *
     * @return false when nothing moved: the run's records must not be emitted
     */
    boolean endRun(PartitionState ps, int seekEpoch) {
        if (runNext == runFrom) {
            return true;
        }
        return ps.advanceRun(runFrom, runNext, batch.partitionLeaderEpoch(), seekEpoch);
    }

    /** For read_committed: true for an aborted data batch; tracks ABORT markers as they pass. */
    private boolean skipAborted(RecordBatch b) {
        if (b.isControl()) {
            RecordCursor marker = reader.records();
            if (marker.next() && marker.controlType() == ControlRecordType.ABORT) {
                aborted.onAbortMarker(b.producerId());
            }
            return false;
        }
        return aborted.isAborted(b);
    }

    /**
     * Passes over {@code [position, to)}; {@code epoch} is the leader epoch of the batch passed over (-1 for a
     * compaction gap): the official consumer's position takes the epoch of every batch it walks, markers too.
     */
    private void skip(PartitionState ps, long to, int epoch) {
        long from = ps.position();
        reportEpoch(ps, from, epoch);
        progress.skipped(ps.topicPartition(), from, to);
        ps.advance(from, to, epoch); // false: a seek moved it, and the emitter finds the result stale next
    }

    /** Reported only where the epoch changes: once per leader election, not per record. */
    private void reportEpoch(PartitionState ps, long offset, int epoch) {
        if (epoch >= 0 && epoch != ps.lastEmittedEpoch()) {
            progress.leaderEpoch(ps.topicPartition(), offset, epoch);
        }
    }

    private boolean nextRecord(PartitionState ps) {
        try {
            chosenAt = ps.position();
            return cursor.nextAtOrAfter(chosenAt);
        } catch (CorruptRecordBatchException e) {
            throw corrupt(ps, e);
        }
    }

    private static CorruptRecordException corrupt(PartitionState ps, RuntimeException e) {
        return new CorruptRecordException(ps.topicPartition(), ps.position(),
                "corrupt record data in " + ps.topicPartition() + " at or after offset " + ps.position() + ": "
                        + e.getMessage(), e);
    }
}
