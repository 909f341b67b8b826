package io.kflux.network;

/**
 * Base type of the failures of the network layer: a broker could not be reached, a connection
 * dropped, a request got no answer in time, or no API version is common to kflux and the broker.
 * Upper layers usually treat every subtype as "this broker connection is unusable now": refresh
 * metadata or rediscover the coordinator and try again on a new connection.
 */
public class NetworkException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the broker address
     */
    public NetworkException(String message) {
        super(message);
    }

    /**
     * @param message what failed, naming the broker address
     * @param cause   the underlying error, may be {@code null}
     */
    public NetworkException(String message, Throwable cause) {
        super(message, cause);
    }
}
