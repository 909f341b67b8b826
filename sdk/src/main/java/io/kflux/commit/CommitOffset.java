package io.kflux.commit;

/**
 * An offset to commit: {@code offset} is the next offset to read (one past the last processed
 * record), {@code leaderEpoch} that record's leader epoch or -1 (KIP-320), {@code metadata} free text.
 */
public record CommitOffset(long offset, int leaderEpoch, String metadata) {
}
