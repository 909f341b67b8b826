package io.kflux;

/**
 * The answer to a timestamp lookup ({@link KafkaFluxConsumer#offsetsForTimes}, ListOffsets in the Kafka
 * protocol): the earliest offset whose record timestamp is at or after the requested timestamp.
 *
 * @param offset    offset of that record (seeking there makes it the next record read), {@code >= 0}
 * @param timestamp that record's timestamp, ms since the Unix epoch, {@code >= 0}
 */
public record OffsetAndTimestamp(long offset, long timestamp) {

    /**
     * Creates a lookup result.
     *
     * @param offset the offset
     * @param timestamp the timestamp, ms since the Unix epoch
     * @throws IllegalArgumentException if {@code offset} or {@code timestamp} is negative (the broker answers
     *                                  -1 when no such record exists; that case is an absent map entry)
     */
    public OffsetAndTimestamp {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        }
        if (timestamp < 0) {
            throw new IllegalArgumentException("timestamp must be >= 0, was " + timestamp);
        }
    }
}
