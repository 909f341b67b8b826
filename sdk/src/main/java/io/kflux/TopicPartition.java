package io.kflux;

import java.util.Objects;

/**
 * A partition of a topic: the unit of assignment, ordering, fetching and committing.
 *
 * <p>Immutable and safe to use as a map key or to share between threads.
 *
 * @param topic     topic name, never {@code null} or empty
 * @param partition partition index, {@code >= 0} (partition numbering starts at 0 in the Kafka protocol)
 */
public record TopicPartition(String topic, int partition) {

    /**
     * Creates a topic partition.
     *
     * @param topic topic name
     * @param partition partition index
     * @throws NullPointerException     if {@code topic} is {@code null}
     * @throws IllegalArgumentException if {@code topic} is empty (no topic can have that name; the official
     *                                  consumer's {@code assign} refuses it too), or if {@code partition} is negative:
     *                                  the protocol uses negative indexes only as "no partition" markers, never as a
     *                                  real partition
     */
    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
        if (topic.isEmpty()) {
            throw new IllegalArgumentException("topic must not be empty (partition " + partition + ")");
        }
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0, was " + partition + " for topic " + topic);
        }
    }

    /**
     * Returns {@code "topic-partition"}, e.g. {@code "orders-3"}: the form the official client and broker
     * logs use, so log lines can be matched across both.
     *
     * @return {@code topic + "-" + partition}
     */
    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
