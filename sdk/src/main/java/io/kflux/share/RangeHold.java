package io.kflux.share;

/**
 * Which acknowledgements not sent yet wait for a later request: those of an acquired range that is not acknowledged
 * in full yet (see {@link ShareRequestPlanner}, "whole acquired ranges"). Read on the fetcher's loop while a request
 * is planned and built.
 */
@FunctionalInterface
interface RangeHold {
    /** Nothing waits: every acknowledgement may go. */
    RangeHold NONE = p -> PartitionAcknowledgements.Holdback.NONE;

    /** What waits of partition {@code p}. */
    PartitionAcknowledgements.Holdback in(SharePartition p);
}
