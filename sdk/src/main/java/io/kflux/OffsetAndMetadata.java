package io.kflux;

import java.util.Optional;

/**
 * An offset to commit (or that was committed) for one partition, with the free-form metadata string the
 * group coordinator stores next to it (OffsetCommit / OffsetFetch in the Kafka protocol) and, optionally, the
 * leader epoch of the last record before it (KIP-320).
 *
 * <p>{@code offset} follows Kafka's convention: it is the <em>next offset to read</em>, i.e. the offset of
 * the last processed record plus one.
 *
 * <p>The leader epoch is what lets a consumer starting from this offset detect that the log was truncated
 * below it since (an unclean leader election): such a position is checked with OffsetForLeaderEpoch before the
 * first fetch, and moved back to the end of that epoch when the log diverged. {@link KafkaFluxConsumer#committed}
 * returns the epoch stored with the offset; {@link KafkaFluxConsumer#commit(java.util.Map)} sends it (-1 on the
 * wire when absent); {@link KafkaFluxConsumer#seek(TopicPartition, OffsetAndMetadata)} and
 * {@link RebalanceContext#seek(TopicPartition, OffsetAndMetadata)} validate a position that carries one.
 * Equality includes the epoch, as with the official client's {@code OffsetAndMetadata}.
 *
 * @param offset      next offset to read, {@code >= 0}
 * @param metadata    metadata stored with the offset; never {@code null} ({@code null} is turned into
 *                    {@code ""}, which is also what the broker returns when none was stored)
 * @param leaderEpoch leader epoch of the record at {@code offset - 1}, {@code >= 0}, or empty when unknown;
 *                    {@code null} is taken as empty
 */
public record OffsetAndMetadata(long offset, String metadata, Optional<Integer> leaderEpoch) {

    /**
     * Creates an offset with metadata and a leader epoch.
     *
     * @param offset      next offset to read
     * @param metadata    metadata, {@code null} taken as {@code ""}
     * @param leaderEpoch leader epoch of the record before {@code offset}, {@code null} taken as empty
     * @throws IllegalArgumentException if {@code offset} is negative (the protocol uses -1 for "no committed
     *                                  offset", which is represented by an absent map entry instead) or the
     *                                  epoch is negative (the protocol's -1 "unknown" is an empty Optional here)
     */
    public OffsetAndMetadata {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        }
        if (metadata == null) {
            metadata = "";
        }
        if (leaderEpoch == null) {
            leaderEpoch = Optional.empty();
        } else if (leaderEpoch.isPresent() && leaderEpoch.get() < 0) {
            throw new IllegalArgumentException("leader epoch must be >= 0 when present, was " + leaderEpoch.get());
        }
    }

    /**
     * Creates an offset with metadata and no leader epoch.
     *
     * @param offset next offset to read, {@code >= 0}
     * @param metadata metadata, {@code null} taken as {@code ""}
     * @throws IllegalArgumentException if {@code offset} is negative
     */
    public OffsetAndMetadata(long offset, String metadata) {
        this(offset, metadata, Optional.empty());
    }

    /**
     * Creates an offset with empty metadata and no leader epoch.
     *
     * @param offset next offset to read, {@code >= 0}
     * @throws IllegalArgumentException if {@code offset} is negative
     */
    public OffsetAndMetadata(long offset) {
        this(offset, "");
    }
}
