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
 */
record Downstream<K, V>(CoreSubscriber<? super ConsumerRecord<K, V>> records,
                        CoreSubscriber<? super RecordBatch<K, V>> batches, int maxBatch) {

    static <K, V> Downstream<K, V> records(CoreSubscriber<? super ConsumerRecord<K, V>> records) {
        return new Downstream<>(java.util.Objects.requireNonNull(records), null, 1);
    }

    static <K, V> Downstream<K, V> batches(CoreSubscriber<? super RecordBatch<K, V>> batches, int maxBatch) {
        return new Downstream<>(null, java.util.Objects.requireNonNull(batches), maxBatch);
    }

    /** The one subscriber set: gets the subscription and the end. */
    CoreSubscriber<?> subscriber() {
        return records != null ? records : batches;
    }
}
