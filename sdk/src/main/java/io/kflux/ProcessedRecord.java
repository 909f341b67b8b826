package io.kflux;

import java.time.Duration;
import java.util.Objects;

/**
 * What {@link KafkaFluxConsumer#process} emits for each record it finished with: the record, how many times its
 * handler was called, how it ended, and how long that took. When it is emitted the record was already acknowledged.
 *
 * @param record   the record
 * @param attempts calls of the handler, 1 when the first call succeeded (at most 1 + the retries of
 *                 {@link ProcessingOptions#retry(int, Duration)})
 * @param outcome  how it ended
 * @param duration from the first call of the handler to the outcome (retries, backoffs and the failure handler
 *                 included)
 * @param <K>      key type
 * @param <V>      value type
 */
public record ProcessedRecord<K, V>(ConsumerRecord<K, V> record, int attempts, Outcome outcome, Duration duration) {

    /** How a record's processing ended. */
    public enum Outcome {
        /** The handler's publisher completed. */
        PROCESSED,
        /** Every attempt failed and the failure handler ({@link ProcessingOptions#onFailure}) completed. */
        FAILED_HANDLED,
        /** Every attempt failed and the record was skipped ({@link ProcessingOptions#skipFailures()}). */
        SKIPPED
    }

    /**
     * @throws NullPointerException for a null record, outcome or duration
     * @throws IllegalArgumentException for attempts below 1
     */
    public ProcessedRecord {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(duration, "duration");
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, was " + attempts);
        }
    }
}
