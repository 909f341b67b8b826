package io.kflux.fetch;

import io.kflux.protocol.Errors;
import io.kflux.protocol.message.FetchResponse.PartitionData;
import java.util.List;

/**
 * What one Fetch answer means ({@link FetchResponseHandler}), for the fetcher to apply: either the broker's fetch
 * session failed (KIP-227) and the answer was dropped, or one outcome per current partition it names, in the
 * answer's order. Partitions answered but not asked for, or repositioned since, have no outcome (their records were
 * released).
 *
 * @param sessionError non-null when the whole answer was dropped
 * @param partitions   the partitions' outcomes; empty with a session error
 */
record FetchOutcome(SessionError sessionError, List<PartitionOutcome> partitions) {

    /**
     * The answer was dropped and the next Fetch to the broker is a full one.
     *
     * @param errorCode       the top-level error code (0 when only the session id or epoch was wrong)
     * @param refreshMetadata FETCH_SESSION_TOPIC_ID_ERROR: the topic ids the session holds are stale
     * @param fetchAtOnce     an incremental session the broker lost or that is out of step: the full Fetch goes out
     *                        at once (otherwise after {@code retry.backoff.ms})
     */
    record SessionError(short errorCode, boolean refreshMetadata, boolean fetchAtOnce) {
        Errors error() {
            return Errors.forCode(errorCode);
        }
    }

    /** One partition's part of the answer; {@link #target()} is the partition as the Fetch asked for it. */
    sealed interface PartitionOutcome {
        FetchTarget target();
    }

    /**
     * Records past the fetch offset, to hand on.
     *
     * @param answer    the partition's answer (log end offsets, preferred read replica)
     * @param fetch     the records, owned by whoever takes the outcome
     * @param lastEpoch the leader epoch of the last complete batch
     * @param records   records in the complete batches (for the metrics)
     */
    record Fetched(FetchTarget target, PartitionData answer, CompletedFetch fetch, int lastEpoch, int records)
            implements PartitionOutcome {
    }

    /**
     * An answer without records to hand on (records already released).
     *
     * @param empty   no records at all (lag is sampled now, as the official client does); false for a partial batch
     *                only, fetched again
     * @param records records scanned (a partial batch counts none)
     */
    record NoRecords(FetchTarget target, PartitionData answer, boolean empty, int records) implements PartitionOutcome {
    }

    /** KIP-320 via Fetch: the leader's log diverges; leader epoch {@code epoch} ends at {@code endOffset} there. */
    record Diverged(FetchTarget target, int epoch, long endOffset) implements PartitionOutcome {
    }

    /**
     * An error from the partition's preferred read replica (KIP-392): no verdict on the position; the partition goes
     * back to its leader after {@code retry.backoff.ms}.
     */
    record ReadReplicaFailed(FetchTarget target, Errors error) implements PartitionOutcome {
    }

    /** OFFSET_OUT_OF_RANGE at the target's fetch offset: reset by {@code auto.offset.reset}. */
    record OutOfRange(FetchTarget target) implements PartitionOutcome {
    }

    /** A leader error (stale metadata): metadata is refreshed and the partition waits {@code retry.backoff.ms}. */
    record LeaderError(FetchTarget target, Errors error) implements PartitionOutcome {
    }

    /** An error the consumer fails with ({@code error}, typed). */
    record Failed(FetchTarget target, Throwable error) implements PartitionOutcome {
    }
}
