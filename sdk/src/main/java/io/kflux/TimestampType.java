package io.kflux;

/**
 * What a record's timestamp means. Record batch format v2 stores it in bit 3 of the batch attributes
 * (0 = create time, 1 = log append time); the broker sets it from the topic's {@code message.timestamp.type}.
 */
public enum TimestampType {
    /** The record carries no timestamp (only for records built by hand, e.g. in tests; format v2 always has one). */
    NO_TIMESTAMP_TYPE(-1, "NoTimestampType"),
    /** The timestamp was set by the producer when the record was created. */
    CREATE_TIME(0, "CreateTime"),
    /** The timestamp was set by the broker when it appended the batch to the log. */
    LOG_APPEND_TIME(1, "LogAppendTime");

    private final int id;
    private final String displayName;

    TimestampType(int id, String displayName) {
        this.id = id;
        this.displayName = displayName;
    }

    /**
     * Returns the numeric id: -1, or the value of the timestamp-type attribute bit (0 or 1).
     *
     * @return -1, 0 or 1
     */
    public int id() {
        return id;
    }

    /**
     * Returns the name Kafka's tools print ({@code CreateTime}, {@code LogAppendTime}, {@code NoTimestampType}).
     *
     * @return the display name
     */
    public String displayName() {
        return displayName;
    }

    /**
     * Maps the batch attribute bit to a type.
     *
     * @param logAppendTimeBitSet whether bit 3 of the record batch attributes is set
     * @return {@link #LOG_APPEND_TIME} when set, otherwise {@link #CREATE_TIME}
     */
    public static TimestampType fromAttributeBit(boolean logAppendTimeBitSet) {
        return logAppendTimeBitSet ? LOG_APPEND_TIME : CREATE_TIME;
    }

    /**
     * Looks a type up by {@link #id()}.
     *
     * @param id -1, 0 or 1
     * @return the type
     * @throws IllegalArgumentException for any other id
     */
    public static TimestampType forId(int id) {
        switch (id) {
            case -1: return NO_TIMESTAMP_TYPE;
            case 0: return CREATE_TIME;
            case 1: return LOG_APPEND_TIME;
            default: throw new IllegalArgumentException("unknown timestamp type id " + id);
        }
    }
}
