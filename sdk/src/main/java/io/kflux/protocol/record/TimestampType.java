package io.kflux.protocol.record;

/**
 * Meaning of the timestamps of a record batch (bit 3 of the batch attributes). Internal twin of
 * the public {@code io.kflux.TimestampType}.
 */
public enum TimestampType {
    /** Timestamps were set by the producer; each record has its own. */
    CREATE_TIME,
    /** The broker stamped the batch on append; every record's timestamp is the batch max timestamp. */
    LOG_APPEND_TIME
}
