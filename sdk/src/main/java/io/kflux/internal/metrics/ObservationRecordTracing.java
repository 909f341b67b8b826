package io.kflux.internal.metrics;

import io.kflux.ConsumerRecord;
import io.kflux.Header;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import java.nio.charset.StandardCharsets;

/**
 * {@link RecordTracing} on Micrometer Observation: a {@link ReceiverContext} (kind CONSUMER) per record whose
 * getter reads the record's headers, so a tracing handler (Micrometer Tracing's propagating receiver handler,
 * OpenTelemetry's bridge) continues the W3C {@code traceparent} the producer wrote; the observation spans the
 * subscriber's {@code onNext}, or under {@code process()} the record's handling (every attempt). Named {@value #NAME}, contextual name {@code "<topic> process"} as OpenTelemetry's
 * messaging conventions name a consumer span; tags {@code messaging.system=kafka}, {@code messaging.operation=process},
 * {@code messaging.destination.name}, {@code messaging.kafka.consumer.group}, {@code messaging.client.id}
 * (low cardinality), {@code messaging.kafka.destination.partition} and {@code messaging.kafka.message.offset} (high).
 */
final class ObservationRecordTracing implements RecordTracing {
    static final String NAME = "kflux.consumer.process";
    /**
     * Where Micrometer keeps the current observation in a Reactor context ({@code ObservationThreadLocalAccessor.KEY},
     * written out: that class needs the context-propagation library, which kflux does not require).
     */
    static final String OBSERVATION_KEY = "micrometer.observation";

    private final ObservationRegistry registry;
    private final String clientId;
    private final String groupId;

    private ObservationRecordTracing(ObservationRegistry registry, String clientId, String groupId) {
        this.registry = registry;
        this.clientId = clientId;
        this.groupId = groupId;
    }

    static RecordTracing of(Object registry, String clientId, String groupId) {
        if (!(registry instanceof ObservationRegistry r)) {
            throw new IllegalArgumentException("not a Micrometer ObservationRegistry: " + registry.getClass().getName());
        }
        return new ObservationRecordTracing(r, clientId, groupId);
    }

    /** The last header {@code key} of the record as UTF-8 text (W3C trace context headers are ASCII), or null. */
    private static String header(ConsumerRecord<?, ?> record, String key) {
        Header h = record.headers().lastHeader(key);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void deliver(ConsumerRecord<?, ?> record, Runnable onNext) {
        observation(record).observe(onNext);
    }

    @Override
    public Processing processing(ConsumerRecord<?, ?> record) {
        Observation observation = observation(record);
        return new Processing() {
            @Override
            public <T> T inScope(java.util.function.Supplier<T> call) {
                try (Observation.Scope scope = observation.openScope()) {
                    return call.get();
                }
            }

            @Override
            public reactor.core.publisher.Mono<Void> around(reactor.core.publisher.Mono<Void> handling) {
                return reactor.core.publisher.Mono.defer(() -> {
                    observation.start();
                    // stopped before the end is signalled (not in doFinally, which runs after it): the driver
                    // emits the record's ProcessedRecord on completion, and a record seen done has a stopped span
                    return handling.doOnError(observation::error)
                            .doOnTerminate(observation::stop)
                            .doOnCancel(observation::stop)
                            .contextWrite(c -> c.put(OBSERVATION_KEY, observation));
                });
            }
        };
    }

    private Observation observation(ConsumerRecord<?, ?> record) {
        ReceiverContext<ConsumerRecord<?, ?>> context = new ReceiverContext<>(ObservationRecordTracing::header,
                Kind.CONSUMER);
        context.setCarrier(record);
        context.setRemoteServiceName("kafka");
        Observation observation = Observation.createNotStarted(NAME, () -> context, registry)
                .contextualName(record.topic() + " process")
                .lowCardinalityKeyValue("messaging.system", "kafka")
                .lowCardinalityKeyValue("messaging.operation", "process")
                .lowCardinalityKeyValue("messaging.destination.name", record.topic())
                .lowCardinalityKeyValue("messaging.client.id", clientId)
                .highCardinalityKeyValue("messaging.kafka.destination.partition", Integer.toString(record.partition()))
                .highCardinalityKeyValue("messaging.kafka.message.offset", Long.toString(record.offset()));
        if (groupId != null) {
            observation.lowCardinalityKeyValue("messaging.kafka.consumer.group", groupId);
        }
        return observation;
    }
}
