package io.kflux;

/**
 * An operation did not complete within its time budget: {@code default.api.timeout.ms} for commits, offset
 * lookups and seeks to beginning/end, {@code request.timeout.ms} for a single request, or the
 * {@link java.time.Duration} given to {@code close(Duration)}.
 *
 * <p>Retriable: the cluster may simply have been slow or unreachable for a while.
 */
public class TimeoutException extends KafkaFluxException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what timed out and after how many ms
     */
    public TimeoutException(String message) {
        super(message);
    }

    /**
     * Creates the error with the last error seen before giving up.
     *
     * @param message what timed out and after how many ms
     * @param cause   the last retriable error, may be {@code null}
     */
    public TimeoutException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Always {@code true}.
     *
     * @return {@code true}
     */
    @Override
    public boolean isRetriable() {
        return true;
    }
}
