package io.kflux.internal;

import io.kflux.TopicPartition;
import reactor.core.publisher.Mono;

/**
 * The consumer side of {@link io.kflux.ConsumerRecord#acknowledge()} and {@link io.kflux.ConsumerRecord#commit()}.
 * Not API: implemented by the consumer's commit layer, one instance per assignment of a partition (records only
 * hold a reference, so the per-record cost is one field), so an acknowledgement reaches the assignment its record
 * was emitted under.
 *
 * <p>Offsets passed here are the offset <em>of the record</em>; the committable position derived from it is
 * {@code offset + 1} (the next offset to read), once every earlier emitted record of the partition has been
 * acknowledged too.
 */
public interface AckHandle {

    /**
     * Marks the record at {@code offset} of {@code tp} as processed. Must be cheap and non-blocking, callable
     * from any thread, and idempotent; acknowledging a record of a partition no longer assigned is ignored.
     *
     * @param tp     the record's partition
     * @param offset the record's offset
     */
    void acknowledge(TopicPartition tp, long offset);

    /**
     * Acknowledges the record at {@code offset} and commits the committable positions; called lazily, when the
     * returned {@code Mono} is subscribed.
     *
     * @param tp     the record's partition
     * @param offset the record's offset
     * @return completes when the coordinator accepted the commit; errors as
     *         {@link io.kflux.KafkaFluxConsumer#commit()} does
     */
    Mono<Void> commit(TopicPartition tp, long offset);
}
