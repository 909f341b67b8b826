package io.kflux.internal.metrics;

import io.kflux.util.ClientMetrics;

/**
 * A share consumer's metrics: the share events of {@link ClientMetrics} as meters when the application gave a
 * registry ({@code ShareConsumerOptions.withMeterRegistry}), nothing otherwise.
 */
public interface ShareMeters extends ClientMetrics {

    /** Reports nothing. */
    ShareMeters NONE = new ShareMeters() {
        @Override
        public String toString() {
            return "no share meters";
        }
    };

    /**
     * @param meterRegistry a Micrometer {@code MeterRegistry}, or null for none
     * @param clientId      the {@code client.id} tag
     * @throws IllegalArgumentException when {@code meterRegistry} is not a Micrometer registry
     */
    static ShareMeters create(Object meterRegistry, String clientId) {
        return meterRegistry == null ? NONE : MicrometerShareMeters.of(meterRegistry, clientId);
    }

    /** Withdraws the meters (the consumer stopped). */
    default void close() {
    }
}
