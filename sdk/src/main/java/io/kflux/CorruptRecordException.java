package io.kflux;

/**
 * A fetched record batch failed validation: CRC32C mismatch (checked when {@code check.crcs=true}), a length
 * or count that does not fit the bytes received, or a batch that cannot be decompressed (record batch format
 * v2, see the protocol spec "Record Batch").
 *
 * <p>Not retriable: the same bytes come back on the next fetch. The consumer does not move its position past
 * the batch; the application may {@link KafkaFluxConsumer#seek seek} past it.
 */
public class CorruptRecordException extends KafkaFluxException {

    private static final long serialVersionUID = 1L;

    /** Partition of the batch, null when unknown. */
    private final TopicPartition topicPartition;
    /** Base offset of the batch, -1 when unknown. */
    private final long offset;

    /**
     * Creates the error when the partition is not known (e.g. inside a decoder).
     *
     * @param message what was wrong
     */
    public CorruptRecordException(String message) {
        this(null, -1L, message, null);
    }

    /**
     * Creates the error with its location.
     *
     * @param topicPartition the partition of the batch, may be {@code null} when unknown
     * @param offset         the base offset of the corrupt batch, or -1 when unknown
     * @param message        what was wrong
     * @param cause          the underlying error (e.g. from a decompressor), may be {@code null}
     */
    public CorruptRecordException(TopicPartition topicPartition, long offset, String message, Throwable cause) {
        super(topicPartition == null ? message : message + " (partition " + topicPartition + ", offset " + offset + ")",
              cause);
        this.topicPartition = topicPartition;
        this.offset = offset;
    }

    /**
     * The partition of the corrupt batch.
     *
     * @return the partition, or {@code null} when unknown
     */
    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /**
     * The base offset of the corrupt batch.
     *
     * @return the offset, or -1 when unknown
     */
    public long offset() {
        return offset;
    }
}
