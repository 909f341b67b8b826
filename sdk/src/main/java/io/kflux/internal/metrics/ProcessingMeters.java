package io.kflux.internal.metrics;

import java.util.function.IntSupplier;

/**
 * The meters of one {@code process()} subscription. Names no metrics library: only {@link #create} touches
 * Micrometer, and only when given a registry.
 */
public interface ProcessingMeters {
    /** Publishes nothing. */
    ProcessingMeters NONE = new ProcessingMeters() {
    };

    /**
     * Meters in {@code meterRegistry} (a {@code io.micrometer.core.instrument.MeterRegistry}), or {@link #NONE} when
     * it is null; tagged {@code client.id} and {@code kafka.version} as the consumer's own.
     *
     * @param inFlight records in flight now
     * @param waiting  records held and not started now
     * @param mostWaitingPerKey the most records held behind one key (one partition under PARTITION ordering) now
     */
    static ProcessingMeters create(Object meterRegistry, String clientId, IntSupplier inFlight, IntSupplier waiting,
                                   IntSupplier mostWaitingPerKey) {
        return meterRegistry == null ? NONE
                : MicrometerProcessingMeters.of(meterRegistry, clientId, inFlight, waiting, mostWaitingPerKey);
    }

    /** A handler call after a failed one. */
    default void retried() {
    }

    /** A record handed to the failure handler, whose {@code Mono} completed. */
    default void failedHandled() {
    }

    /** A record skipped after its last failed attempt. */
    default void skipped() {
    }

    /** A record finished (any outcome) {@code nanos} after its first handler call. */
    default void finished(long nanos) {
    }

    /** Withdraws the meters (the subscription ended). */
    default void close() {
    }
}
