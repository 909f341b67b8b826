package io.kflux.examples.join;

import io.kflux.ConsumerRecord;
import io.kflux.TopicPartition;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The join state of one partition pair: {@code orders-N} and {@code payments-N}, owned together by one consumer
 * (see {@link io.kflux.examples.OrderPaymentJoin} for why they are). Thread-safe: the two partitions' records may
 * arrive on different threads, so every method holds this object's lock.
 *
 * <p>Time is record time: each side keeps the highest timestamp it has seen, and the <em>watermark</em> is the
 * lower of the two, so a side read ahead of the other cannot close windows the other has not reached yet. An
 * order and a payment with the same key match when their timestamps are at most the window apart; records older
 * than {@code watermark - window} expire (an order as {@link JoinResult.Kind#UNPAID}, a payment silently).
 *
 * <p>Records with a {@code null} value are heartbeats: they only move their side's timestamp on, so that windows
 * close on partitions that see no traffic (producers send them to every partition now and then; the sample data
 * ends with one per partition).
 *
 * <p>Acknowledgements (what the pipeline does with {@link #emitted} and {@link #releaseCommitted}): an order when
 * its result was emitted; a payment that expired at once; a joined payment only after its order's offset was
 * <em>committed</em>. The last rule keeps a restart from splitting a joined pair: a committed payment implies a
 * committed order, so an order read again always finds its payment again (a payment read again whose order was
 * committed just expires). Records still held when the state is dropped are not acknowledged and are read again
 * by the partitions' next owner.
 */
public final class PartitionJoin {

    private final int partition;
    private final TopicPartition ordersPartition;
    private final long windowMs;
    private final Side orders = new Side();
    private final Side payments = new Side();
    private final Set<TopicPartition> opened = new HashSet<>();
    /** Emitted JOINED results whose payment waits for the order's offset to be committed. */
    private final List<JoinResult> heldPayments = new ArrayList<>();
    private boolean retired;

    /**
     * Creates the empty state of a partition pair.
     *
     * @param partition   the partition number N
     * @param ordersTopic the orders topic (its partition N is where committed offsets are checked)
     * @param window      how far apart an order's and its payment's timestamps may be
     */
    public PartitionJoin(int partition, String ordersTopic, Duration window) {
        if (window.isNegative()) {
            throw new IllegalArgumentException("window must not be negative, was " + window);
        }
        this.partition = partition;
        this.ordersPartition = new TopicPartition(ordersTopic, partition);
        this.windowMs = window.toMillis();
    }

    /** The partition number N of the pair. */
    public int partition() {
        return partition;
    }

    /** Partition N of the orders topic. */
    public TopicPartition ordersPartition() {
        return ordersPartition;
    }

    /**
     * Registers the inner flux of one of the pair's partitions.
     *
     * @param tp orders-N or payments-N
     * @return false when this state is retired or already has that partition (it then belongs to an earlier
     *         assignment, and the caller must start a new state)
     */
    public synchronized boolean open(TopicPartition tp) {
        return !retired && opened.add(tp);
    }

    /**
     * Drops the state: called when one of the pair's partitions is revoked or lost. Records arriving later (from the
     * other partition, being revoked too) are ignored and not acknowledged.
     */
    public synchronized void retire() {
        retired = true;
        orders.clear();
        payments.clear();
        heldPayments.clear();
    }

    /** True after {@link #retire()}. */
    public synchronized boolean retired() {
        return retired;
    }

    /**
     * Takes one record of the pair and returns the results it completes: its own (a join, or an invalid order) and
     * those of the orders that expired because the watermark moved on.
     *
     * @param record  a record of orders-N or payments-N
     * @param isOrder whether it is an order
     * @return the results, in the order they happened; none for a retired state
     */
    public synchronized List<JoinResult> accept(ConsumerRecord<String, String> record, boolean isOrder) {
        if (retired) {
            return List.of();
        }
        Side own = isOrder ? orders : payments;
        Side other = isOrder ? payments : orders;
        long ts = record.timestamp() >= 0 ? record.timestamp() : Math.max(own.maxTimestamp, 0);
        own.maxTimestamp = Math.max(own.maxTimestamp, ts);
        List<JoinResult> results = new ArrayList<>(1);
        String invalid = isOrder && record.value() != null ? invalidReason(record.key(), record.value()) : null;
        if (record.value() == null || (!isOrder && record.key() == null)) {
            record.acknowledge(); // a heartbeat, or a payment without order id (it can match nothing)
        } else if (invalid != null) {
            results.add(JoinResult.invalid(record, invalid)); // filtered: never joined, acknowledged once emitted
        } else {
            Pending match = other.take(record.key(), ts, windowMs);
            if (match == null) {
                own.add(new Pending(record, ts));
            } else {
                results.add(isOrder ? JoinResult.joined(record, match.record)
                                    : JoinResult.joined(match.record, record));
            }
        }
        long watermark = Math.min(orders.maxTimestamp, payments.maxTimestamp);
        if (watermark != Long.MIN_VALUE) {
            long cutoff = watermark - windowMs;
            orders.expire(cutoff, p -> results.add(JoinResult.unpaid(p.record)));
            payments.expire(cutoff, p -> p.record.acknowledge()); // no order within the window
        }
        return results;
    }

    /**
     * Called once a result of this state went through the sink: acknowledges its order, and holds a joined
     * payment until {@link #releaseCommitted} sees the order committed.
     */
    public synchronized void emitted(JoinResult result) {
        result.order().acknowledge(); // ignored by the consumer if the partition was revoked meanwhile
        if (result.payment() != null && !retired) {
            heldPayments.add(result);
        }
    }

    /**
     * Acknowledges the held payments whose order is below the orders partition's committed offset.
     *
     * @param committedOrdersOffset the committed offset (next offset to read) of {@link #ordersPartition()}
     * @return how many payments were acknowledged
     */
    public synchronized int releaseCommitted(long committedOrdersOffset) {
        int released = 0;
        for (Iterator<JoinResult> it = heldPayments.iterator(); it.hasNext(); ) {
            JoinResult r = it.next();
            if (r.order().offset() < committedOrdersOffset) {
                r.payment().acknowledge();
                it.remove();
                released++;
            }
        }
        return released;
    }

    /** Orders and payments waiting for their partner, and joined payments waiting for a commit. */
    public synchronized String describe() {
        return String.format("pair %d: %d orders and %d payments pending, %d joined payments held", partition,
                orders.size, payments.size, heldPayments.size());
    }

    /**
     * Validates an order: it needs an id (the key) and a positive amount in cents (the value).
     *
     * @param orderId the key
     * @param value   the value, not {@code null}
     * @return why it is invalid, or {@code null} when it is valid
     */
    public static String invalidReason(String orderId, String value) {
        if (orderId == null || orderId.isBlank()) {
            return "no order id (null or blank key)";
        }
        long amount;
        try {
            amount = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return "amount is not a number: " + value;
        }
        return amount > 0 ? null : "amount must be positive, was " + amount;
    }

    /** A record waiting for its partner. */
    private static final class Pending {
        final ConsumerRecord<String, String> record;
        final long timestamp;
        boolean done;

        Pending(ConsumerRecord<String, String> record, long timestamp) {
            this.record = record;
            this.timestamp = timestamp;
        }
    }

    /** One side's waiting records, by key and by time (entries taken by a join leave the time queue lazily). */
    private static final class Side {
        long maxTimestamp = Long.MIN_VALUE;
        int size;
        final Map<String, ArrayDeque<Pending>> byKey = new HashMap<>();
        final PriorityQueue<Pending> byTime = new PriorityQueue<>(Comparator.comparingLong(p -> p.timestamp));

        void add(Pending p) {
            byKey.computeIfAbsent(p.record.key(), k -> new ArrayDeque<>()).add(p);
            byTime.add(p);
            size++;
        }

        /** Removes and returns the oldest waiting record with this key within the window of {@code ts}. */
        Pending take(String key, long ts, long windowMs) {
            ArrayDeque<Pending> candidates = byKey.get(key);
            if (candidates == null) {
                return null;
            }
            for (Iterator<Pending> it = candidates.iterator(); it.hasNext(); ) {
                Pending p = it.next();
                if (Math.abs(p.timestamp - ts) <= windowMs) {
                    it.remove();
                    if (candidates.isEmpty()) {
                        byKey.remove(key);
                    }
                    p.done = true;
                    size--;
                    return p;
                }
            }
            return null;
        }

        void expire(long cutoff, java.util.function.Consumer<Pending> onExpired) {
            while (!byTime.isEmpty() && byTime.peek().timestamp < cutoff) {
                Pending p = byTime.poll();
                if (p.done) {
                    continue;
                }
                ArrayDeque<Pending> same = byKey.get(p.record.key());
                same.remove(p);
                if (same.isEmpty()) {
                    byKey.remove(p.record.key());
                }
                size--;
                onExpired.accept(p);
            }
        }

        void clear() {
            byKey.clear();
            byTime.clear();
            size = 0;
        }
    }
}
