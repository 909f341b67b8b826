package io.kflux.fetch;

import io.kflux.metadata.Node;
import java.util.List;

/**
 * One round of fetch planning ({@link FetchPlanner}): the Fetch requests to send now, and what else the fetcher must
 * start before partitions can be fetched.
 *
 * @param fetches        one per ready broker with planned partitions, in the order of the partitions
 * @param needMetadata   a partition has no leader or is missing from metadata
 * @param needReset      a partition awaits {@code auto.offset.reset} (ListOffsets)
 * @param needValidation a partition awaits OffsetForLeaderEpoch after a leader epoch change (KIP-320)
 * @param failure        non-null when the consumer must fail (then nothing else is planned)
 * @param wakeAtNanos    when, on the fetcher's clock, a broker's Fetch held back for gathering is due
 *                       ({@code FetchPlanner.GATHER_BOUND_NANOS} after a partition was first left without a result):
 *                       the fetcher must plan again then; {@link #NO_WAKE} when nothing waits for a deadline
 */
record FetchPlan(List<NodeFetch> fetches, boolean needMetadata, boolean needReset, boolean needValidation,
                 Throwable failure, long wakeAtNanos) {

    /** {@link #wakeAtNanos} when no Fetch waits for a gathering deadline. */
    static final long NO_WAKE = Long.MIN_VALUE;

    /** A plan that fails the consumer with {@code failure} and does nothing else. */
    static FetchPlan failed(Throwable failure) {
        return new FetchPlan(List.of(), false, false, false, failure, NO_WAKE);
    }

    /**
     * The Fetch for one broker.
     *
     * @param node     the broker: the partitions' leader or their preferred read replica (KIP-392)
     * @param targets  the partitions to fetch, each at its fetch offset under the leader epoch metadata names
     * @param heldBack some of the broker's partitions are held back ({@code FetchPlanner.isHeldBack}: results
     *                 waiting to be emitted, one waiting at the end of the log, or the buffer full): the broker is
     *                 asked not to wait ({@code maxWaitMs} 0); some of {@code targets} are below their end
     */
    record NodeFetch(Node node, List<FetchTarget> targets, boolean heldBack) {
    }
}
