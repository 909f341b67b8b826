package io.kflux;

import java.util.Objects;

/**
 * A {@link Deserializer} threw while turning a record's key or value into an object. The cause is the
 * deserializer's exception.
 *
 * <p>The consumer's position stays at {@link #offset()}: that record is not skipped unless the application
 * seeks past it (e.g. {@code seek(e.topicPartition(), e.offset() + 1)}). This mirrors KIP-334. To skip such records
 * and go on without ending {@code receive()}, set a {@link DeserializationErrorHandler}
 * ({@link ConsumerOptions#withDeserializationErrorHandler}).
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

    /**
     * Creates the error.
     *
     * @param topicPartition the record's partition, never {@code null}
     * @param offset         the record's offset
     * @param origin         key or value, never {@code null}
     * @param cause          what the deserializer threw
     * @throws NullPointerException if {@code topicPartition} or {@code origin} is {@code null}
     */
    public RecordDeserializationException(TopicPartition topicPartition, long offset, Origin origin, Throwable cause) {
        super("Error deserializing the " + origin.name().toLowerCase(java.util.Locale.ROOT) + " of the record at offset "
              + offset + " of partition " + topicPartition + ": " + (cause == null ? "" : cause), cause);
        this.topicPartition = Objects.requireNonNull(topicPartition, "topicPartition");
        this.offset = offset;
        this.origin = Objects.requireNonNull(origin, "origin");
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
