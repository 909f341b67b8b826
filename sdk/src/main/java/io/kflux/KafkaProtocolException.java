package io.kflux;

/**
 * A broker answered with an error code that kflux does not turn into a more specific exception (or that it
 * could not handle by retrying). Carries the code and name from the protocol's error table
 * (see "Error Codes" in the Kafka protocol guide), e.g. 10 {@code MESSAGE_TOO_LARGE}. Codes 29
 * {@code TOPIC_AUTHORIZATION_FAILED} and 30 {@code GROUP_AUTHORIZATION_FAILED} always come as the subclasses
 * {@link TopicAuthorizationException} and {@link GroupAuthorizationException}.
 */
public class KafkaProtocolException extends KafkaFluxException {

    private static final long serialVersionUID = 1L;

    /** Broker error code. */
    private final short errorCode;
    /** Its name in the error table. */
    private final String errorName;
    /** Its retriable flag. */
    private final boolean retriable;

    /**
     * Creates the error.
     *
     * @param errorCode the broker's error code (non-zero)
     * @param errorName its name in the protocol's error table, e.g. {@code NOT_LEADER_OR_FOLLOWER}
     * @param retriable the retriable flag of that error code in the protocol's error table
     * @param message   the request that failed, and the broker's error message when it sent one
     */
    public KafkaProtocolException(short errorCode, String errorName, boolean retriable, String message) {
        this(errorCode, errorName, retriable, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param errorCode the broker's error code (non-zero)
     * @param errorName its name in the protocol's error table
     * @param retriable the retriable flag of that error code
     * @param message   details
     * @param cause     the underlying error, may be {@code null}
     */
    public KafkaProtocolException(short errorCode, String errorName, boolean retriable, String message,
                                  Throwable cause) {
        super(errorName + " (" + errorCode + "): " + message, cause);
        this.errorCode = errorCode;
        this.errorName = errorName;
        this.retriable = retriable;
    }

    /**
     * The broker's error code.
     *
     * @return the code from the protocol's error table
     */
    public short errorCode() {
        return errorCode;
    }

    /**
     * The error code's name.
     *
     * @return e.g. {@code GROUP_AUTHORIZATION_FAILED}
     */
    public String errorName() {
        return errorName;
    }

    /**
     * The retriable flag of the error code in the protocol's error table.
     *
     * @return whether the same request may succeed later
     */
    @Override
    public boolean isRetriable() {
        return retriable;
    }
}
