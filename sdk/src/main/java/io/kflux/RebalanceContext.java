package io.kflux;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * What a {@link RebalanceListener} callback may look at and do. Valid only until the callback's {@code Mono}
 * completes; using it afterwards raises {@link IllegalStateException}.
 */
public interface RebalanceContext {

    /**
     * The assignment as it is during this callback: in {@code onPartitionsAssigned} it includes the new
     * partitions; in {@code onPartitionsRevoked} it still includes the revoked ones.
     *
     * @return an unmodifiable snapshot
     */
    Set<TopicPartition> assignment();

    /**
     * The group generation this rebalance belongs to (the classic protocol's generation id, or the member epoch
     * with {@code group.protocol=consumer}, KIP-848).
     *
     * @return the generation, or -1 when not in a group (manual assignment)
     */
    int generationId();

    /**
     * This member's id as assigned by the coordinator.
     *
     * @return the member id, or {@code ""} when not in a group
     */
    String memberId();

    /**
     * Sets the position of a partition being assigned: the first record emitted for it is at {@code offset}
     * (next offset to read). Recorded now, applied before fetching starts; overrides the committed offset and
     * {@code auto.offset.reset}. An offset beyond the log is handled by {@code auto.offset.reset} on the first
     * fetch.
     *
     * @param tp     a partition of the current assignment
     * @param offset next offset to read, {@code >= 0}
     * @throws IllegalArgumentException if {@code tp} is not assigned or {@code offset} is negative
     * @throws IllegalStateException    outside {@code onPartitionsAssigned}, or after the callback completed
     */
    void seek(TopicPartition tp, long offset);

    /**
     * As {@link #seek(TopicPartition, long)}, from an offset that may carry the leader epoch of the record before
     * it (e.g. kept in a database next to the results). A known epoch is validated before the first fetch as a
     * committed offset's is (OffsetForLeaderEpoch, KIP-320): a log truncated below the offset since moves the
     * position back to the end of that epoch. Without an epoch this is {@code seek(tp, offset.offset())}.
     *
     * @param tp     a partition of the current assignment
     * @param offset next offset to read, with its optional leader epoch; the metadata is ignored
     * @throws IllegalArgumentException if {@code tp} is not assigned
     * @throws IllegalStateException    outside {@code onPartitionsAssigned}, or after the callback completed
     * @throws NullPointerException     if {@code offset} is null
     */
    default void seek(TopicPartition tp, OffsetAndMetadata offset) {
        Objects.requireNonNull(offset, "offset");
        seek(tp, offset.offset());
    }

    /**
     * Like {@link #seek} with the log start offset of each partition (looked up with ListOffsets before fetching).
     *
     * @param partitions partitions of the current assignment
     * @throws IllegalArgumentException if one is not assigned
     * @throws IllegalStateException    outside {@code onPartitionsAssigned}, or after the callback completed
     */
    void seekToBeginning(Collection<TopicPartition> partitions);

    /**
     * Like {@link #seek} with the end offset of each partition (the high watermark, or the last stable offset
     * with {@code isolation.level=read_committed}), so only new records are read.
     *
     * @param partitions partitions of the current assignment
     * @throws IllegalArgumentException if one is not assigned
     * @throws IllegalStateException    outside {@code onPartitionsAssigned}, or after the callback completed
     */
    void seekToEnd(Collection<TopicPartition> partitions);

    /**
     * Commits every acknowledged, not yet committed position, within the current generation.
     *
     * @return completes when the coordinator accepted it; errors with {@link CommitFailedException} in
     *         {@code onPartitionsLost} or when the generation is already over, {@link TimeoutException} after
     *         {@code default.api.timeout.ms}, and {@link KafkaProtocolException} for other broker errors. (There is
     *         always a {@code group.id} here: the listener is called only for a group subscription, which
     *         {@link KafkaFluxConsumer#create} refuses without one, with {@link ConfigException}.)
     */
    Mono<Void> commit();

    /**
     * Commits exactly these positions, within the current generation.
     *
     * @param offsets positions (next offset to read) per partition, with metadata and optional leader epoch (sent
     *                as -1 when absent, KIP-320)
     * @return as {@link #commit()}
     */
    Mono<Void> commit(Map<TopicPartition, OffsetAndMetadata> offsets);
}
