package io.kflux;

/**
 * An offset to commit (or that was committed) for one partition, with the free-form metadata string the
 * group coordinator stores next to it (OffsetCommit / OffsetFetch in the Kafka protocol).
 *
 * <p>{@code offset} follows Kafka's convention: it is the <em>next offset to read</em>, i.e. the offset of
 * the last processed record plus one.
 *
 * @param offset   next offset to read, {@code >= 0}
 * @param metadata metadata stored with the offset; never {@code null} ({@code null} is turned into
 *                 {@code ""}, which is also what the broker returns when none was stored)
 */
public record OffsetAndMetadata(long offset, String metadata) {

    /**
     * Creates an offset with metadata.
     *
     * @param offset next offset to read
     * @param metadata metadata, {@code null} taken as {@code ""}
     * @throws IllegalArgumentException if {@code offset} is negative (the protocol uses -1 for "no committed
     *                                  offset", which is represented by an absent map entry instead)
     */
    public OffsetAndMetadata {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        }
        if (metadata == null) {
            metadata = "";
        }
    }

    /**
     * Creates an offset with empty metadata.
     *
     * @param offset next offset to read, {@code >= 0}
     * @throws IllegalArgumentException if {@code offset} is negative
     */
    public OffsetAndMetadata(long offset) {
        this(offset, "");
    }
}
