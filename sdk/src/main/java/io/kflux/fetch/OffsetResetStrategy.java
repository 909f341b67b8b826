package io.kflux.fetch;

/** {@code auto.offset.reset}: where a partition starts when it has no valid position. */
public enum OffsetResetStrategy {
    EARLIEST(-2L),
    LATEST(-1L),
    NONE(0L),
    /** The first offset at or after now minus a duration (KIP-1106); the end when there is none. */
    BY_DURATION(0L);

    /** The ListOffsets timestamp that asks for this position (-2 earliest, -1 latest). */
    public final long listOffsetsTimestamp;

    OffsetResetStrategy(long listOffsetsTimestamp) {
        this.listOffsetsTimestamp = listOffsetsTimestamp;
    }
}
