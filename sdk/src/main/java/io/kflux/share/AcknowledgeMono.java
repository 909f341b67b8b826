package io.kflux.share;

import io.kflux.AcknowledgeType;
import io.kflux.TopicPartition;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * The {@link Mono} of one record's acknowledgement ({@link ShareFetcher#acknowledge}): each subscription asks the
 * record's {@link ShareFetcher.AckGate} whether the acknowledgement may go, then hands one {@link Pending} to the
 * fetcher's loop; that object is the hand-over, the broker's waiter and the subscriber's {@link Subscription} at once.
 * It replaces {@code Mono.defer} + {@code Mono.create} + a hand-over record + a waiter record (four to six objects
 * per acknowledgement, a visible share of the explicit-accept benchmark's CPU) with two.
 */
final class AcknowledgeMono extends Mono<Void> {
    private final ShareFetcher fetcher;
    final int nodeId;
    final TopicPartition tp;
    final SharePartition sp;
    final long offset;
    final short deliveryCount;
    /** The acknowledgement, null for a gap. */
    final AcknowledgeType type;
    private final ShareFetcher.AckGate gate;

    AcknowledgeMono(ShareFetcher fetcher, int nodeId, TopicPartition tp, SharePartition sp, long offset,
                    short deliveryCount, AcknowledgeType type, ShareFetcher.AckGate gate) {
        this.fetcher = fetcher;
        this.nodeId = nodeId;
        this.tp = tp;
        this.sp = sp;
        this.offset = offset;
        this.deliveryCount = deliveryCount;
        this.type = type;
        this.gate = gate;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Void> actual) {
        RuntimeException refused = gate == null ? null : gate.admit(type);
        if (refused != null) {
            Operators.error(actual, refused);
            return;
        }
        Pending p = new Pending(this, actual);
        actual.onSubscribe(p);
        fetcher.handOver(p);
    }

    /**
     * One acknowledgement between its caller and the broker's answer: what the loop takes, and, while
     * {@link #actual} is set, the subscriber that hears the outcome once (a cancel only stops it hearing: the
     * acknowledgement was handed over and goes, as with {@code Mono.create}).
     */
    static final class Pending implements ShareBroker.Waiter, Subscription {
        @SuppressWarnings("rawtypes")
        private static final AtomicReferenceFieldUpdater<Pending, CoreSubscriber> ACTUAL =
                AtomicReferenceFieldUpdater.newUpdater(Pending.class, CoreSubscriber.class, "actual");
        /** What is acknowledged. */
        final AcknowledgeMono ack;
        /** Who hears the outcome; null when nobody (quiet acknowledgements, cancelled, or heard already). */
        private volatile CoreSubscriber<? super Void> actual;

        Pending(AcknowledgeMono ack, CoreSubscriber<? super Void> actual) {
            this.ack = ack;
            this.actual = actual;
        }

        /** Whether someone waits for the outcome (when taken on the loop). */
        boolean waited() {
            return actual != null;
        }

        @Override
        public long offset() {
            return ack.offset;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void success() {
            CoreSubscriber<? super Void> a = ACTUAL.getAndSet(this, null);
            if (a != null) {
                a.onComplete();
            }
        }

        @Override
        @SuppressWarnings("unchecked")
        public void error(RuntimeException e) {
            if (ack.gate != null && ack.type != null && ack.type != AcknowledgeType.RENEW) {
                ack.gate.refused(ack.type, e);
            }
            CoreSubscriber<? super Void> a = ACTUAL.getAndSet(this, null);
            if (a != null) {
                a.onError(e);
            }
        }

        @Override
        public void request(long n) {
            // a Mono<Void> emits no value: nothing to count
        }

        @Override
        public void cancel() {
            actual = null;
        }
    }
}
