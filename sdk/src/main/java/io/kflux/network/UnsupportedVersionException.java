package io.kflux.network;

import io.kflux.protocol.ApiKey;

/**
 * No version of an API is supported by both kflux and the broker: the broker does not offer the
 * API at all, or its range (from ApiVersions) does not overlap the range kflux can code. Raised
 * by {@link BrokerConnection#exchange} before anything is sent, and as the cause of a
 * {@link ConnectionFailedException} when not even ApiVersions has a common version. Not
 * retriable against the same broker.
 */
public class UnsupportedVersionException extends NetworkException {
    private static final long serialVersionUID = 1L;

    private final ApiKey apiKey;

    /**
     * @param message which API, kflux's range and the broker's
     * @param apiKey  the API that has no common version
     */
    public UnsupportedVersionException(String message, ApiKey apiKey) {
        super(message);
        this.apiKey = apiKey;
    }

    /** The API that has no common version. */
    public ApiKey apiKey() {
        return apiKey;
    }
}
