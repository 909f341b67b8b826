package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.fetch.CompletedFetch;
import io.kflux.fetch.PartitionState;
import io.kflux.protocol.message.FetchResponse.AbortedTransaction;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.BufferSupplier;
import org.junit.jupiter.api.Test;

/**
 * What the walk through one fetch result's batches hands on and what it passes over (and tells acknowledgement
 * tracking of). Batches are written by the official client's {@link MemoryRecords}; compaction by its
 * {@link MemoryRecords#filterTo}, as the broker's cleaner does it.
 */
class BatchWalkTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final short PRODUCER_EPOCH = 0;

    private final List<long[]> skipped = new ArrayList<>();
    private final List<long[]> epochs = new ArrayList<>();
    private final RecordEmitter.Progress progress = new RecordEmitter.Progress() {
        @Override
        public AckHandle positioned(TopicPartition tp, long position, int epoch) {
            return null;
        }

        @Override
        public void leaderEpoch(TopicPartition tp, long offset, int epoch) {
            epochs.add(new long[] {offset, epoch});
        }

        @Override
        public void skipped(TopicPartition tp, long from, long to) {
            skipped.add(new long[] {from, to});
        }
    };
    private final BatchWalk walk = new BatchWalk(true, progress);

    /** Walks {@code cf} to its end as the emitter does, emitting every record reached; returns their offsets. */
    private List<Long> walkToEnd(CompletedFetch cf) {
        PartitionState ps = cf.partition();
        List<Long> emitted = new ArrayList<>();
        walk.start(cf);
        for (int steps = 0; steps < 1_000; steps++) {
            switch (walk.step(ps)) {
                case RECORD -> {
                    emitted.add(walk.cursor().offset());
                    walk.emitted(ps);
                }
                case MOVED -> {
                }
                case END -> {
                    return emitted;
                }
            }
        }
        throw new AssertionError("the walk did not end");
    }

    /**
     * read_committed: the aborted transaction's data batch and both markers are passed over; the committed
     * transaction's records are emitted, also those of the aborted producer's next transaction (its ABORT marker
     * ended the abort).
     */
    @Test
    void readCommittedPassesOverAbortedTransactionsAndMarkers() {
        PartitionState ps = positionedAt(0);
        CompletedFetch cf = transactions(ps, List.of(new AbortedTransaction(1L, 0L)));

        assertThat(walkToEnd(cf)).containsExactly(2L, 3L, 6L, 7L);
        assertThat(skipped).as("passed over").containsExactly(
                new long[] {0, 2}, new long[] {4, 5}, new long[] {5, 6}, new long[] {8, 9});
        assertThat(ps.position()).isEqualTo(9L);
        assertThat(epochs).as("leader epoch where it changes, from the first batch on")
                .containsExactly(new long[] {0, 4});
    }

    /** read_uncommitted (no aborted transactions listed): every data record is emitted, only the markers passed over. */
    @Test
    void controlBatchesArePassedOverAndNeverEmitted() {
        PartitionState ps = positionedAt(0);
        CompletedFetch cf = transactions(ps, List.of());

        assertThat(walkToEnd(cf)).containsExactly(0L, 1L, 2L, 3L, 6L, 7L);
        assertThat(skipped).as("the three markers").containsExactly(
                new long[] {4, 5}, new long[] {5, 6}, new long[] {8, 9});
        assertThat(ps.position()).isEqualTo(9L);
    }

    /**
     * Offsets compaction removed inside a batch, and the batch's emptied tail, are passed over so acknowledgement
     * tracking never waits for them; the next batch goes on after them.
     */
    @Test
    void compactedGapsInsideABatchAndItsEmptyTailArePassedOver() {
        PartitionState ps = positionedAt(0);
        MemoryRecords compacted = retainOnly(batch(0L, 12), Set.of(0L, 3L, 4L, 9L));

        assertThat(walkToEnd(fetch(ps, 0L, compacted, batch(12L, 2)))).containsExactly(0L, 3L, 4L, 9L, 12L, 13L);
        assertThat(skipped).containsExactly(new long[] {1, 3}, new long[] {5, 9}, new long[] {10, 12});
        assertThat(ps.position()).isEqualTo(14L);
    }

    /**
     * The broker answers with whole batches, so a result may begin below the position (a fetch from inside a batch,
     * or a parked result read again from its start): what lies below the position is neither emitted again nor
     * reported as passed over.
     */
    @Test
    void recordsBelowThePositionAreNotEmittedTwice() {
        PartitionState ps = positionedAt(7);
        CompletedFetch cf = fetch(ps, 7L, batch(0L, 5), batch(5L, 5));

        assertThat(walkToEnd(cf)).containsExactly(7L, 8L, 9L);
        assertThat(ps.position()).isEqualTo(10L);

        // the same result walked again from its start (as after it was parked): nothing is emitted twice
        assertThat(walkToEnd(cf)).isEmpty();
        assertThat(skipped).as("nothing below the position counts as passed over").isEmpty();
        assertThat(ps.position()).isEqualTo(10L);
    }

    /** A record the deserialization error handler skipped counts as consumed, with the compaction gap before it. */
    @Test
    void aRecordPassedOverUnemittedMovesThePositionPastItAndItsGap() {
        PartitionState ps = positionedAt(0);
        CompletedFetch cf = fetch(ps, 0L, retainOnly(batch(0L, 4), Set.of(0L, 2L, 3L)));
        walk.start(cf);
        List<Long> emitted = new ArrayList<>();
        for (BatchWalk.Step step; (step = walk.step(ps)) != BatchWalk.Step.END; ) {
            if (step == BatchWalk.Step.RECORD) {
                if (walk.cursor().offset() == 2L) {
                    walk.passedOver(ps);
                } else {
                    emitted.add(walk.cursor().offset());
                    walk.emitted(ps);
                }
            }
        }

        assertThat(emitted).containsExactly(0L, 3L);
        assertThat(skipped).as("the gap and the skipped record, as one range").containsExactly(new long[] {1, 3});
        assertThat(ps.position()).isEqualTo(4L);
    }

    private static PartitionState positionedAt(long position) {
        PartitionState ps = new PartitionState(TP);
        ps.seek(position);
        return ps;
    }

    /**
     * Producer 1's transaction (offsets 0-1, aborted when {@code aborted} lists it), producer 2's (2-3, committed),
     * producer 1's ABORT marker (4), producer 2's COMMIT marker (5), producer 1's next transaction (6-7) and its
     * COMMIT marker (8). Leader epoch 4 throughout.
     */
    private static CompletedFetch transactions(PartitionState ps, List<AbortedTransaction> aborted) {
        MemoryRecordsBuilder p1 = builder(0L, true, 1L, 4);
        p1.append(1_000L, utf8("a0"), utf8("aborted"));
        p1.append(1_001L, utf8("a1"), utf8("aborted"));
        MemoryRecordsBuilder p2 = builder(2L, true, 2L, 4);
        p2.append(1_002L, utf8("c2"), utf8("committed"));
        p2.append(1_003L, utf8("c3"), utf8("committed"));
        MemoryRecords abort = MemoryRecords.withEndTransactionMarker(4L, 1_004L, 4, 1L, PRODUCER_EPOCH,
                new EndTransactionMarker(ControlRecordType.ABORT, 0));
        MemoryRecords commit = MemoryRecords.withEndTransactionMarker(5L, 1_005L, 4, 2L, PRODUCER_EPOCH,
                new EndTransactionMarker(ControlRecordType.COMMIT, 0));
        MemoryRecordsBuilder p1Again = builder(6L, true, 1L, 4);
        p1Again.append(1_006L, utf8("c6"), utf8("committed"));
        p1Again.append(1_007L, utf8("c7"), utf8("committed"));
        MemoryRecords commitAgain = MemoryRecords.withEndTransactionMarker(8L, 1_008L, 4, 1L, PRODUCER_EPOCH,
                new EndTransactionMarker(ControlRecordType.COMMIT, 0));
        ByteBuf buf = concat(p1.build(), p2.build(), abort, commit, p1Again.build(), commitAgain);
        return new CompletedFetch(ps, ps.seekEpoch(), 0L, 9L, buf, buf.readableBytes(), 9L, aborted);
    }

    /** One non-transactional batch of {@code count} records from {@code baseOffset}, leader epoch 7. */
    private static MemoryRecords batch(long baseOffset, int count) {
        MemoryRecordsBuilder b = builder(baseOffset, false, 1L, 7);
        for (int i = 0; i < count; i++) {
            long offset = baseOffset + i;
            b.append(1_000L + offset, utf8("k" + offset), utf8("v" + offset));
        }
        return b.build();
    }

    private static MemoryRecordsBuilder builder(long baseOffset, boolean transactional, long producerId,
                                                int leaderEpoch) {
        return MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2, Compression.NONE,
                TimestampType.CREATE_TIME, baseOffset, -1L, producerId, PRODUCER_EPOCH, 0, transactional,
                leaderEpoch);
    }

    /** What the log cleaner leaves of {@code records}: the batch keeps its last offset, so a removed tail stays a gap. */
    private static MemoryRecords retainOnly(MemoryRecords records, Set<Long> offsets) {
        ByteBuffer out = ByteBuffer.allocate(records.sizeInBytes() + 64);
        records.filterTo(new MemoryRecords.RecordFilter(0L, 0L) {
            @Override
            protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
                return new BatchRetentionResult(BatchRetention.DELETE_EMPTY, false);
            }

            @Override
            protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
                return offsets.contains(record.offset());
            }
        }, out, BufferSupplier.NO_CACHING);
        out.flip();
        return MemoryRecords.readableRecords(out);
    }

    private static CompletedFetch fetch(PartitionState ps, long fetchOffset, MemoryRecords... records) {
        ByteBuf buf = concat(records);
        return new CompletedFetch(ps, ps.seekEpoch(), fetchOffset, fetchOffset, buf, buf.readableBytes(), -1L,
                List.of());
    }

    private static ByteBuf concat(MemoryRecords... records) {
        ByteBuf buf = Unpooled.buffer();
        for (MemoryRecords r : records) {
            buf.writeBytes(r.buffer().duplicate());
        }
        return buf;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
