package io.kflux.internal;

import io.kflux.AcknowledgeType;
import io.kflux.ConsumerRecord;
import io.kflux.Headers;
import io.kflux.ShareRecord;
import io.kflux.TimestampType;
import io.kflux.TopicPartition;
import io.kflux.share.ShareFetcher;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;

/**
 * A {@link ShareRecord} over the {@link ConsumerRecord} the record builder made, with where its acknowledgement
 * goes (the broker it was acquired from). Its final acknowledgement is taken once, from any thread.
 */
final class DefaultShareRecord<K, V> implements ShareRecord<K, V> {
    private final ConsumerRecord<K, V> record;
    private final short deliveryCount;
    private final int nodeId;
    private final UUID topicId;
    private final ShareFetcher fetcher;
    private final boolean explicit;
    /** The final acknowledgement taken (ACCEPT, RELEASE, REJECT), null while none is. */
    private final AtomicReference<AcknowledgeType> acknowledged = new AtomicReference<>();

    DefaultShareRecord(ConsumerRecord<K, V> record, short deliveryCount, int nodeId, UUID topicId,
                       ShareFetcher fetcher, boolean explicit) {
        this.record = record;
        this.deliveryCount = deliveryCount;
        this.nodeId = nodeId;
        this.topicId = topicId;
        this.fetcher = fetcher;
        this.explicit = explicit;
    }

    @Override
    public Mono<Void> acknowledge(AcknowledgeType type) {
        java.util.Objects.requireNonNull(type, "type");
        // deferred: r.then(r.accept()).onErrorResume(e -> r.release()) must not mark the record at assembly
        return Mono.defer(() -> acknowledgeNow(type));
    }

    private Mono<Void> acknowledgeNow(AcknowledgeType type) {
        if (!explicit) {
            return Mono.error(new IllegalStateException("share.acknowledgement.mode=implicit: " + this
                    + " is accepted once the next record is requested; set it to explicit to acknowledge records"));
        }
        if (type != AcknowledgeType.RENEW && !acknowledged.compareAndSet(null, type)) {
            return Mono.error(new IllegalStateException(this + " was acknowledged already (" + acknowledged.get()
                    + ")"));
        }
        if (type == AcknowledgeType.RENEW && acknowledged.get() != null) {
            return Mono.error(new IllegalStateException(this + " was acknowledged already (" + acknowledged.get()
                    + "): nothing to renew"));
        }
        return fetcher.acknowledge(nodeId, record.topicPartition(), topicId, record.offset(), deliveryCount, type);
    }

    /** The record as the record builder made it (what tracing observes). */
    ConsumerRecord<K, V> consumerRecord() {
        return record;
    }

    /** Implicit mode: accepted without anyone waiting. */
    void acceptImplicitly() {
        if (acknowledged.compareAndSet(null, AcknowledgeType.ACCEPT)) {
            fetcher.acknowledgeQuietly(nodeId, record.topicPartition(), topicId, record.offset(), deliveryCount,
                    AcknowledgeType.ACCEPT);
        }
    }

    @Override
    public String topic() {
        return record.topic();
    }

    @Override
    public int partition() {
        return record.partition();
    }

    @Override
    public TopicPartition topicPartition() {
        return record.topicPartition();
    }

    @Override
    public long offset() {
        return record.offset();
    }

    @Override
    public long timestamp() {
        return record.timestamp();
    }

    @Override
    public TimestampType timestampType() {
        return record.timestampType();
    }

    @Override
    public K key() {
        return record.key();
    }

    @Override
    public V value() {
        return record.value();
    }

    @Override
    public Headers headers() {
        return record.headers();
    }

    @Override
    public short deliveryCount() {
        return deliveryCount;
    }

    @Override
    public String toString() {
        return "ShareRecord(" + record.topicPartition() + "@" + record.offset() + ", delivery " + deliveryCount + ")";
    }
}
