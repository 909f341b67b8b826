package io.kflux.protocol.record;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Walks the {@code Records} bytes of one partition from a Fetch response: zero or more
 * concatenated record batches v2, of which the last may be cut short by the broker's byte limit.
 *
 * <pre>{@code
 * RecordsReader reader = new RecordsReader();          // keep one per fetch loop: it pools buffers
 * reader.reset(recordsBuf);
 * for (RecordBatch batch; (batch = reader.nextBatch()) != null; ) {
 *     if (batch.isControl() || batch.nextOffset() <= position) { position = max(position, batch.nextOffset()); continue; }
 *     RecordCursor c = reader.records();
 *     while (c.nextAtOrAfter(position)) { ...; position = c.offset() + 1; }
 *     position = max(position, batch.nextOffset());   // compaction may leave gaps at the end
 * }
 * // reader.completeBytes(), reader.hasPartialBatch()
 * }</pre>
 *
 * <p>The reader never changes the buffer's indices and never retains or releases it. What
 * {@link #records()} exposes lives in a heap array: for uncompressed batches of a heap buffer the
 * buffer's own array (read in place), otherwise one owned by the reader and reused by the next
 * {@code records()} call (see {@link RecordCursor}). So the caller keeps the buffer until it is
 * done with the cursor, and copies what it keeps.
 *
 * <p>A batch is checked (magic, lengths, CRC32C when enabled, compression id) when
 * {@link #nextBatch()} reaches it; its records are decoded lazily by {@link #records()}, so
 * skipped and control batches cost no copy or decompression. After an exception the reader stays
 * on the offending batch: {@link #completeBytes()} still counts only the batches before it.
 * Not thread-safe.
 */
public final class RecordsReader {
    private static final int OFFSET_LENGTH = 8;
    private static final int OFFSET_LEADER_EPOCH = 12;
    private static final int OFFSET_MAGIC = 16;
    private static final int OFFSET_CRC = 17;
    private static final int OFFSET_ATTRIBUTES = 21;
    private static final int OFFSET_LAST_OFFSET_DELTA = 23;
    private static final int OFFSET_BASE_TIMESTAMP = 27;
    private static final int OFFSET_MAX_TIMESTAMP = 35;
    private static final int OFFSET_PRODUCER_ID = 43;
    private static final int OFFSET_PRODUCER_EPOCH = 51;
    private static final int OFFSET_BASE_SEQUENCE = 53;
    private static final int OFFSET_RECORD_COUNT = 57;
    private static final int HEADER_UP_TO_MAGIC = OFFSET_MAGIC + 1;
    /** Smallest batchLength of a v2 batch: the header after the length field, no records. */
    private static final int MIN_BATCH_LENGTH = RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD;
    /** A record has at least length, attributes, timestampDelta, offsetDelta, key/value lengths, header count. */
    private static final int MIN_RECORD_SIZE = 7;

    private final boolean verifyCrc;
    private final CRC32C crc32c = new CRC32C();
    private final Decompressor decompressor = new Decompressor();
    private final RecordCursor cursor = new RecordCursor();

    private ByteBuf buf;
    private int start;
    private int limit;
    private int next;
    private boolean partial;
    private RecordBatch current;
    private int currentIndex;
    private int decodedLength = -1;
    /** Where the current batch's records are: the buffer's own array or the decompressor's. */
    private byte[] decoded;
    private int decodedFrom;

    /** A reader that verifies the CRC32C of every batch (as the official consumer's {@code check.crcs=true}). */
    public RecordsReader() {
        this(true);
    }

    /**
     * @param verifyCrc whether to compute and compare the CRC32C of every batch; turn off only
     *        when the data was already verified
     */
    public RecordsReader(boolean verifyCrc) {
        this.verifyCrc = verifyCrc;
    }

    /**
     * Starts reading a new buffer, from its reader index to its writer index.
     *
     * @param records the partition's records bytes; not retained beyond the next reset and not released
     * @return this reader
     */
    public RecordsReader reset(ByteBuf records) {
        this.buf = records;
        this.start = records.readerIndex();
        this.limit = records.writerIndex();
        this.next = start;
        this.partial = false;
        this.current = null;
        this.decodedLength = -1;
        decompressor.trim();
        return this;
    }

    /**
     * Advances to the next complete batch and checks its header.
     *
     * @return the batch header, or null when the buffer holds no further complete batch (see
     *         {@link #hasPartialBatch()})
     * @throws UnsupportedRecordFormatException if the batch magic is not 2 (checked as soon as the
     *         magic byte is in the buffer, also for a trailing partial batch, which could never
     *         be decoded by fetching more)
     * @throws CorruptRecordBatchException if its length is impossible, its CRC32C does not match,
     *         its compression id or record count is invalid
     * @throws IllegalStateException if {@link #reset} was never called
     */
    public RecordBatch nextBatch() {
        if (buf == null) {
            throw new IllegalStateException("reset(ByteBuf) must be called first");
        }
        current = null;
        decodedLength = -1;
        int at = next;
        int available = limit - at;
        if (available < RecordBatch.LOG_OVERHEAD) {
            partial = available > 0;
            return null;
        }
        long baseOffset = buf.getLong(at);
        int batchLength = buf.getInt(at + OFFSET_LENGTH);
        if (available >= HEADER_UP_TO_MAGIC) {
            byte magic = buf.getByte(at + OFFSET_MAGIC);
            if (magic != RecordBatch.MAGIC_V2) {
                throw new UnsupportedRecordFormatException(baseOffset, magic);
            }
        }
        if (batchLength < MIN_BATCH_LENGTH) {
            throw new CorruptRecordBatchException(baseOffset, "corrupt record batch at offset " + baseOffset
                    + ": batch length " + batchLength + " is below the minimum of " + MIN_BATCH_LENGTH);
        }
        if (batchLength > available - RecordBatch.LOG_OVERHEAD) {
            partial = true;
            return null;
        }
        int end = at + RecordBatch.LOG_OVERHEAD + batchLength;

        long storedCrc = buf.getUnsignedInt(at + OFFSET_CRC);
        if (verifyCrc) {
            long computed = crc(at + OFFSET_ATTRIBUTES, end - (at + OFFSET_ATTRIBUTES));
            if (computed != storedCrc) {
                throw new CorruptRecordBatchException(baseOffset, "corrupt record batch at offset " + baseOffset
                        + ": CRC32C mismatch, batch header says 0x" + Long.toHexString(storedCrc)
                        + " but the content computes to 0x" + Long.toHexString(computed)
                        + " (" + (end - at) + " bytes)");
            }
        }
        short attributes = buf.getShort(at + OFFSET_ATTRIBUTES);
        Compression compression;
        try {
            compression = RecordBatch.compressionOf(attributes);
        } catch (IllegalArgumentException e) {
            throw new CorruptRecordBatchException(baseOffset, "corrupt record batch at offset " + baseOffset
                    + ": " + e.getMessage() + " in attributes 0x" + Integer.toHexString(attributes & 0xFFFF));
        }
        int recordCount = buf.getInt(at + OFFSET_RECORD_COUNT);
        int recordsBytes = batchLength - MIN_BATCH_LENGTH;
        if (recordCount < 0
                || (compression == Compression.NONE && (long) recordCount * MIN_RECORD_SIZE > recordsBytes)) {
            throw new CorruptRecordBatchException(baseOffset, "corrupt record batch at offset " + baseOffset
                    + ": record count " + recordCount + " is impossible for " + recordsBytes
                    + " bytes of " + compression + " records");
        }
        current = new RecordBatch(at - start, baseOffset, batchLength,
                buf.getInt(at + OFFSET_LEADER_EPOCH), storedCrc, attributes,
                buf.getInt(at + OFFSET_LAST_OFFSET_DELTA), buf.getLong(at + OFFSET_BASE_TIMESTAMP),
                buf.getLong(at + OFFSET_MAX_TIMESTAMP), buf.getLong(at + OFFSET_PRODUCER_ID),
                buf.getShort(at + OFFSET_PRODUCER_EPOCH), buf.getInt(at + OFFSET_BASE_SEQUENCE),
                recordCount, compression);
        currentIndex = at;
        next = end;
        return current;
    }

    /**
     * Decodes the records of the batch last returned by {@link #nextBatch()}: none for uncompressed
     * batches of a heap buffer, one copy out of a direct one, one decompression otherwise. Calling
     * it again for the same batch rewinds the cursor without decoding again.
     *
     * @return the reader's cursor, positioned before the first record; valid until the next
     *         {@code records()} call for another batch or {@link #reset}
     * @throws CorruptRecordBatchException if decompression fails
     * @throws IllegalStateException if there is no current batch
     */
    public RecordCursor records() {
        RecordBatch batch = current;
        if (batch == null) {
            throw new IllegalStateException("no current batch: nextBatch() returned null or was not called");
        }
        if (decodedLength < 0 && batch.recordCount() == 0) {
            // as Kafka's reader: an empty batch (kept by compaction for producer state) has nothing
            // to decode, whatever its codec
            decodedLength = 0;
            decoded = decompressor.buffer();
            decodedFrom = 0;
        } else if (decodedLength < 0) {
            int from = currentIndex + RecordBatch.HEADER_SIZE;
            int length = batch.sizeInBytes() - RecordBatch.HEADER_SIZE;
            if (batch.compression() == Compression.NONE && buf.hasArray()) {
                // read in place: copying every uncompressed batch out cost as much as decoding it
                decoded = buf.array();
                decodedFrom = buf.arrayOffset() + from;
                decodedLength = length;
            } else {
                decodedLength = decompressor.decode(batch.compression(), buf, from, length, batch.baseOffset());
                decoded = decompressor.buffer();
                decodedFrom = 0;
            }
        }
        cursor.reset(batch, decoded, decodedFrom, decodedFrom + decodedLength);
        return cursor;
    }

    /**
     * @return bytes of records the last {@link #records()} call exposed (after decompression), -1 before one; lets
     *         tests bound memory by what the data really holds
     */
    int decodedLength() {
        return decodedLength;
    }

    /**
     * @return bytes from the buffer's start up to the end of the last batch returned by
     *         {@link #nextBatch()}; once it returned null, all complete bytes in the buffer
     */
    public int completeBytes() {
        return next - start;
    }

    /**
     * @return true once {@link #nextBatch()} returned null because the buffer ends with an
     *         incomplete batch (normal: the broker cuts at its byte limit)
     */
    public boolean hasPartialBatch() {
        return partial;
    }

    /** @return bytes after the last complete batch returned so far (the partial batch, once at the end) */
    public int remainingBytes() {
        return limit - next;
    }

    private long crc(int index, int length) {
        CRC32C crc = crc32c;
        crc.reset();
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + index, length);
        } else if (buf.nioBufferCount() == 1) {
            crc.update(buf.nioBuffer(index, length));
        } else {
            for (ByteBuffer b : buf.nioBuffers(index, length)) {
                crc.update(b);
            }
        }
        return crc.getValue();
    }
}
