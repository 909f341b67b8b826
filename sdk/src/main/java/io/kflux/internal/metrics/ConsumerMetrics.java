package io.kflux.internal.metrics;

import io.kflux.telemetry.MetricPoint;
import io.kflux.util.ClientMetrics;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A consumer's metrics as the consumer itself drives them: the events of {@link ClientMetrics} plus when its meters
 * are published and withdrawn, and kflux's own figures. Names no metrics library: only
 * {@link #create(Object, String)} touches Micrometer, and only when given a registry, so kflux runs without
 * Micrometer on the class path.
 */
public interface ConsumerMetrics extends ClientMetrics {

    /** Publishes nothing. */
    ConsumerMetrics NONE = new ConsumerMetrics() {
        @Override
        public String toString() {
            return "no metrics";
        }
    };

    /**
     * The metrics of consumer {@code clientId}: Micrometer meters in {@code meterRegistry} (a
     * {@code io.micrometer.core.instrument.MeterRegistry}), or {@link #NONE} when it is null.
     */
    static ConsumerMetrics create(Object meterRegistry, String clientId) {
        return meterRegistry == null ? NONE : MicrometerConsumerMetrics.of(meterRegistry, clientId);
    }

    /**
     * As {@link #create(Object, String)}, and when {@code meterRegistry} is null but client telemetry needs the
     * meters ({@code enable.metrics.push}, KIP-714) and Micrometer is on the class path: the meters in a registry of
     * this consumer's own, read only by telemetry. {@link #NONE} when Micrometer is absent.
     */
    static ConsumerMetrics create(Object meterRegistry, String clientId, boolean forTelemetry) {
        if (meterRegistry != null || !forTelemetry || !micrometerPresent()) {
            return create(meterRegistry, clientId);
        }
        return MicrometerConsumerMetrics.ofOwnRegistry(clientId);
    }

    /** Whether micrometer-core (an optional dependency) is on the class path. */
    static boolean micrometerPresent() {
        try {
            Class.forName("io.micrometer.core.instrument.simple.SimpleMeterRegistry", false,
                    ConsumerMetrics.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * The official client's metrics among these meters as client telemetry pushes them (KIP-714 names:
     * {@code org.apache.kafka.consumer.*}), read now; kflux's own meters left out. Empty for {@link #NONE}.
     */
    default List<MetricPoint> telemetryPoints() {
        return List.of();
    }

    /**
     * kflux's own figures, read when a meter is read; each supplier returns -1 while unknown. {@code classicGroup}
     * is false under {@code group.protocol=consumer} (KIP-848), which has no JoinGroup or SyncGroup to time (the
     * official consumer publishes no join or sync meters in that mode either).
     */
    record Figures(LongSupplier bufferedBytes, long maxBufferedBytes, LongSupplier demand,
                   LongSupplier assignedPartitions, boolean classicGroup) {
    }

    /** Publishes the meters (first subscription); later calls do nothing. */
    default void start(Figures figures) {
    }

    /**
     * Partition {@code topic}-{@code partition}: how many offsets were acknowledged but not committed yet (what a
     * crash would deliver again), read when the meter is read; -1 while unknown.
     */
    default void uncommitted(String topic, int partition, LongSupplier offsets) {
    }

    /** A callback of the application's {@code RebalanceListener}. */
    enum ListenerCallback {
        ASSIGNED, REVOKED, LOST
    }

    /**
     * The application's {@code RebalanceListener} ran {@code callback} for {@code latencyNanos}, until its
     * {@code Mono} ended (or timed out); as the official client's {@code partition-assigned/-revoked/-lost-latency}.
     */
    default void listenerCalled(ListenerCallback callback, long latencyNanos) {
    }

    /** Withdraws every meter of this consumer (close); later events are ignored. */
    default void close() {
    }
}
