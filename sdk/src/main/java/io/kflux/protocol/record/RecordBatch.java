package io.kflux.protocol.record;

/**
 * Header of one record batch v2, as read (and CRC-checked) by {@link RecordsReader}. Immutable and
 * detached from the network buffer, so the fetch layer may keep it (for example to track
 * transactions) after the buffer is released. Records are read through
 * {@link RecordsReader#records()}.
 *
 * <p>Timestamps are epoch milliseconds; -1 means "no timestamp".
 */
public final class RecordBatch {
    /** Size of the batch header: offset of the first record from the start of the batch. */
    public static final int HEADER_SIZE = 61;
    /** Bytes preceding the batchLength-counted part: baseOffset(8) + batchLength(4). */
    public static final int LOG_OVERHEAD = 12;
    /** The only supported magic. */
    public static final byte MAGIC_V2 = 2;
    /** producerId of batches written without an idempotent or transactional producer. */
    public static final long NO_PRODUCER_ID = -1L;

    private static final int COMPRESSION_MASK = 0x07;
    private static final int TIMESTAMP_TYPE_MASK = 0x08;
    private static final int TRANSACTIONAL_MASK = 0x10;
    private static final int CONTROL_MASK = 0x20;
    private static final int DELETE_HORIZON_MASK = 0x40;

    private final int position;
    private final long baseOffset;
    private final int batchLength;
    private final int partitionLeaderEpoch;
    private final long crc;
    private final short attributes;
    private final int lastOffsetDelta;
    private final long baseTimestamp;
    private final long maxTimestamp;
    private final long producerId;
    private final short producerEpoch;
    private final int baseSequence;
    private final int recordCount;
    private final Compression compression;

    RecordBatch(int position, long baseOffset, int batchLength, int partitionLeaderEpoch, long crc,
                short attributes, int lastOffsetDelta, long baseTimestamp, long maxTimestamp,
                long producerId, short producerEpoch, int baseSequence, int recordCount,
                Compression compression) {
        this.position = position;
        this.baseOffset = baseOffset;
        this.batchLength = batchLength;
        this.partitionLeaderEpoch = partitionLeaderEpoch;
        this.crc = crc;
        this.attributes = attributes;
        this.lastOffsetDelta = lastOffsetDelta;
        this.baseTimestamp = baseTimestamp;
        this.maxTimestamp = maxTimestamp;
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.baseSequence = baseSequence;
        this.recordCount = recordCount;
        this.compression = compression;
    }

    static Compression compressionOf(short attributes) {
        return Compression.forId(attributes & COMPRESSION_MASK);
    }

    /** @return byte position of this batch relative to the reader index of the decoded buffer */
    public int position() {
        return position;
    }

    /** @return offset of the first record of the batch (also when compaction removed it) */
    public long baseOffset() {
        return baseOffset;
    }

    /** @return offset of the last record the producer wrote in this batch */
    public long lastOffset() {
        return baseOffset + lastOffsetDelta;
    }

    /** @return {@code lastOffset() + 1}: where the partition position moves after this batch */
    public long nextOffset() {
        return lastOffset() + 1;
    }

    /** @return lastOffset - baseOffset */
    public int lastOffsetDelta() {
        return lastOffsetDelta;
    }

    /** @return the batchLength field: bytes after the length field up to the end of the batch */
    public int batchLength() {
        return batchLength;
    }

    /** @return total bytes of the batch on the wire, {@code batchLength() + 12} */
    public int sizeInBytes() {
        return batchLength + LOG_OVERHEAD;
    }

    /** @return leader epoch stamped by the broker, or -1 */
    public int partitionLeaderEpoch() {
        return partitionLeaderEpoch;
    }

    /** @return always 2 */
    public byte magic() {
        return MAGIC_V2;
    }

    /** @return the stored CRC32C (unsigned 32-bit, in a long), already verified when checking is on */
    public long crc() {
        return crc;
    }

    /** @return the raw attributes field */
    public short attributes() {
        return attributes;
    }

    /** @return codec of the records section */
    public Compression compression() {
        return compression;
    }

    /** @return how to read the timestamps */
    public TimestampType timestampType() {
        return (attributes & TIMESTAMP_TYPE_MASK) == 0 ? TimestampType.CREATE_TIME : TimestampType.LOG_APPEND_TIME;
    }

    /** @return true when written inside a producer transaction */
    public boolean isTransactional() {
        return (attributes & TRANSACTIONAL_MASK) != 0;
    }

    /** @return true for control batches (transaction markers): never emitted to applications */
    public boolean isControl() {
        return (attributes & CONTROL_MASK) != 0;
    }

    /** @return true when {@link #baseTimestamp()} holds the compaction delete horizon */
    public boolean hasDeleteHorizon() {
        return (attributes & DELETE_HORIZON_MASK) != 0;
    }

    /** @return the delete horizon (epoch ms) when {@link #hasDeleteHorizon()}, otherwise -1 */
    public long deleteHorizonMs() {
        return hasDeleteHorizon() ? baseTimestamp : -1L;
    }

    /** @return the timestamp record timestamp deltas are relative to (epoch ms) */
    public long baseTimestamp() {
        return baseTimestamp;
    }

    /** @return largest record timestamp, or the log append time for LOG_APPEND_TIME batches */
    public long maxTimestamp() {
        return maxTimestamp;
    }

    /** @return producer id, or -1 ({@link #NO_PRODUCER_ID}) */
    public long producerId() {
        return producerId;
    }

    /** @return producer epoch, or -1 */
    public short producerEpoch() {
        return producerEpoch;
    }

    /** @return sequence number of the first record, or -1 */
    public int baseSequence() {
        return baseSequence;
    }

    /** @return number of records the header declares (may be fewer than lastOffsetDelta + 1 after compaction) */
    public int recordCount() {
        return recordCount;
    }

    @Override
    public String toString() {
        return "RecordBatch(baseOffset=" + baseOffset + ", lastOffset=" + lastOffset()
                + ", records=" + recordCount + ", size=" + sizeInBytes()
                + ", compression=" + compression + ", timestampType=" + timestampType()
                + ", transactional=" + isTransactional() + ", control=" + isControl()
                + ", producerId=" + producerId + ", producerEpoch=" + producerEpoch
                + ", leaderEpoch=" + partitionLeaderEpoch + ")";
    }
}
