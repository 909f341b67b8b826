package io.kflux;

import java.util.List;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Records of one partition handed over together by {@link KafkaFluxConsumer#receiveBatches()}: what one fetched
 * result of that partition held at or after its position, at most {@code max.poll.records} records, in offset order.
 *
 * <p>Immutable and safe to hand to another thread. Acknowledging and committing go through the records' own
 * {@link ConsumerRecord#acknowledge()} and {@link ConsumerRecord#commit()}, so a batch follows exactly the rules of
 * {@code receive()}: its records' positions become committable once every earlier record of the partition is
 * acknowledged too.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class RecordBatch<K, V> {
    private final TopicPartition topicPartition;
    private final List<ConsumerRecord<K, V>> records;

    /**
     * Creates a batch; consumers create theirs so, and tests of application code may too (with detached records,
     * {@link #acknowledge()} does nothing and {@link #commit()} fails, as for a detached {@link ConsumerRecord}).
     *
     * @param topicPartition the partition every record belongs to
     * @param records        at least one record of {@code topicPartition}, in increasing offset order; taken as it is
     *                       (not copied), so the caller must not change it afterwards
     * @throws NullPointerException     if an argument or a record is {@code null}
     * @throws IllegalArgumentException if {@code records} is empty, holds a record of another partition, or its offsets
     *                                  do not increase
     */
    public RecordBatch(TopicPartition topicPartition, List<ConsumerRecord<K, V>> records) {
        this.topicPartition = Objects.requireNonNull(topicPartition, "topicPartition");
        Objects.requireNonNull(records, "records");
        if (records.isEmpty()) {
            throw new IllegalArgumentException("a batch of " + topicPartition + " holds at least one record");
        }
        long previous = -1L;
        for (ConsumerRecord<K, V> r : records) {
            Objects.requireNonNull(r, "record");
            if (!r.topicPartition().equals(topicPartition)) {
                throw new IllegalArgumentException("record " + r.topicPartition() + "@" + r.offset()
                        + " is not of the batch's partition " + topicPartition);
            }
            if (r.offset() <= previous) {
                throw new IllegalArgumentException("offsets of a batch of " + topicPartition
                        + " must increase: " + r.offset() + " after " + previous);
            }
            previous = r.offset();
        }
        this.records = records;
    }

    /**
     * A consumer's batch ({@link io.kflux.internal.Records#batch}): the emitter built {@code records} from one fetched
     * result of {@code topicPartition}, in offset order, so the public constructor's checks (one pass over every
     * record) would only repeat what is true by construction.
     */
    RecordBatch(TopicPartition topicPartition, OwnedRecords<ConsumerRecord<K, V>> records) {
        this.topicPartition = topicPartition;
        this.records = records;
    }

    /**
     * The partition of every record.
     *
     * @return never {@code null}
     */
    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /**
     * The records, in increasing offset order (not necessarily contiguous: control markers, aborted transactions'
     * data and compacted offsets take offsets but are no records).
     *
     * @return unmodifiable when made by a consumer, never empty
     */
    public List<ConsumerRecord<K, V>> records() {
        return records;
    }

    /**
     * Acknowledges every record of the batch ({@link ConsumerRecord#acknowledge()} each: O(1) amortized per record).
     * Non-blocking, callable from any thread, idempotent. Counts for the assignment the batch was emitted under:
     * also while its revocation runs, and ignored once the partition was revoked or lost, even when the partition was
     * assigned to this consumer again since (the new assignment emits these records again).
     */
    public void acknowledge() {
        for (ConsumerRecord<K, V> r : records) {
            r.acknowledge();
        }
    }

    /**
     * Acknowledges every record, then commits the partition's committable position: past the batch's last record
     * ({@code last offset + 1}) when every earlier record of the partition was acknowledged too, less otherwise (as
     * {@link ConsumerRecord#commit()}). Lazy: nothing happens until the returned {@code Mono} is subscribed. Once the
     * revocation of the batch's assignment has started ({@link KafkaFluxConsumer#assignment()} no longer lists the
     * partition) or ended (also when the partition was assigned to this consumer again since), nothing is sent: the
     * commit completes at once when an earlier commit covered the batch, else fails at once with
     * {@link CommitFailedException} (the acknowledgement still counts while the revocation runs, see
     * {@link #acknowledge()}).
     *
     * @return completes when the group coordinator accepted the commit; errors as {@link ConsumerRecord#commit()}
     *         does ({@link CommitFailedException}, {@link FencedInstanceIdException}, {@link TimeoutException},
     *         {@link KafkaProtocolException}, {@link AuthenticationException}, {@link ConfigException} without a
     *         {@code group.id}, {@link IllegalStateException} for records not created by a consumer)
     */
    public Mono<Void> commit() {
        return Mono.defer(() -> {
            acknowledge();
            return records.get(records.size() - 1).commit();
        });
    }

    /**
     * Describes the batch's partition and offsets; keys and values are left out (they may hold personal data).
     *
     * @return e.g. {@code RecordBatch(orders-3@42..541, 500 records)}
     */
    @Override
    public String toString() {
        return "RecordBatch(" + topicPartition + "@" + records.get(0).offset() + ".."
               + records.get(records.size() - 1).offset() + ", " + records.size() + " records)";
    }
}
