package io.kflux.fetch;

/**
 * One partition's answer to ListOffsets: the offset (next offset to read for -1/-2 queries; the
 * first offset whose timestamp is at or after the query otherwise), its timestamp (-1 when not
 * applicable) and the leader epoch (-1 unknown). {@code offset} is -1 when no such record exists.
 */
public record ListedOffset(long offset, long timestamp, int leaderEpoch) {
}
