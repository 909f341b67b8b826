package io.kflux;

import reactor.core.publisher.Mono;

/**
 * A record a {@link KafkaShareConsumer} acquired from its share group (KIP-932): the record's data as
 * {@link ConsumerRecord} has it, how often it was delivered, and its acknowledgement. The record is this member's
 * under an acquisition lock (the broker's {@code group.share.record.lock.duration.ms}, 30 s by default) until it is
 * acknowledged; a lock that expires hands it to the group again, with its delivery count one higher. While a record
 * is neither accepted, released nor rejected, the consumer renews its lock on its own (KIP-1222 RENEW, once half of
 * each lock has run) for up to {@code share.lock.renewal.max.ms} after it was acquired (0: never),
 * on brokers with ShareAcknowledge v2; on older brokers, or past that limit, the lock expires. Once the consumer saw a
 * record's lock expire (by its own clock, which counts from the request that acquired it, so never after the broker's)
 * it sends nothing more for it: a later {@link #acknowledge} fails at once with INVALID_RECORD_STATE, and the record
 * is the group's again (another member's, or this one's under a higher delivery count).
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface ShareRecord<K, V> {
    String topic();

    int partition();

    TopicPartition topicPartition();

    long offset();

    /** @return the record's timestamp in ms since the epoch, or {@link ConsumerRecord#NO_TIMESTAMP} */
    long timestamp();

    TimestampType timestampType();

    K key();

    V value();

    Headers headers();

    /**
     * How often the broker delivered this record, this delivery included: 1 the first time (KIP-932). The broker
     * archives a record after {@code group.share.delivery.count.limit} deliveries (5 by default).
     *
     * @return 1 or more
     */
    short deliveryCount();

    /**
     * Acknowledges the record (explicit mode, {@code share.acknowledgement.mode=explicit}) once the returned
     * {@code Mono} is subscribed: calling this method alone does nothing, so {@code work.then(r.accept())
     * .onErrorResume(e -> r.release())} acknowledges the record once, with RELEASE when the work fails. The acknowledgement is
     * sent with the next ShareFetch or ShareAcknowledge to the broker the record came from, together with the others
     * gathered meanwhile. A record takes one final acknowledgement (ACCEPT, RELEASE, REJECT); RENEW before it
     * extends the lock (KIP-1222, brokers with ShareAcknowledge v2, Kafka 4.2+) and may be repeated.
     *
     * @param type how the record is acknowledged
     * @return completes when the broker confirmed it; fails with a {@link KafkaProtocolException} whose
     *         {@code errorName()} is {@code INVALID_RECORD_STATE} when the record's lock had expired or it was not
     *         this member's, {@link UnsupportedVersionException} for RENEW to a broker without it,
     *         {@link IllegalStateException} when the record was acknowledged finally already or the consumer
     *         acknowledges implicitly, {@link KafkaFluxException} when it could not be sent (consumer closed, broker
     *         unreachable: the record returns to the group when its lock expires). After a final acknowledgement
     *         that failed with one of these {@code KafkaFluxException}s, every later one fails with the same cause
     *         (a {@link KafkaProtocolException} with the same {@code errorName()}, else a {@code KafkaFluxException}
     *         caused by it), not with {@code IllegalStateException}: the record is no longer this member's to
     *         acknowledge, and the error says why
     */
    Mono<Void> acknowledge(AcknowledgeType type);

    /** {@code acknowledge(AcknowledgeType.ACCEPT)}: processed, never delivered again. */
    default Mono<Void> accept() {
        return acknowledge(AcknowledgeType.ACCEPT);
    }

    /** {@code acknowledge(AcknowledgeType.RELEASE)}: delivered again, to this or another member. */
    default Mono<Void> release() {
        return acknowledge(AcknowledgeType.RELEASE);
    }

    /** {@code acknowledge(AcknowledgeType.REJECT)}: unprocessable, archived, never delivered again. */
    default Mono<Void> reject() {
        return acknowledge(AcknowledgeType.REJECT);
    }

    /** {@code acknowledge(AcknowledgeType.RENEW)}: still in processing, its lock renewed (KIP-1222). */
    default Mono<Void> renew() {
        return acknowledge(AcknowledgeType.RENEW);
    }
}
