package io.kflux.fetch;

import io.netty.buffer.ByteBuf;

/**
 * Finds where the complete batches of a records buffer end, from batch headers only (no CRC, no
 * decompression): that is the next fetch offset, known before the records are decoded, so the
 * next Fetch can go out while this one is still being emitted.
 */
final class BatchScan {
    // baseOffset int64, batchLength int32; lastOffsetDelta sits after partitionLeaderEpoch,
    // magic, crc and attributes.
    private static final int LOG_OVERHEAD = 12;
    private static final int LAST_OFFSET_DELTA_OFFSET = 8 + 4 + 4 + 1 + 4 + 2;
    private static final int MAGIC_OFFSET = 8 + 4 + 4;

    private BatchScan() {
    }

    /** The offset after the last complete batch, or {@code fetchOffset} when there is none. */
    static long nextOffset(ByteBuf records, long fetchOffset) {
        long next = fetchOffset;
        int pos = records.readerIndex();
        int end = records.writerIndex();
        while (end - pos >= LOG_OVERHEAD) {
            long baseOffset = records.getLong(pos);
            int batchLength = records.getInt(pos + 8);
            if (batchLength < 0 || (long) pos + LOG_OVERHEAD + batchLength > end) {
                break;
            }
            if (records.getByte(pos + MAGIC_OFFSET) >= 2 && batchLength >= LAST_OFFSET_DELTA_OFFSET + 4 - LOG_OVERHEAD) {
                next = Math.max(next, baseOffset + records.getInt(pos + LAST_OFFSET_DELTA_OFFSET) + 1);
            } else {
                // Old formats are refused when decoded; still move on so the error surfaces there.
                next = Math.max(next, baseOffset + 1);
            }
            pos += LOG_OVERHEAD + batchLength;
        }
        return next;
    }
}
