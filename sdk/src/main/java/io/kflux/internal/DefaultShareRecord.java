package io.kflux.internal;

import io.kflux.AcknowledgeType;
import io.kflux.ConsumerRecord;
import io.kflux.Headers;
import io.kflux.KafkaFluxException;
import io.kflux.KafkaProtocolException;
import io.kflux.ShareRecord;
import io.kflux.TimestampType;
import io.kflux.TopicPartition;
import io.kflux.share.ShareFetcher;
import io.kflux.share.SharePartition;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import reactor.core.publisher.Mono;

/**
 * A {@link ShareRecord} over the {@link ConsumerRecord} the record builder made, with where its acknowledgement
 * goes (the broker it was acquired from). Its final acknowledgement is taken once, from any thread.
 */
final class DefaultShareRecord<K, V> implements ShareRecord<K, V>, ShareFetcher.AckGate {
    @SuppressWarnings("rawtypes")
    private static final AtomicReferenceFieldUpdater<DefaultShareRecord, AcknowledgeType> ACKNOWLEDGED =
            AtomicReferenceFieldUpdater.newUpdater(DefaultShareRecord.class, AcknowledgeType.class, "acknowledged");
    private final ConsumerRecord<K, V> record;
    private final short deliveryCount;
    private final int nodeId;
    private final SharePartition sharePartition;
    private final ShareFetcher fetcher;
    private final boolean explicit;
    /** The final acknowledgement taken (ACCEPT, RELEASE, REJECT), null while none is. */
    private volatile AcknowledgeType acknowledged;
    /** Why that final acknowledgement failed (refused by the broker, or not sent); null while it did not. */
    private volatile RuntimeException refusal;

    DefaultShareRecord(ConsumerRecord<K, V> record, short deliveryCount, int nodeId, SharePartition sharePartition,
                       ShareFetcher fetcher, boolean explicit) {
        this.record = record;
        this.deliveryCount = deliveryCount;
        this.nodeId = nodeId;
        this.sharePartition = sharePartition;
        this.fetcher = fetcher;
        this.explicit = explicit;
    }

    @Override
    public Mono<Void> acknowledge(AcknowledgeType type) {
        java.util.Objects.requireNonNull(type, "type");
        // checked and taken at subscription (admit), not at assembly: r.then(r.accept()).onErrorResume(e ->
        // r.release()) must not mark the record before it runs
        return fetcher.acknowledge(nodeId, record.topicPartition(), sharePartition, record.offset(), deliveryCount,
                type, this);
    }

    /** At each subscription to an acknowledgement: null when {@code type} may go (a final one is taken now). */
    @Override
    public RuntimeException admit(AcknowledgeType type) {
        if (!explicit) {
            return new IllegalStateException("share.acknowledgement.mode=implicit: " + this
                    + " is accepted once the next record is requested; set it to explicit to acknowledge records");
        }
        if (type != AcknowledgeType.RENEW && !ACKNOWLEDGED.compareAndSet(this, null, type)) {
            return refusal != null ? afterRefusal(type)
                    : new IllegalStateException(this + " was acknowledged already (" + acknowledged + ")");
        }
        if (type == AcknowledgeType.RENEW && acknowledged != null) {
            return refusal != null ? afterRefusal(type) : new IllegalStateException(this
                    + " was acknowledged already (" + acknowledged + "): nothing to renew");
        }
        return null;
    }

    @Override
    public void refused(AcknowledgeType type, RuntimeException error) {
        if (acknowledged == type) {
            refusal = error;
        }
    }

    /**
     * A later acknowledgement of a record whose final one failed: the same cause, typed as it was, so that
     * {@code work.then(r.accept()).onErrorResume(e -> r.release())} ends with why the ACCEPT failed (the lock had
     * expired, the consumer is closing) rather than "acknowledged already". A fresh exception each time: a shared
     * instance would collect every subscriber's suppressed {@code block()} traces.
     */
    private RuntimeException afterRefusal(AcknowledgeType type) {
        RuntimeException cause = refusal;
        String message = type + " of " + this + " not sent: its " + acknowledged + " failed, so the record is no longer"
                + " this member's to acknowledge (" + cause.getMessage() + ")";
        if (cause instanceof KafkaProtocolException protocol) {
            return new KafkaProtocolException(protocol.errorCode(), protocol.errorName(), protocol.isRetriable(),
                    message, cause);
        }
        return new KafkaFluxException(message, cause);
    }

    /** The record as the record builder made it (what tracing observes). */
    ConsumerRecord<K, V> consumerRecord() {
        return record;
    }

    /** Implicit mode: accepted without anyone waiting. */
    void acceptImplicitly() {
        if (ACKNOWLEDGED.compareAndSet(this, null, AcknowledgeType.ACCEPT)) {
            fetcher.acknowledgeQuietly(nodeId, record.topicPartition(), sharePartition, record.offset(), deliveryCount,
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
