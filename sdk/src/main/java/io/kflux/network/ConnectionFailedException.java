package io.kflux.network;

import java.net.InetSocketAddress;

/**
 * A connection to a broker could not be set up: nothing listens on the address, the TCP connect
 * did not finish within {@code socket.connection.setup.timeout.ms}, the name did not resolve, or
 * the ApiVersions negotiation that completes every connection failed (its cause then says why,
 * e.g. a {@link RequestTimeoutException} or an {@link UnsupportedVersionException}). Retriable
 * after the reconnect backoff.
 */
public class ConnectionFailedException extends NetworkException {
    private static final long serialVersionUID = 1L;

    private final transient InetSocketAddress address;

    /**
     * @param address the broker address that was tried, may be {@code null} when several were
     * @param message what failed
     * @param cause   the underlying error, may be {@code null}
     */
    public ConnectionFailedException(InetSocketAddress address, String message, Throwable cause) {
        super(message, cause);
        this.address = address;
    }

    /** The broker address that was tried, or {@code null} when several were (bootstrap). */
    public InetSocketAddress address() {
        return address;
    }
}
