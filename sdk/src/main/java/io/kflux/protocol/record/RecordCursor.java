package io.kflux.protocol.record;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Forward-only cursor over the records of one batch. Moving it allocates nothing: the current
 * record is described by positions into a heap array shared by key, value and headers.
 *
 * <pre>{@code
 * RecordCursor c = reader.records();
 * while (c.nextAtOrAfter(fetchOffset)) {
 *     emit(c.offset(), c.timestamp(), c.keyBytes(), c.valueBytes(), c.headers());
 * }
 * }</pre>
 *
 * <p><b>Lifetime:</b> the arrays returned by {@link #keyArray()} / {@link #valueArray()} belong to
 * the owning {@link RecordsReader} or to the buffer it reads (uncompressed batches of a heap buffer
 * are read in place); they are overwritten when the reader decodes another batch
 * ({@code nextBatch()} followed by {@code records()}) or is reset, and go with the buffer when it
 * is released (a response frame's array then carries the next large response: reading it after the release reads
 * another response's bytes). Copy or deserialize what you need before that. The cursor itself is reused by its
 * reader for every batch. Not thread-safe.
 *
 * <p>Every record is fully validated as the cursor moves (lengths within the record, the record
 * length matching its content, the declared record count matching the data); any violation
 * throws {@link CorruptRecordBatchException}.
 */
public final class RecordCursor {
    private RecordBatch batch;
    private byte[] data;
    private int pos;
    private int end;
    private int remaining;
    private int index;
    /** Offset delta of the record before the current one; -1 before the first. */
    private int previousOffsetDelta;
    private long baseOffset;
    private long baseTimestamp;
    private boolean logAppendTime;
    private long maxTimestamp;

    private boolean onRecord;
    private int recordStart;
    private int sizeInBytes;
    private byte attributes;
    private long offset;
    private long timestamp;
    private int keyOffset;
    private int keyLength;
    private int valueOffset;
    private int valueLength;
    private int headerCount;
    /** Where the current record's header count starts: its {@link HeaderSection} runs from here to its end. */
    private int headerSectionOffset;

    RecordCursor() {
    }

    void reset(RecordBatch batch, byte[] data, int from, int to) {
        this.batch = batch;
        this.data = data;
        this.pos = from;
        this.end = to;
        this.remaining = batch.recordCount();
        this.index = 0;
        this.previousOffsetDelta = -1;
        this.baseOffset = batch.baseOffset();
        this.baseTimestamp = batch.baseTimestamp();
        this.logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME;
        this.maxTimestamp = batch.maxTimestamp();
        this.onRecord = false;
    }

    /** @return the batch this cursor walks */
    public RecordBatch batch() {
        return batch;
    }

    /**
     * Moves to the next record.
     *
     * @return false when the batch has no more records
     * @throws CorruptRecordBatchException if the record is malformed, its offset is not above the previous
     *         record's or lies past the batch's last offset, the data ends before the declared record count, or
     *         bytes remain after it
     */
    public boolean next() {
        if (remaining == 0) {
            onRecord = false;
            if (pos != end) {
                throw corrupt("batch declares " + batch.recordCount() + " records but " + (end - pos)
                        + " bytes remain after them");
            }
            return false;
        }
        int start = pos;
        int length = readVarint(end);
        if (length < 0 || length > end - pos) {
            throw corrupt("record " + index + " has length " + length + " but only " + (end - pos)
                    + " bytes remain" + (index < batch.recordCount() ? " (batch declares "
                    + batch.recordCount() + " records)" : ""));
        }
        int recordEnd = pos + length;
        if (pos >= recordEnd) {
            throw corrupt("record " + index + " is empty");
        }
        byte attrs = data[pos++];
        long timestampDelta = readVarlong(recordEnd);
        int offsetDelta = readVarint(recordEnd);
        if (offsetDelta <= previousOffsetDelta || offsetDelta > batch.lastOffsetDelta()) {
            // Offsets only grow inside a batch (compaction leaves gaps, never reorders) and end at the header's last
            // offset. A record out of that order could only be emitted by passing over the ones it jumped, or
            // skipped as already seen: both lose data, so the batch is refused instead.
            throw corrupt("record " + index + " has offset delta " + offsetDelta + " after "
                    + previousOffsetDelta + " (last offset delta " + batch.lastOffsetDelta() + ")");
        }

        int kLen = readVarint(recordEnd);
        int kOff = pos;
        skipBytes(kLen, recordEnd, "key");
        int vLen = readVarint(recordEnd);
        int vOff = pos;
        skipBytes(vLen, recordEnd, "value");

        int hSection = pos;
        int hCount = readVarint(recordEnd);
        if (hCount < 0) {
            throw corrupt("record " + index + " has negative header count " + hCount);
        }
        for (int i = 0; i < hCount; i++) {
            int hk = readVarint(recordEnd);
            if (hk < 0) {
                throw corrupt("record " + index + " header " + i + " has null or negative key length " + hk);
            }
            skipBytes(hk, recordEnd, "header key");
            skipBytes(readVarint(recordEnd), recordEnd, "header value");
        }
        if (pos != recordEnd) {
            throw corrupt("record " + index + " declares " + length + " bytes but its fields use "
                    + (pos - (recordEnd - length)));
        }

        this.recordStart = start;
        this.sizeInBytes = recordEnd - start;
        this.attributes = attrs;
        this.offset = baseOffset + offsetDelta;
        this.previousOffsetDelta = offsetDelta;
        this.timestamp = logAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
        this.keyOffset = kOff;
        this.keyLength = kLen;
        this.valueOffset = vOff;
        this.valueLength = vLen;
        this.headerCount = hCount;
        this.headerSectionOffset = hSection;
        this.onRecord = true;
        remaining--;
        index++;
        return true;
    }

    /**
     * Moves to the next record whose offset is at least {@code minOffset}, skipping (but still
     * validating) the ones before. Used because the broker returns the whole batch that contains
     * the fetch offset.
     *
     * @param minOffset the first offset of interest (the fetch position)
     * @return false when no such record remains in the batch
     * @throws CorruptRecordBatchException as {@link #next()}
     */
    public boolean nextAtOrAfter(long minOffset) {
        while (next()) {
            if (offset >= minOffset) {
                return true;
            }
        }
        return false;
    }

    /** @return records not yet visited */
    public int remaining() {
        return remaining;
    }

    /** @return offset of the current record */
    public long offset() {
        check();
        return offset;
    }

    /**
     * @return timestamp of the current record in epoch ms; for LOG_APPEND_TIME batches the batch
     *         max timestamp (the broker's append time)
     */
    public long timestamp() {
        check();
        return timestamp;
    }

    /** @return the record attributes byte (unused by Kafka so far) */
    public byte attributes() {
        check();
        return attributes;
    }

    /** @return size of the current record on the wire, including its length varint */
    public int sizeInBytes() {
        check();
        return sizeInBytes;
    }

    /** @return position of the current record's first byte (its length varint) in the backing array */
    public int recordPosition() {
        check();
        return recordStart;
    }

    /** @return the backing array holding the key; see the lifetime rule in the class doc */
    public byte[] keyArray() {
        check();
        return data;
    }

    /** @return start of the key in {@link #keyArray()} (meaningless when the key is null) */
    public int keyOffset() {
        check();
        return keyOffset;
    }

    /** @return key length in bytes, -1 when the key is null */
    public int keyLength() {
        check();
        return keyLength;
    }

    /** @return a fresh copy of the key, or null */
    public byte[] keyBytes() {
        check();
        return keyLength < 0 ? null : Arrays.copyOfRange(data, keyOffset, keyOffset + keyLength);
    }

    /** @return the backing array holding the value; see the lifetime rule in the class doc */
    public byte[] valueArray() {
        check();
        return data;
    }

    /** @return start of the value in {@link #valueArray()} (meaningless when the value is null) */
    public int valueOffset() {
        check();
        return valueOffset;
    }

    /** @return value length in bytes, -1 when the value is null (a tombstone) */
    public int valueLength() {
        check();
        return valueLength;
    }

    /** @return a fresh copy of the value, or null */
    public byte[] valueBytes() {
        check();
        return valueLength < 0 ? null : Arrays.copyOfRange(data, valueOffset, valueOffset + valueLength);
    }

    /** @return number of headers of the current record */
    public int headerCount() {
        check();
        return headerCount;
    }

    /** Receives the headers of a record, one call per header in wire order. */
    @FunctionalInterface
    public interface HeaderVisitor {
        /**
         * @param index position of the header in the record, from 0
         * @param key   the header key, decoded as UTF-8
         * @param value a copy of the value bytes (the caller may keep it), or null
         */
        void header(int index, String key, byte[] value);
    }

    /**
     * Copies the headers out of the batch.
     *
     * @return the headers in wire order; an immutable empty list (no allocation) when there are none
     */
    public List<RecordHeader> headers() {
        if (headerCount() == 0) {
            return List.of();
        }
        List<RecordHeader> headers = new ArrayList<>(headerCount);
        forEachHeader((i, key, value) -> headers.add(new RecordHeader(key, value)));
        return headers;
    }

    /**
     * Copies each header out of the batch straight to {@code visitor}, in wire order.
     */
    public void forEachHeader(HeaderVisitor visitor) {
        check();
        // next() validated the section, so the reader's checks cannot fail here
        HeaderSection.forEach(data, headerSectionOffset, recordStart + sizeInBytes, visitor);
    }

    /**
     * Copies the current record's headers out of the batch in their wire form, count included: one array the
     * {@link HeaderSection} reads later, when and if the headers are asked for.
     *
     * @return a fresh array the caller may keep; valid for {@link HeaderSection} as next() validated it
     */
    public byte[] copyHeaderSection() {
        check();
        return Arrays.copyOfRange(data, headerSectionOffset, recordStart + sizeInBytes);
    }

    /**
     * Reads the control record type from the current record's key. Only meaningful in control
     * batches ({@link RecordBatch#isControl()}).
     *
     * @return ABORT, COMMIT, or UNKNOWN for other types
     * @throws CorruptRecordBatchException if the key is null, shorter than 4 bytes or has a
     *         negative version
     */
    public ControlRecordType controlType() {
        return ControlRecordType.forId(controlTypeId());
    }

    /**
     * @return the raw type field of the control record key (0 ABORT, 1 COMMIT, others for KRaft)
     * @throws CorruptRecordBatchException as {@link #controlType()}
     */
    public int controlTypeId() {
        check();
        if (keyLength < 4) {
            throw corrupt("control record at offset " + offset + " has a key of " + keyLength
                    + " bytes; at least 4 (version int16, type int16) are required");
        }
        short version = (short) (((data[keyOffset] & 0xFF) << 8) | (data[keyOffset + 1] & 0xFF));
        if (version < 0) {
            throw corrupt("control record at offset " + offset + " has negative key version " + version);
        }
        return (short) (((data[keyOffset + 2] & 0xFF) << 8) | (data[keyOffset + 3] & 0xFF));
    }

    private void check() {
        if (!onRecord) {
            throw new IllegalStateException("cursor is not on a record: call next() first");
        }
    }

    private void skipBytes(int length, int limit, String what) {
        if (length < -1 || length > limit - pos) {
            throw corrupt("record " + index + " has " + what + " length " + length + " but only "
                    + (limit - pos) + " bytes remain in the record");
        }
        if (length > 0) {
            pos += length;
        }
    }

    /** Reads a zigzag varint of at most 5 bytes that must end before {@code limit}. */
    private int readVarint(int limit) {
        // most record fields fit one or two bytes (a 100-byte record's length, value length and an offset delta
        // below 8192 take two): read those without entering the loop
        int p = pos;
        if (p < limit) {
            int b0 = data[p];
            if (b0 >= 0) {
                pos = p + 1;
                return (b0 >>> 1) ^ -(b0 & 1);
            }
            if (p + 1 < limit) {
                int b1 = data[p + 1];
                if (b1 >= 0) {
                    pos = p + 2;
                    int raw = (b0 & 0x7F) | (b1 << 7);
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
        }
        return readLongVarint(limit);
    }

    /** {@link #readVarint} past its one- and two-byte forms, and every error. */
    private int readLongVarint(int limit) {
        int raw = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (pos >= limit) {
                throw corrupt("varint in record " + index + " runs past the end of its data");
            }
            byte b = data[pos++];
            raw |= (b & 0x7F) << shift;
            if (b >= 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw corrupt("varint in record " + index + " is longer than 5 bytes");
    }

    /** Reads a zigzag varlong of at most 10 bytes that must end before {@code limit}. */
    private long readVarlong(int limit) {
        if (pos < limit && data[pos] >= 0) {
            long raw = data[pos++];
            return (raw >>> 1) ^ -(raw & 1);
        }
        long raw = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (pos >= limit) {
                throw corrupt("varlong in record " + index + " runs past the end of its data");
            }
            byte b = data[pos++];
            raw |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw corrupt("varlong in record " + index + " is longer than 10 bytes");
    }

    private CorruptRecordBatchException corrupt(String message) {
        return new CorruptRecordBatchException(baseOffset, "corrupt record batch at offset " + baseOffset
                + ": " + message);
    }
}
