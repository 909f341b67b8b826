package io.kflux.commit;

import io.kflux.OffsetAndMetadata;
import java.util.Optional;

/**
 * An offset to commit: {@code offset} is the next offset to read (one past the last processed
 * record), {@code leaderEpoch} that record's leader epoch or -1 (KIP-320), {@code metadata} free text.
 */
public record CommitOffset(long offset, int leaderEpoch, String metadata) {

    /** The public value's epoch, -1 when absent (what OffsetCommit sends for "unknown"). */
    public static CommitOffset of(OffsetAndMetadata om) {
        return new CommitOffset(om.offset(), om.leaderEpoch().orElse(-1), om.metadata());
    }

    /** As the public value: a negative epoch (the protocol's "unknown") becomes an empty Optional. */
    public OffsetAndMetadata toPublic() {
        return new OffsetAndMetadata(offset, metadata, leaderEpoch >= 0 ? Optional.of(leaderEpoch) : Optional.empty());
    }
}
