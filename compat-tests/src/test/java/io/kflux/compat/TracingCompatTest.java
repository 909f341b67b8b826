package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Tracing: the producer writes a W3C {@code traceparent} header; kflux opens one observation per record delivered
 * to the subscriber, whose receiver context hands a tracing handler that header, so the consumer span's parent is
 * the producer's span. An in-memory handler stands in for Micrometer Tracing's propagating receiver handler: it
 * reads the parent the way that one does, through the context's getter.
 */
@KafkaTest(nodes = 1)
class TracingCompatTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PRODUCER_SPAN_ID = "00f067aa0ba902b7";

    /** What a propagating handler sees: the parent read through the context's getter, the kind, the topic. */
    private record Seen(String parentSpanId, String traceId, Kind kind, String topic) {
    }

    @Test
    void eachDeliveredRecordIsObservedWithTheProducersSpanAsItsParent(EmbeddedKafkaCluster kafka) {
        String topic = "traced";
        kafka.createTopic(topic, 1, 1);
        try (KafkaProducer<String, String> producer = SampleData.producer(kafka.bootstrapServers())) {
            for (int i = 0; i < 5; i++) {
                ProducerRecord<String, String> r = new ProducerRecord<>(topic, "k" + i, "v" + i);
                if (i < 4) { // the last one has no trace context: observed, with no parent
                    r.headers().add("traceparent",
                            ("00-" + TRACE_ID + "-" + PRODUCER_SPAN_ID + "-01").getBytes(StandardCharsets.US_ASCII));
                }
                producer.send(r);
            }
            producer.flush();
        }
        TestObservationRegistry registry = TestObservationRegistry.create();
        ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
        java.util.concurrent.atomic.AtomicInteger stopped = new java.util.concurrent.atomic.AtomicInteger();
        registry.observationConfig().observationHandler(new ObservationHandler<ReceiverContext<Object>>() {
            @Override
            public void onStart(ReceiverContext<Object> context) {
                String traceparent = context.getGetter().get(context.getCarrier(), "traceparent");
                String[] parts = traceparent == null ? null : traceparent.split("-");
                seen.add(new Seen(parts == null ? null : parts[2], parts == null ? null : parts[1], context.getKind(),
                        context.getLowCardinalityKeyValue("messaging.destination.name").getValue()));
            }

            @Override
            public void onStop(ReceiverContext<Object> context) {
                stopped.incrementAndGet();
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof ReceiverContext;
            }
        });
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "group.id", "traced-group");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                        .subscription(List.of(topic)).withObservationRegistry(registry));
        ConcurrentLinkedQueue<Boolean> observedInOnNext = new ConcurrentLinkedQueue<>();
        try {
            List<ConsumerRecord<String, String>> records = consumer.receive()
                    .doOnNext(r -> observedInOnNext.add(registry.getCurrentObservation() != null))
                    .take(5).collectList().block(Duration.ofSeconds(60));
            assertThat(records).hasSize(5);
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
        // one observation per record, each open while the subscriber's onNext ran
        assertThat(observedInOnNext).hasSize(5).containsOnly(true);
        assertThat(seen).hasSize(5);
        assertThat(stopped).hasValue(5);
        assertThat(seen).allMatch(s -> s.kind() == Kind.CONSUMER && s.topic().equals(topic));
        assertThat(seen).filteredOn(s -> s.parentSpanId() != null).hasSize(4)
                .allMatch(s -> s.parentSpanId().equals(PRODUCER_SPAN_ID) && s.traceId().equals(TRACE_ID));
        TestObservationRegistryAssert.assertThat(registry)
                .hasNumberOfObservationsWithNameEqualTo("kflux.consumer.process", 5)
                .forAllObservationsWithNameEqualTo("kflux.consumer.process", o -> o
                        .hasLowCardinalityKeyValue("messaging.system", "kafka")
                        .hasLowCardinalityKeyValue("messaging.kafka.consumer.group", "traced-group")
                        .hasContextualNameEqualTo(topic + " process"));
    }
}
