package io.kflux.network;

import io.kflux.protocol.ApiKey;

/**
 * A request got no response within {@code request.timeout.ms} of being written. The connection it
 * was sent on is closed as well (see {@link BrokerConnection}), so the other requests in flight on
 * it fail with {@link DisconnectedException}. Whether the broker processed the request is unknown.
 * Retriable on a new connection.
 */
public class RequestTimeoutException extends NetworkException {
    private static final long serialVersionUID = 1L;

    private final ApiKey apiKey;
    private final long timeoutMs;

    /**
     * @param message   which broker and request
     * @param apiKey    the API of the request
     * @param timeoutMs the timeout that elapsed, in milliseconds
     */
    public RequestTimeoutException(String message, ApiKey apiKey, long timeoutMs) {
        super(message);
        this.apiKey = apiKey;
        this.timeoutMs = timeoutMs;
    }

    /** The API of the request that timed out. */
    public ApiKey apiKey() {
        return apiKey;
    }

    /** The timeout that elapsed, in milliseconds. */
    public long timeoutMs() {
        return timeoutMs;
    }
}
