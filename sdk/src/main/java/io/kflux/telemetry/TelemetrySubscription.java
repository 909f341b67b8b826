package io.kflux.telemetry;

import java.util.List;
import java.util.UUID;

/**
 * What a broker asked this client to push (GetTelemetrySubscriptions response, KIP-714).
 *
 * @param clientInstanceId     the client's instance id (the broker assigns it on the first request)
 * @param subscriptionId       echoed in each push; a changed subscription makes the broker answer
 *                             UNKNOWN_SUBSCRIPTION_ID
 * @param acceptedCompressions record-batch compression ids the broker accepts, its preference first; empty: none
 * @param pushIntervalMs       milliseconds between pushes
 * @param telemetryMaxBytes    the largest payload the broker takes
 * @param deltaTemporality     counters as deltas since the last push (true) or cumulative (false)
 * @param requestedMetrics     metric name prefixes; empty: nothing subscribed; a single "": everything
 */
public record TelemetrySubscription(UUID clientInstanceId, int subscriptionId, List<Byte> acceptedCompressions,
                                    int pushIntervalMs, int telemetryMaxBytes, boolean deltaTemporality,
                                    List<String> requestedMetrics) {

    public TelemetrySubscription {
        acceptedCompressions = List.copyOf(acceptedCompressions);
        requestedMetrics = List.copyOf(requestedMetrics);
    }

    /** True when metrics are subscribed at all. */
    public boolean wantsMetrics() {
        return !requestedMetrics.isEmpty();
    }

    /** Whether a metric of this name is subscribed (a prefix of {@link #requestedMetrics()} matches it). */
    public boolean selects(String metricName) {
        for (String prefix : requestedMetrics) {
            if (metricName.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
