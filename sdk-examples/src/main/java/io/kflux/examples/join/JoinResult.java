package io.kflux.examples.join;

import io.kflux.ConsumerRecord;
import java.util.Objects;

/**
 * What the order/payment join says about one order.
 *
 * @param kind    the outcome
 * @param orderId the order id (the record key)
 * @param order   the order record
 * @param payment the matching payment record ({@link Kind#JOINED} only, else {@code null})
 * @param detail  why the order is invalid ({@link Kind#INVALID} only, else {@code null})
 */
public record JoinResult(Kind kind, String orderId, ConsumerRecord<String, String> order,
                         ConsumerRecord<String, String> payment, String detail) {

    /** The outcomes. */
    public enum Kind {
        /** The order and its payment arrived within the window of each other. */
        JOINED,
        /** A valid order no payment matched before the window closed. */
        UNPAID,
        /** The order failed validation (dropped before the join). */
        INVALID
    }

    public JoinResult {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(order, "order");
        if ((kind == Kind.JOINED) != (payment != null)) {
            throw new IllegalArgumentException("a payment goes with JOINED, and only with it");
        }
    }

    static JoinResult joined(ConsumerRecord<String, String> order, ConsumerRecord<String, String> payment) {
        return new JoinResult(Kind.JOINED, order.key(), order, payment, null);
    }

    static JoinResult unpaid(ConsumerRecord<String, String> order) {
        return new JoinResult(Kind.UNPAID, order.key(), order, null, null);
    }

    static JoinResult invalid(ConsumerRecord<String, String> order, String reason) {
        return new JoinResult(Kind.INVALID, order.key(), order, null, reason);
    }

    /** The partition number of the order (and of its payment: the topics are co-partitioned). */
    public int partition() {
        return order.partition();
    }

    @Override
    public String toString() {
        return switch (kind) {
            case JOINED -> "JOINED " + orderId + " (order " + order.topicPartition() + "@" + order.offset()
                           + ", payment " + payment.topicPartition() + "@" + payment.offset() + ")";
            case UNPAID -> "UNPAID " + orderId + " (order " + order.topicPartition() + "@" + order.offset() + ")";
            case INVALID -> "INVALID " + orderId + ": " + detail;
        };
    }
}
