package io.kflux;

import java.util.HashMap;
import java.util.Map;

/**
 * The log of one or more partitions was truncated below the consumer's fetch position (KIP-320: after a
 * leader change, typically an unclean leader election, the new leader's log ends earlier for the leader
 * epoch the consumer last fetched) and {@code auto.offset.reset=none}, so the consumer may not pick a new
 * position itself. With another reset policy the consumer moves on by itself: to the end offset of the
 * diverging epoch when the broker knows it, else by the reset policy; it logs a warning either way.
 *
 * <p>{@link #offsets()} are the fetch positions that were found invalid; {@link #divergentOffsets()} where
 * the logs diverge (the first offset that is no longer the same), for partitions where that is known.
 * {@code receive()} terminates with it; seek the partitions and subscribe again.
 */
public class LogTruncationException extends OffsetOutOfRangeException {

    private static final long serialVersionUID = 1L;

    private final Map<TopicPartition, Long> divergentOffsets;

    /**
     * Creates the error.
     *
     * @param offsets          the fetch positions found invalid, per partition; copied
     * @param divergentOffsets where the logs diverge, per partition, for those where the broker said; copied
     */
    public LogTruncationException(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> divergentOffsets) {
        super("Log truncation detected and auto.offset.reset=none: fetch positions " + offsets
                + ", divergent offsets " + divergentOffsets, offsets);
        this.divergentOffsets = Map.copyOf(new HashMap<>(divergentOffsets));
    }

    /**
     * Where the consumer's fetched log and the leader's diverge (the end offset of the last common leader
     * epoch), per partition; partitions whose divergence the broker could not determine are absent.
     *
     * @return an unmodifiable map from partition to the first divergent offset
     */
    public Map<TopicPartition, Long> divergentOffsets() {
        return divergentOffsets;
    }
}
