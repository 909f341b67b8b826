package io.kflux;

/**
 * Which records of {@link KafkaFluxConsumer#process} may be handled at the same time. Whatever the ordering,
 * {@link ProcessingOptions#maxInFlight(int)} bounds the records in flight across the whole consumer, and records
 * that must wait are started in the order they were received (so in offset order per partition).
 */
public enum Ordering {
    /** At most one record per partition in flight: records of a partition are handled one after the other. */
    PARTITION,
    /**
     * At most one record per key of a partition in flight: records with equal keys (by {@code equals}; {@code byte[]}
     * keys by content) are handled in offset order, different keys of one partition concurrently. A {@code null}
     * key counts as one key of its partition.
     */
    KEY,
    /** No limit but {@code maxInFlight}: records complete in any order. */
    UNORDERED
}
