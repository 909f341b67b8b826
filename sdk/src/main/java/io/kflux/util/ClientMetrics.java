package io.kflux.util;

import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * What the layers of one consumer report for its metrics: network, fetch, group and commit events, as plain numbers.
 * It names no metrics library, so the layers below the public API stay free of one; the consumer adapts it to
 * Micrometer when the application gave a registry ({@code io.kflux.internal.metrics}), and uses {@link #NONE}
 * otherwise, whose empty methods the JIT removes from the hot path.
 *
 * <p>Every method may be called from any thread and must not block. Durations are in nanoseconds, sizes in bytes.
 */
public interface ClientMetrics {

    /** Reports nothing: the consumer's metrics when no registry is set. */
    ClientMetrics NONE = new ClientMetrics() {
        @Override
        public String toString() {
            return "no metrics";
        }
    };

    /** True when events are recorded; callers may skip work (a clock read) that only feeds metrics. */
    default boolean enabled() {
        return false;
    }

    // ------------------------------------------------------------------------------------------- network

    /** A connection to a broker was set up (TCP, TLS, ApiVersions, SASL all done). */
    default void connectionCreated() {
    }

    /** A connection that was {@linkplain #connectionCreated() created} closed, for whatever reason. */
    default void connectionClosed() {
    }

    /**
     * A request frame of {@code bytes} (with its size prefix) was written to node {@code nodeId} (-1 and below:
     * bootstrap servers; the coordinator connection has its own id, as the official client counts it).
     */
    default void requestSent(int nodeId, int bytes) {
    }

    /** A response frame of {@code bytes} (with its size prefix) came from node {@code nodeId}, {@code latencyNanos} after its request was written. */
    default void responseReceived(int nodeId, int bytes, long latencyNanos) {
    }

    // --------------------------------------------------------------------------------------------- fetch

    /** A Fetch was answered after {@code latencyNanos}; the broker asked for {@code throttleMs} of throttling (KIP-219). */
    default void fetchCompleted(long latencyNanos, int throttleMs) {
    }

    /** {@code records} records of {@code topic} totalling {@code bytes} (their encoded size) were emitted downstream. */
    default void recordsConsumed(String topic, int records, long bytes) {
    }

    /**
     * Per topic, what one Fetch answer held for this consumer: {@code bytes} of record batches and the
     * {@code records} their headers count (0 and 0 for a topic whose partitions came back empty), reported once per
     * answer and topic, as the official client's {@code fetch-size-avg/-max} and {@code records-per-request-avg}.
     */
    default void topicFetched(String topic, long bytes, int records) {
    }

    /**
     * Partition {@code topic}-{@code partition} is assigned: its lag (offsets between the position and the high
     * watermark, or the last stable offset under read_committed) and lead (offsets between the log start and the
     * position) are read from these suppliers when a meter is read; each returns -1 while unknown. {@code fetchedAhead}
     * gives the records fetched but not emitted yet, {@code readReplica} the node the partition is fetched from
     * when it is not the leader (KIP-392), -1 for the leader.
     *
     * @return what the consumer calls each time the partition's lag and lead are to be sampled for their windowed
     *         avg/max/min (the official {@code records-lag-avg/-max}, {@code records-lead-avg/-min})
     */
    default PartitionSampler partitionAssigned(String topic, int partition, LongSupplier lag, LongSupplier lead,
                                               LongSupplier fetchedAhead, IntSupplier readReplica) {
        return PartitionSampler.NONE;
    }

    /**
     * Samples one partition's lag and lead (reading the suppliers given to {@link #partitionAssigned}). Called on the
     * moments the official client samples them: after the records of a Fetch answer were handed on, and for an
     * answer that brought none. Any thread, never blocks.
     */
    @FunctionalInterface
    interface PartitionSampler {
        /** Samples nothing. */
        PartitionSampler NONE = () -> { };

        void sample();
    }

    /** Partition {@code topic}-{@code partition} is no longer assigned: its meters go. */
    default void partitionRevoked(String topic, int partition) {
    }

    // --------------------------------------------------------------------------------------- share fetch

    /**
     * A ShareFetch (KIP-932) was answered without a top-level error after {@code latencyNanos}, with
     * {@code throttleMs} of throttling; it acquired {@code records} records in {@code bytes} of record batches.
     */
    default void shareFetchCompleted(long latencyNanos, int throttleMs, long bytes, int records) {
    }

    /**
     * A broker answered a ShareFetch or ShareAcknowledge carrying {@code sent} acknowledgements (offsets, gaps and
     * renewals included), {@code failed} of them with an error (the whole request's, or their partition's).
     */
    default void shareAcknowledgementsAnswered(int sent, int failed) {
    }

    // ------------------------------------------------------------------------------------------- group

    /** The number of partitions assigned now is read from {@code assigned} when a meter is read. */
    default void assignedPartitions(LongSupplier assigned) {
    }

    /** A JoinGroup was answered successfully after {@code latencyNanos}. */
    default void joined(long latencyNanos) {
    }

    /** A SyncGroup was answered successfully after {@code latencyNanos}. */
    default void synced(long latencyNanos) {
    }

    /** A rebalance ended with an assignment, {@code latencyNanos} after this member began it (JoinGroup sent). */
    default void rebalanced(long latencyNanos) {
    }

    /** A rebalance this member took part in failed (its JoinGroup or SyncGroup got an error or no answer). */
    default void rebalanceFailed() {
    }

    /**
     * A Heartbeat (classic) or ConsumerGroupHeartbeat (KIP-848) was answered, with any error code, after
     * {@code latencyNanos}.
     */
    default void heartbeat(long latencyNanos) {
    }

    // ------------------------------------------------------------------------------------------- commit

    /** An OffsetCommit round trip succeeded after {@code latencyNanos} (retries included). */
    default void committed(long latencyNanos) {
    }
}
