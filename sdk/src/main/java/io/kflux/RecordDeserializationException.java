package io.kflux;

import java.util.Objects;

/**
 * A {@link Deserializer} threw while turning a record's key or value into an object. The cause is the
 * deserializer's exception.
 *
 * <p>The consumer's position stays at {@link #offset()}: that record is not skipped unless the application
 * seeks past it (e.g. {@code seek(e.topicPartition(), e.offset() + 1)}). This mirrors KIP-334. To skip such records
 * and go on without ending {@code receive()}, set a {@link DeserializationErrorHandler}
 * ({@link ConsumerOptions#withDeserializationErrorHandler}). The record's key and value bytes, headers and
 * timestamp come with the error ({@link #keyBuffer()}, {@link #valueBuffer()}, ...), as with the official client
 * (KIP-1036): copies, made only for a failing record.
 */
public class RecordDeserializationException extends KafkaFluxException {

    private static final long serialVersionUID = 1L;

    /** Which part of the record failed to deserialize. */
    public enum Origin {
        /** The key deserializer threw. */
        KEY,
        /** The value deserializer threw. */
        VALUE
    }

    /** The record's partition. */
    private final TopicPartition topicPartition;
    /** The record's offset. */
    private final long offset;
    /** Key or value. */
    private final Origin origin;

    /** The record's key as it was on the wire (a copy), or null for a null key. */
    private final byte[] key;
    /** The record's value as it was on the wire (a copy), or null for a null value. */
    private final byte[] value;
    /** The record's headers; transient: not every header value is worth serializing with the error. */
    private final transient Headers headers;
    private final long timestamp;
    private final TimestampType timestampType;

    /**
     * Creates the error without the record's data ({@link #keyBuffer()} and {@link #valueBuffer()} are null,
     * {@link #headers()} empty, {@link #timestamp()} {@link ConsumerRecord#NO_TIMESTAMP}).
     *
     * @param topicPartition the record's partition, never {@code null}
     * @param offset         the record's offset
     * @param origin         key or value, never {@code null}
     * @param cause          what the deserializer threw
     * @throws NullPointerException if {@code topicPartition} or {@code origin} is {@code null}
     */
    public RecordDeserializationException(TopicPartition topicPartition, long offset, Origin origin, Throwable cause) {
        this(topicPartition, offset, origin, cause, null, null, Headers.empty(), -1L, // ConsumerRecord.NO_TIMESTAMP
                TimestampType.NO_TIMESTAMP_TYPE);
    }

    /**
     * Creates the error with the record's data as it was on the wire, as the official client's carries it (KIP-1036),
     * so that a handler can forward the record to a dead-letter topic unchanged. The consumer passes copies: the
     * error holds them for as long as it is referenced, independent of the consumer's buffers.
     *
     * @param topicPartition the record's partition, never {@code null}
     * @param offset         the record's offset
     * @param origin         key or value, never {@code null}
     * @param cause          what the deserializer threw
     * @param key            the key's bytes, null for a null key; kept as given (not copied again)
     * @param value          the value's bytes, null for a null value; kept as given
     * @param headers        the record's headers, {@code null} is taken as {@link Headers#empty()}
     * @param timestamp      ms since the Unix epoch, or {@link ConsumerRecord#NO_TIMESTAMP}
     * @param timestampType  meaning of the timestamp, never {@code null}
     * @throws NullPointerException if {@code topicPartition}, {@code origin} or {@code timestampType} is {@code null}
     */
    public RecordDeserializationException(TopicPartition topicPartition, long offset, Origin origin, Throwable cause,
                                          byte[] key, byte[] value, Headers headers, long timestamp,
                                          TimestampType timestampType) {
        // the message names where the record is, never its data (which may be personal)
        super("Error deserializing the " + origin.name().toLowerCase(java.util.Locale.ROOT) + " of the record at offset "
              + offset + " of partition " + topicPartition + ": " + (cause == null ? "" : cause), cause);
        this.topicPartition = Objects.requireNonNull(topicPartition, "topicPartition");
        this.offset = offset;
        this.origin = Objects.requireNonNull(origin, "origin");
        this.key = key;
        this.value = value;
        this.headers = headers == null ? Headers.empty() : headers;
        this.timestamp = timestamp;
        this.timestampType = Objects.requireNonNull(timestampType, "timestampType");
    }

    /**
     * The record's key as it was on the wire (after decompression), as the official client's {@code keyBuffer()}.
     *
     * @return a read-only buffer over the error's copy of the bytes (a new buffer per call, positioned at 0), or
     *         {@code null} for a null key or when the error was created without the record's data
     */
    public java.nio.ByteBuffer keyBuffer() {
        return key == null ? null : java.nio.ByteBuffer.wrap(key).asReadOnlyBuffer();
    }

    /**
     * The record's value as it was on the wire (after decompression), as the official client's {@code valueBuffer()}.
     *
     * @return a read-only buffer over the error's copy of the bytes (a new buffer per call, positioned at 0), or
     *         {@code null} for a null value or when the error was created without the record's data
     */
    public java.nio.ByteBuffer valueBuffer() {
        return value == null ? null : java.nio.ByteBuffer.wrap(value).asReadOnlyBuffer();
    }

    /**
     * The record's headers.
     *
     * @return the headers; empty when there are none, when the error was created without the record's data, or
     *         after the error was deserialized (they are not serialized)
     */
    public Headers headers() {
        return headers == null ? Headers.empty() : headers;
    }

    /**
     * The record's timestamp.
     *
     * @return ms since the Unix epoch, or {@link ConsumerRecord#NO_TIMESTAMP}
     */
    public long timestamp() {
        return timestamp;
    }

    /**
     * The meaning of {@link #timestamp()}.
     *
     * @return the timestamp type, {@link TimestampType#NO_TIMESTAMP_TYPE} without the record's data
     */
    public TimestampType timestampType() {
        return timestampType;
    }

    /**
     * The partition of the record that failed.
     *
     * @return the partition
     */
    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /**
     * The topic of the record that failed.
     *
     * @return the topic name
     */
    public String topic() {
        return topicPartition.topic();
    }

    /**
     * The partition index of the record that failed.
     *
     * @return the partition index
     */
    public int partition() {
        return topicPartition.partition();
    }

    /**
     * The offset of the record that failed (also the consumer's position for that partition).
     *
     * @return the offset
     */
    public long offset() {
        return offset;
    }

    /**
     * Whether the key or the value failed.
     *
     * @return the origin
     */
    public Origin origin() {
        return origin;
    }
}
