package io.kflux.reactor.kafka.receiver;

import org.apache.kafka.common.TopicPartition;

/**
 * A partition handed to an assignment or revocation listener ({@link ReceiverOptions#addAssignListener},
 * {@link ReceiverOptions#addRevokeListener}). Seeks made in an assignment listener decide where fetching of the
 * partition starts, ahead of committed offsets. The methods block the listener's thread (never one of kflux's
 * I/O threads: listeners run on {@code Schedulers.boundedElastic()}) while offsets are looked up.
 */
public interface ReceiverPartition {

    /**
     * The partition.
     *
     * @return the partition, as a kafka-clients type
     */
    TopicPartition topicPartition();

    /** Starts the partition at its first offset (the log start offset). */
    void seekToBeginning();

    /** Starts the partition at its end offset: only records written from now on are received. */
    void seekToEnd();

    /**
     * Starts the partition at an offset.
     *
     * @param offset the offset of the next record to receive, {@code >= 0}
     * @throws IllegalArgumentException if {@code offset < 0}
     */
    void seek(long offset);

    /**
     * Starts the partition at the first record whose timestamp is at or after {@code timestamp}, or at its end when
     * there is none (ListOffsets by time, KIP-79).
     *
     * @param timestamp ms since the Unix epoch, {@code >= 0}
     * @throws IllegalArgumentException       if {@code timestamp < 0}
     * @throws io.kflux.TimeoutException      when the lookup took longer than {@code default.api.timeout.ms}
     */
    void seekToTimestamp(long timestamp);

    /**
     * The offset of the next record this partition will deliver: the offset of a seek made in this listener call,
     * else the committed offset, else the beginning or end offset as {@code auto.offset.reset} says.
     *
     * @return the offset
     * @throws IllegalStateException     when nothing was committed and {@code auto.offset.reset=none}
     * @throws io.kflux.TimeoutException when a lookup took longer than {@code default.api.timeout.ms}
     */
    long position();

    /**
     * The partition's first offset (its log start offset).
     *
     * @return the offset
     * @throws io.kflux.TimeoutException when the lookup took longer than {@code default.api.timeout.ms}
     */
    default Long beginningOffset() {
        throw new UnsupportedOperationException("beginningOffset");
    }

    /**
     * The partition's end offset (the offset the next record written will get; the last stable offset under
     * {@code isolation.level=read_committed}).
     *
     * @return the offset
     * @throws io.kflux.TimeoutException when the lookup took longer than {@code default.api.timeout.ms}
     */
    default Long endOffset() {
        throw new UnsupportedOperationException("endOffset");
    }
}
