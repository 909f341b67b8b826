package io.kflux;

/**
 * The broker does not support a version of an API that kflux needs: the version ranges from the ApiVersions
 * exchange (KIP-35, KIP-511) do not overlap, or the broker answered UNSUPPORTED_VERSION (code 35). Also
 * raised when a feature needs a newer API version than the broker offers (e.g. {@code group.protocol=consumer}
 * needs ConsumerGroupHeartbeat, KIP-848).
 *
 * <p>Not retriable against the same broker version.
 */
public class UnsupportedVersionException extends KafkaFluxException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message which API (name and key), which versions kflux supports and which the broker offers
     */
    public UnsupportedVersionException(String message) {
        super(message);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message which API and versions
     * @param cause   the underlying error, may be {@code null}
     */
    public UnsupportedVersionException(String message, Throwable cause) {
        super(message, cause);
    }
}
