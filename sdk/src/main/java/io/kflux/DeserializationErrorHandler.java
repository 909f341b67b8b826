package io.kflux;

/**
 * Decides what the consumer does with a record whose key or value a {@link Deserializer} could not read (a "poison"
 * record), set with {@link ConsumerOptions#withDeserializationErrorHandler}. Without one, {@code receive()} ends with
 * the {@link RecordDeserializationException} and the position stays at that record (KIP-334's behaviour).
 *
 * <p>Skipping replaces the seek-past-it-and-resubscribe dance: the record is not emitted, consumption goes on with
 * the next record of the partition, and the skipped offset counts as consumed for acknowledgements and commits (it
 * never holds a commit back). Nothing but that one record is skipped.
 *
 * <pre>{@code
 * options.withDeserializationErrorHandler(e -> {
 *     poisonRecords.report(e.topicPartition(), e.offset(), e.getCause());
 *     return DeserializationErrorHandler.Decision.SKIP;
 * });
 * }</pre>
 *
 * The handler runs on the consumer's emitting thread, once per failing record, before any later record of that
 * partition is emitted; it must not block.
 */
@FunctionalInterface
public interface DeserializationErrorHandler {

    /** What to do with the record that failed. */
    enum Decision {
        /** Pass over the record as if it had been consumed and go on with the next one. */
        SKIP,
        /** End {@code receive()} with the {@link RecordDeserializationException}; the position stays at the record. */
        FAIL
    }

    /**
     * Decides about one record that failed to deserialize.
     *
     * @param error the failure: partition, offset, key or value ({@link RecordDeserializationException#origin()}),
     *              the deserializer's exception as the cause
     * @return {@link Decision#SKIP} or {@link Decision#FAIL}; {@code null} counts as {@code FAIL}
     */
    Decision handle(RecordDeserializationException error);

    /**
     * The default: every failure ends {@code receive()}.
     *
     * @return a handler that always answers {@link Decision#FAIL}
     */
    static DeserializationErrorHandler fail() {
        return DeserializationErrorHandlers.FAIL;
    }

    /**
     * Skips every record that fails to deserialize, logging each at WARN (logger
     * {@code io.kflux.DeserializationErrorHandler}) with its partition, offset and the deserializer's error.
     *
     * @return a handler that logs and answers {@link Decision#SKIP}
     */
    static DeserializationErrorHandler logAndSkip() {
        return DeserializationErrorHandlers.LOG_AND_SKIP;
    }
}
