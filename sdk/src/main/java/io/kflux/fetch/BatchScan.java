package io.kflux.fetch;

import io.netty.buffer.ByteBuf;

/**
 * Finds where the complete batches of a records buffer end, from batch headers only (no CRC, no
 * decompression): that is the next fetch offset, known before the records are decoded, so the
 * next Fetch can go out while this one is still being emitted. The leader epoch of that last
 * batch is the next Fetch's {@code lastFetchedEpoch} (KIP-320). Public for the raw-Fetch
 * benchmark baseline, which moves through a log the same way without decoding anything.
 */
public final class BatchScan {
    // baseOffset int64, batchLength int32; lastOffsetDelta sits after partitionLeaderEpoch,
    // magic, crc and attributes.
    private static final int LOG_OVERHEAD = 12;
    private static final int LAST_OFFSET_DELTA_OFFSET = 8 + 4 + 4 + 1 + 4 + 2;
    private static final int MAGIC_OFFSET = 8 + 4 + 4;
    private static final int PARTITION_LEADER_EPOCH_OFFSET = 8 + 4;
    // recordsCount ends the v2 batch header, after baseTimestamp, maxTimestamp, producerId, producerEpoch, baseSequence
    private static final int RECORDS_COUNT_OFFSET = LAST_OFFSET_DELTA_OFFSET + 4 + 8 + 8 + 8 + 2 + 4;

    private BatchScan() {
    }

    /**
     * Where the complete batches of one fetch result end, the leader epoch of the last one, and the records their
     * headers count (control records included; for metrics only).
     */
    public record Result(long nextOffset, int lastEpoch, int records) {
    }

    /** The offset after the last complete batch, or {@code fetchOffset} when there is none. */
    static long nextOffset(ByteBuf records, long fetchOffset) {
        return scan(records, fetchOffset, -1).nextOffset();
    }

    /**
     * The offset after the last complete batch and that batch's partition leader epoch (-1 for
     * old formats); {@code fetchOffset} and {@code lastEpoch} when there is no complete batch.
     */
    public static Result scan(ByteBuf records, long fetchOffset, int lastEpoch) {
        long next = fetchOffset;
        int epoch = lastEpoch;
        int count = 0;
        int pos = records.readerIndex();
        int end = records.writerIndex();
        while (end - pos >= LOG_OVERHEAD) {
            long baseOffset = records.getLong(pos);
            int batchLength = records.getInt(pos + 8);
            if (batchLength < 0 || (long) pos + LOG_OVERHEAD + batchLength > end) {
                break;
            }
            if (records.getByte(pos + MAGIC_OFFSET) >= 2 && batchLength >= LAST_OFFSET_DELTA_OFFSET + 4 - LOG_OVERHEAD) {
                long batchNext = baseOffset + records.getInt(pos + LAST_OFFSET_DELTA_OFFSET) + 1;
                if (batchLength >= RECORDS_COUNT_OFFSET + 4 - LOG_OVERHEAD) {
                    count += Math.max(0, records.getInt(pos + RECORDS_COUNT_OFFSET));
                }
                if (batchNext > next) {
                    next = batchNext;
                    epoch = records.getInt(pos + PARTITION_LEADER_EPOCH_OFFSET);
                }
            } else if (baseOffset + 1 > next) {
                // Old formats are refused when decoded; still move on so the error surfaces there.
                next = baseOffset + 1;
                epoch = -1;
            }
            pos += LOG_OVERHEAD + batchLength;
        }
        return new Result(next, epoch, count);
    }
}
