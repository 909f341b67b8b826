package io.kflux.internal.processing;

import io.kflux.Ordering;
import io.kflux.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Decides which held record of {@code process()} may start: at most {@code maxInFlight} in flight, at most one per
 * lane (a partition under {@link Ordering#PARTITION}, a key of a partition under {@link Ordering#KEY}, none under
 * {@link Ordering#UNORDERED}), and records of a lane in the order they were offered. Pure bookkeeping with no
 * threads or time, O(1) per record; not thread-safe (the driver calls it under its lock).
 *
 * <p>A lane is busy from the moment one of its records is ready (its lane free, waiting only for a slot under
 * {@code maxInFlight}) until that record {@link #complete completed}; records offered meanwhile queue behind it.
 * Ready records start in the order they became ready, so no lane overtakes another that was ready first.
 *
 * @param <T> what is dispatched (the driver's jobs; tests use plain values)
 */
public final class Dispatcher<T> {
    /** The key of every null-keyed record of a partition under KEY ordering (a null key is one key per partition). */
    private static final Object NULL_KEY = new Object() {
        @Override
        public String toString() {
            return "null key";
        }
    };
    /** The key of a PARTITION lane: the whole partition. */
    private static final Object WHOLE_PARTITION = new Object() {
        @Override
        public String toString() {
            return "whole partition";
        }
    };

    private final int maxInFlight;
    private final Ordering ordering;
    private final Function<T, TopicPartition> partitionOf;
    private final Function<T, Object> keyOf;
    /** Busy lanes, each with the records queued behind its ready or in-flight record, in offer order. */
    private final Map<Lane, ArrayDeque<T>> busy = new HashMap<>();
    /** Records whose lane is free for them, waiting for a slot. */
    private final ArrayDeque<T> ready = new ArrayDeque<>();
    private int inFlight;
    private int queued;

    /** A partition, and a key of it or {@link #WHOLE_PARTITION}. */
    private record Lane(TopicPartition tp, Object key) {
    }

    /**
     * @param ordering    what a lane is
     * @param maxInFlight records started and not completed, at most
     * @param partitionOf a record's partition
     * @param keyOf       a record's key (only read under {@link Ordering#KEY}; {@code byte[]} compared by content)
     * @throws IllegalArgumentException for maxInFlight below 1
     */
    public Dispatcher(Ordering ordering, int maxInFlight, Function<T, TopicPartition> partitionOf,
                      Function<T, Object> keyOf) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, was " + maxInFlight);
        }
        this.ordering = Objects.requireNonNull(ordering, "ordering");
        this.maxInFlight = maxInFlight;
        this.partitionOf = Objects.requireNonNull(partitionOf, "partitionOf");
        this.keyOf = Objects.requireNonNull(keyOf, "keyOf");
    }

    /** The record's lane, or null under UNORDERED (no lane: never waits for another record). */
    private Lane laneOf(T item) {
        return switch (ordering) {
            case UNORDERED -> null;
            case PARTITION -> new Lane(partitionOf.apply(item), WHOLE_PARTITION);
            case KEY -> new Lane(partitionOf.apply(item), keyIdentity(keyOf.apply(item)));
        };
    }

    private static Object keyIdentity(Object key) {
        if (key == null) {
            return NULL_KEY;
        }
        // arrays compare by identity; the record's key bytes are not changed by anyone, so a view over them is enough
        return key instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : key;
    }

    /** Takes a record in: it becomes ready, or queues behind its lane's record. */
    public void offer(T item) {
        Objects.requireNonNull(item, "item");
        Lane lane = laneOf(item);
        if (lane == null) {
            ready.add(item);
            return;
        }
        ArrayDeque<T> behind = busy.get(lane);
        if (behind == null) {
            busy.put(lane, new ArrayDeque<>(2));
            ready.add(item);
        } else {
            behind.add(item);
            queued++;
        }
    }

    /** The next record to start, counted in flight from now on; null when none may start now. */
    public T poll() {
        if (inFlight >= maxInFlight) {
            return null;
        }
        T next = ready.poll();
        if (next != null) {
            inFlight++;
        }
        return next;
    }

    /**
     * A record returned by {@link #poll()} is done (finished, failed or abandoned): its slot and its lane are free;
     * the next record queued in the lane becomes ready.
     *
     * @throws IllegalStateException when nothing is in flight
     */
    public void complete(T item) {
        if (inFlight == 0) {
            throw new IllegalStateException("completed " + item + " with nothing in flight");
        }
        inFlight--;
        Lane lane = laneOf(item);
        if (lane == null) {
            return;
        }
        ArrayDeque<T> behind = busy.get(lane);
        if (behind == null) {
            throw new IllegalStateException("completed " + item + " whose lane is not busy");
        }
        T next = behind.poll();
        if (next == null) {
            busy.remove(lane);
        } else {
            queued--;
            ready.add(next);
        }
    }

    /**
     * Removes every record of the partitions {@code partitions} accepts that has not started (revoked partitions: their next owner
     * processes them). Records of theirs in flight stay in flight, their lanes busy until they complete. O(held).
     *
     * @return the removed records, in no particular order
     */
    public List<T> drop(Predicate<TopicPartition> partitions) {
        List<T> dropped = new ArrayList<>();
        for (Iterator<T> it = ready.iterator(); it.hasNext(); ) {
            T item = it.next();
            if (partitions.test(partitionOf.apply(item))) {
                it.remove();
                dropped.add(item);
                Lane lane = laneOf(item);
                if (lane != null) {
                    // the lane's ready record was not in flight: the lane is free once its queue goes too
                    ArrayDeque<T> behind = busy.remove(lane);
                    queued -= behind.size();
                    dropped.addAll(behind);
                }
            }
        }
        for (Map.Entry<Lane, ArrayDeque<T>> e : busy.entrySet()) {
            if (partitions.test(e.getKey().tp())) {
                queued -= e.getValue().size();
                dropped.addAll(e.getValue());
                e.getValue().clear();
            }
        }
        return dropped;
    }

    /** Records started and not completed. */
    public int inFlight() {
        return inFlight;
    }

    /** Records held and not started: ready ones plus those queued behind a busy lane. */
    public int waiting() {
        return ready.size() + queued;
    }

    /**
     * The most records queued behind one lane's record (one key's under KEY, one partition's under PARTITION; 0
     * under UNORDERED): the key that holds the most back. O(busy lanes): for a gauge's reading, not per record.
     */
    public int mostQueuedInOneLane() {
        int most = 0;
        for (ArrayDeque<T> behind : busy.values()) {
            most = Math.max(most, behind.size());
        }
        return most;
    }

    /** Lanes with a record ready or in flight (0 under UNORDERED). */
    public int busyLanes() {
        return busy.size();
    }
}
