package io.kflux.network;

/**
 * The connection a request was sent on (or was about to be sent on) is closed: the broker closed
 * it, the network dropped it, the client closed it ({@link BrokerConnection#close()}), or it was
 * closed because the byte stream could no longer be trusted (another request timed out, a
 * response was malformed). The cause, when present, is that triggering error. Whether the broker
 * processed the request is unknown. Retriable on a new connection.
 */
public class DisconnectedException extends NetworkException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message which connection and which request
     */
    public DisconnectedException(String message) {
        super(message);
    }

    /**
     * @param message which connection and which request
     * @param cause   why the connection closed, may be {@code null}
     */
    public DisconnectedException(String message, Throwable cause) {
        super(message, cause);
    }
}
