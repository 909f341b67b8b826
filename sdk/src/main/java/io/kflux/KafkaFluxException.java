package io.kflux;

/**
 * Base of every error kflux raises (unchecked, so it travels through Reactor's {@code onError} unchanged).
 *
 * <p>{@link #isRetriable()} says whether repeating the same operation may succeed without any change by the
 * application (for broker errors this is the retriable flag of the protocol's error code table).
 */
public class KafkaFluxException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates an error with a message.
     *
     * @param message what went wrong
     */
    public KafkaFluxException(String message) {
        super(message);
    }

    /**
     * Creates an error with a message and a cause.
     *
     * @param message what went wrong
     * @param cause   the underlying error, may be {@code null}
     */
    public KafkaFluxException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Whether repeating the operation unchanged may succeed.
     *
     * @return {@code false} unless a subclass says otherwise
     */
    public boolean isRetriable() {
        return false;
    }
}
