package io.kflux.internal.metrics;

import io.kflux.ConsumerRecord;

/**
 * Opens one observation per record delivered downstream (Micrometer Observation): the W3C
 * {@code traceparent} header, when the producer wrote one, is offered to the tracer as the parent. Names no
 * Micrometer type: {@link #create(Object, String, String)} touches Micrometer only when given a registry, and
 * returns null otherwise, so the emitter's hot path stays a null check.
 */
public interface RecordTracing {

    /**
     * Tracing into {@code observationRegistry} (an {@code io.micrometer.observation.ObservationRegistry}), or null
     * when it is null (tracing off).
     *
     * @param clientId the consumer's {@code client.id}, a tag of every observation
     * @param groupId  the consumer's {@code group.id}, or null
     */
    static RecordTracing create(Object observationRegistry, String clientId, String groupId) {
        return observationRegistry == null ? null : ObservationRecordTracing.of(observationRegistry, clientId, groupId);
    }

    /** Runs {@code onNext} (the subscriber's) inside the observation of {@code record}. */
    void deliver(ConsumerRecord<?, ?> record, Runnable onNext);

    /**
     * The observation of {@code record}'s processing under {@code process()}, in place of {@link #deliver}'s: it
     * spans the handler's attempts (retries included) up to the record's end, so it is the one current while the
     * handler runs, on whatever thread an attempt starts.
     */
    Processing processing(ConsumerRecord<?, ?> record);

    /** One record's observation under {@code process()}. */
    interface Processing {
        /** Runs {@code call} (one handler call) with the observation current on this thread (opened in scope). */
        <T> T inScope(java.util.function.Supplier<T> call);

        /**
         * {@code handling} (every attempt) observed: started when subscribed, in the Reactor context under Micrometer's
         * observation key (so operators that restore it find it on other threads), stopped when it ends (before the end reaches
         * downstream, so a record seen done has a stopped observation), its error
         * recorded.
         */
        reactor.core.publisher.Mono<Void> around(reactor.core.publisher.Mono<Void> handling);
    }
}
