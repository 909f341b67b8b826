package io.kflux.fetch;

/**
 * One partition in one Fetch or OffsetForLeaderEpoch request (or one session partition an incremental request
 * implies), with the state it was sent in (to recognise stale answers) and, once sent, the partition's
 * {@link PartitionState#transitions()} after entering the waiting state ({@code -1} while only planned).
 */
record FetchTarget(PartitionState partition, long fetchOffset, int seekEpoch, int leaderEpoch, int lastFetchedEpoch,
                   int transitions) {

    /** The partition's fetch position now, under the leader epoch metadata names ({@code leaderEpoch}). */
    static FetchTarget of(PartitionState ps, int leaderEpoch) {
        return new FetchTarget(ps, ps.fetchOffset(), ps.seekEpoch(), leaderEpoch, ps.lastFetchedEpoch(), -1);
    }

    boolean isCurrent() {
        return !partition.isRevoked() && partition.seekEpoch() == seekEpoch && partition.fetchOffset() == fetchOffset;
    }

    /** Moves the partition to {@code waiting} (the request is sent, the backoff starts) and notes that transition. */
    FetchTarget entering(FetchState waiting) {
        partition.transitionTo(waiting);
        return new FetchTarget(partition, fetchOffset, seekEpoch, leaderEpoch, lastFetchedEpoch, partition.transitions());
    }

    /** True while the partition is still in {@code waiting} as {@link #entering} left it (nothing moved it since). */
    boolean isStillIn(FetchState waiting) {
        return partition.state() == waiting && partition.transitions() == transitions;
    }

    /** Moves the partition from {@code waiting} to {@code next} if nothing moved it since {@link #entering}. */
    boolean leave(FetchState waiting, FetchState next) {
        return partition.transitionIfStill(waiting, transitions, next);
    }
}
