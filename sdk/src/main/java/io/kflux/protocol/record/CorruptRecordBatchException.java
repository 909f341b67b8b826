package io.kflux.protocol.record;

/**
 * A record batch failed validation: CRC32C mismatch, impossible lengths, varints running past the
 * end of their record, a record count that does not match the data, or a compressed stream that
 * cannot be decompressed. The fetch layer must not move the position past this batch.
 */
public class CorruptRecordBatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long baseOffset;

    /**
     * @param baseOffset base offset of the batch, as read from its header
     * @param message what is wrong, with the expected and actual values
     */
    public CorruptRecordBatchException(long baseOffset, String message) {
        super(message);
        this.baseOffset = baseOffset;
    }

    /**
     * @param baseOffset base offset of the batch, as read from its header
     * @param message what is wrong
     * @param cause the codec's own error, when decompression failed
     */
    public CorruptRecordBatchException(long baseOffset, String message, Throwable cause) {
        super(message, cause);
        this.baseOffset = baseOffset;
    }

    /** @return base offset of the corrupt batch, as read from its header (itself possibly corrupt) */
    public long baseOffset() {
        return baseOffset;
    }
}
