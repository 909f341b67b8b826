package io.kflux.share;

import io.kflux.KafkaFluxException;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ShareFetchResponse.AcquiredRecords;
import java.util.List;

/**
 * What one ShareFetch or ShareAcknowledge answer means ({@link ShareFetchResponseHandler}), for {@link ShareFetcher}
 * to apply: a verdict on the whole answer and, when the broker took it, one outcome per partition the answer names
 * (in its order) and per partition the request carried acknowledgements for and the answer left out.
 *
 * @param verdict        what the top-level error code says
 * @param errorCode      the top-level error code, for the share session ({@link ShareSession#onAnswer})
 * @param error          the top-level error, typed; null when {@link Verdict#ANSWERED}. Every acknowledgement the
 *                       request carried fails with it
 * @param throttleMs     the broker's {@code ThrottleTimeMs}
 * @param partitions     the partitions' outcomes; empty unless {@link Verdict#ANSWERED}
 * @param acknowledged   offsets the request acknowledged (gaps and renewals included), for the metrics
 * @param refused        those of them that failed (their partition's error, the top-level one, or left out)
 * @param fetchedBytes   bytes of record batches a ShareFetch answered with, for the metrics (0 for others)
 * @param fetchedRecords offsets a ShareFetch acquired, for the metrics (0 for others)
 */
record ShareOutcome(Verdict verdict, short errorCode, KafkaFluxException error, int throttleMs,
                    List<PartitionOutcome> partitions, int acknowledged, int refused, long fetchedBytes,
                    int fetchedRecords) {

    /** What the top-level error code of an answer says (KIP-932). */
    enum Verdict {
        /** No top-level error: each partition's part is in {@link #partitions()}. */
        ANSWERED,
        /**
         * SHARE_SESSION_NOT_FOUND or INVALID_SHARE_SESSION_EPOCH: the broker lost or rejects the share session, the
         * next request opens a new one (epoch 0). The acknowledgements the request carried failed; those gathered
         * since stay pending for the new session. Retried after {@code retry.backoff.ms}, growing.
         */
        SESSION_LOST,
        /** Another error no retry mends: GROUP_AUTHORIZATION_FAILED, TOPIC_AUTHORIZATION_FAILED. The consumer ends. */
        FATAL,
        /**
         * Any other top-level error: the acknowledgements the request carried failed, the session is as before the
         * request, and the next request goes after {@code retry.backoff.ms}, growing.
         */
        RETRY
    }

    /**
     * One partition's part of the answer.
     *
     * @param partition        the partition
     * @param acknowledgeError what the waiters of the acknowledgements the request carried for it hear; null when
     *                         the broker confirmed them (RENEWs among them hold their records again for
     *                         {@code lockMs})
     * @param lockMs           the answer's {@code AcquisitionLockTimeoutMs} (0 when the answer has none, or left
     *                         the partition out)
     * @param result           what else the answer says of it; null for nothing (no records acquired)
     */
    record PartitionOutcome(SharePartition partition, KafkaFluxException acknowledgeError, int lockMs,
                            Result result) {
    }

    /** What an answer says of a partition beyond its acknowledgements. */
    sealed interface Result {
    }

    /** A ShareFetch acquired records of an assigned partition: the sink takes {@code batch} (and its buffer). */
    record Acquired(AcquiredBatch batch) implements Result {
    }

    /**
     * A ShareFetch acquired records of a partition no longer assigned (buffer released): they are released to the
     * group again by the broker's next request.
     */
    record NotAssigned(List<AcquiredRecords> acquired) implements Result {
    }

    /** A leader error (stale metadata): metadata is refreshed. */
    record LeaderError(Errors error) implements Result {
    }

    /** An error the consumer ends with (TOPIC_AUTHORIZATION_FAILED on a ShareFetch). */
    record Fatal(KafkaFluxException error) implements Result {
    }

    /**
     * Another error of a ShareFetch partition: logged; the partition stays in the session and is fetched again.
     *
     * @param partition the partition by name, or by topic id when it is not assigned
     * @param errorCode the partition's {@code ErrorCode}
     * @param message   the partition's {@code ErrorMessage}, or null
     */
    record PartitionError(String partition, short errorCode, String message) implements Result {
    }

    /**
     * A request that got no answer (connection lost, timed out, refused before sending).
     *
     * @param error what the acknowledgements it carried fail with, typed
     * @param fatal whether the consumer ends: a broker without ShareFetch/ShareAcknowledge v1 (not for a
     *              renewal refused by a broker without v2: those locks run out, nothing else changes)
     */
    record NoAnswer(KafkaFluxException error, boolean fatal) {
    }
}
