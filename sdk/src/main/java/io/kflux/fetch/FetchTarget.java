package io.kflux.fetch;

/**
 * One partition in one Fetch request (or one session partition an incremental request implies),
 * with the state it was sent in (to recognise stale answers).
 */
record FetchTarget(PartitionState partition, long fetchOffset, int seekEpoch, int leaderEpoch, int lastFetchedEpoch) {

    boolean isCurrent() {
        return !partition.isRevoked() && partition.seekEpoch() == seekEpoch && partition.fetchOffset == fetchOffset;
    }
}
