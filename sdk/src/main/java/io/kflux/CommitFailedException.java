package io.kflux;

/**
 * An offset commit was rejected because this member no longer owns the partitions in the generation it
 * committed for: the group rebalanced (REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID in the
 * OffsetCommit response, or STALE_MEMBER_EPOCH / UNKNOWN_MEMBER_ID with the KIP-848 protocol).
 *
 * <p>Not retriable as such: the records behind those offsets may now be processed by another member. After
 * the rebalance completes, the partitions this member gets are read from their committed offsets again.
 */
public class CommitFailedException extends KafkaFluxException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message which commit failed and why
     */
    public CommitFailedException(String message) {
        super(message);
    }

    /**
     * Creates the error with a cause (usually the {@link KafkaProtocolException} of the broker's answer).
     *
     * @param message which commit failed and why
     * @param cause   the underlying error, may be {@code null}
     */
    public CommitFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
