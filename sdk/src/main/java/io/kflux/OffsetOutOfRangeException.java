package io.kflux;

import java.util.Map;

/**
 * The position of one or more partitions is outside the log (error OFFSET_OUT_OF_RANGE, code 1, in a Fetch
 * response; e.g. the records were deleted by retention) and {@code auto.offset.reset=none}, so the consumer
 * may not pick a new position itself. With {@code earliest}, {@code latest} or {@code by_duration:...} the
 * consumer resets instead and this error is not raised.
 *
 * <p>{@code receive()} terminates with it; seek the partitions to a valid position and subscribe again.
 */
public class OffsetOutOfRangeException extends KafkaFluxException {

    private static final long serialVersionUID = 1L;

    /** Out-of-range positions per partition. */
    private final Map<TopicPartition, Long> offsets;

    /**
     * Creates the error.
     *
     * @param offsets for each affected partition, the out-of-range position (next offset to read); copied
     */
    public OffsetOutOfRangeException(Map<TopicPartition, Long> offsets) {
        this("Fetch position out of range and auto.offset.reset=none for " + offsets, offsets);
    }

    /**
     * Creates the error with its own message (for subclasses).
     *
     * @param message what happened
     * @param offsets for each affected partition, the position (next offset to read); copied
     */
    protected OffsetOutOfRangeException(String message, Map<TopicPartition, Long> offsets) {
        super(message);
        this.offsets = Map.copyOf(offsets);
    }

    /**
     * The affected partitions and their out-of-range positions.
     *
     * @return an unmodifiable map from partition to the position (next offset to read) that was out of range
     */
    public Map<TopicPartition, Long> offsets() {
        return offsets;
    }

    /**
     * Same as {@link #offsets()}, under the name of the official client's accessor.
     *
     * @return an unmodifiable map from partition to out-of-range position
     */
    public Map<TopicPartition, Long> offsetOutOfRangePartitions() {
        return offsets;
    }
}
