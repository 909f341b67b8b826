package io.kflux.fetch;

/**
 * The fetch path's settings, all with the official consumer's names and units.
 *
 * @param maxWaitMs            {@code fetch.max.wait.ms}: how long the broker may hold a Fetch for {@code minBytes}
 * @param minBytes             {@code fetch.min.bytes}
 * @param maxBytes             {@code fetch.max.bytes}: per Fetch response (a first oversized batch still comes, KIP-74)
 * @param partitionMaxBytes    {@code max.partition.fetch.bytes}
 * @param isolationLevel       0 read_uncommitted, 1 read_committed ({@code isolation.level})
 * @param rackId               {@code client.rack} ("" for none)
 * @param maxBufferedBytes     fetched-but-not-emitted bytes above which no Fetch is sent
 * @param retryBackoffMs       {@code retry.backoff.ms}: pause after a failed Fetch or ListOffsets
 * @param checkCrcs            {@code check.crcs}
 * @param metadataMaxAgeMs     {@code metadata.max.age.ms}: also how long a preferred read replica named by the leader
 *                             is used before asking the leader again (KIP-392)
 */
public record FetchConfig(int maxWaitMs, int minBytes, int maxBytes, int partitionMaxBytes, byte isolationLevel,
                          String rackId, long maxBufferedBytes, long retryBackoffMs, boolean checkCrcs,
                          long metadataMaxAgeMs) {

    /** True with {@code isolation.level=read_committed}: the end of a partition is its last stable offset. */
    public boolean readCommitted() {
        return isolationLevel == 1;
    }
}
