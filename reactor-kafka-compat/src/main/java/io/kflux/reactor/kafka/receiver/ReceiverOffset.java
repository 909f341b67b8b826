package io.kflux.reactor.kafka.receiver;

import org.apache.kafka.common.TopicPartition;
import reactor.core.publisher.Mono;

/**
 * Where a {@link ReceiverRecord} sits, and the handle to mark it processed.
 *
 * <p>kflux commits the <em>contiguous</em> acknowledged prefix of each partition: acknowledging offset 7 before 6
 * commits nothing past 6 until 6 is acknowledged too (reactor-kafka behaves so only with
 * {@link ReceiverOptions#maxDeferredCommits(int)} above zero; without it, it commits the highest acknowledged
 * offset and may skip unacknowledged records on restart).
 */
public interface ReceiverOffset {

    /**
     * The record's partition.
     *
     * @return the partition, as a kafka-clients type
     */
    TopicPartition topicPartition();

    /**
     * The record's offset.
     *
     * @return the offset
     */
    long offset();

    /**
     * Marks the record processed. Acknowledged offsets are committed every
     * {@link ReceiverOptions#commitInterval(java.time.Duration)}, after every
     * {@link ReceiverOptions#commitBatchSize(int)} acknowledgements, when partitions are revoked and when the
     * receiving flux terminates. Repeated calls count once. Ignored once the record's partition was revoked or lost,
     * also when it was assigned to this consumer again since (as {@link io.kflux.ConsumerRecord#acknowledge()}).
     */
    void acknowledge();

    /**
     * Acknowledges the record, then commits every acknowledged offset of every partition not yet committed.
     *
     * @return completes when the group coordinator accepted the commit; errors with
     *         {@link io.kflux.CommitFailedException} when a partition was revoked or lost before its offset was
     *         committed, or with kflux's other commit errors once its retries are exhausted
     */
    Mono<Void> commit();
}
