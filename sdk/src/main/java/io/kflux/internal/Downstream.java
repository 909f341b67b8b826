package io.kflux.internal;

import io.kflux.ConsumerRecord;
import io.kflux.RecordBatch;
import reactor.core.CoreSubscriber;

/**
 * Who a subscription's emitter hands records to: one record per unit of demand ({@code receive()}, {@code process()},
 * {@code receivePartitioned()}) or one partition's batch per unit ({@code receiveBatches()}). Exactly one of the two
 * subscribers is set.
 *
 * @param records  the per-record subscriber, or null
 * @param batches  the batch subscriber, or null
 * @param maxBatch at most this many records per batch ({@code max.poll.records}); unused for records
 * @param slice    0, or ({@code process()}) the records a fetched result emits before it gives way to another
 *                 partition's waiting result ({@link ResultRotation})
 */
record Downstream<K, V>(CoreSubscriber<? super ConsumerRecord<K, V>> records,
                        CoreSubscriber<? super RecordBatch<K, V>> batches, int maxBatch, int slice) {

    static <K, V> Downstream<K, V> records(CoreSubscriber<? super ConsumerRecord<K, V>> records) {
        return new Downstream<>(java.util.Objects.requireNonNull(records), null, 1, 0);
    }

    /** Records, with partitions taking turns every {@code slice} records ({@link ResultRotation}). */
    static <K, V> Downstream<K, V> inTurns(CoreSubscriber<? super ConsumerRecord<K, V>> records, int slice) {
        if (slice < 1) {
            throw new IllegalArgumentException("slice must be at least 1, was " + slice);
        }
        return new Downstream<>(java.util.Objects.requireNonNull(records), null, 1, slice);
    }

    static <K, V> Downstream<K, V> batches(CoreSubscriber<? super RecordBatch<K, V>> batches, int maxBatch) {
        return new Downstream<>(null, java.util.Objects.requireNonNull(batches), maxBatch, 0);
    }

    /** The one subscriber set: gets the subscription and the end. */
    CoreSubscriber<?> subscriber() {
        return records != null ? records : batches;
    }
}
