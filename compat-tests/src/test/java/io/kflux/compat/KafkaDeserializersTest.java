package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RecordDeserializationException;
import io.kflux.TopicPartition;
import io.kflux.compat.support.Kflux;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.kafka.serde.KafkaDeserializerAdapter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Kafka's own deserializers on kflux through {@code kflux-kafka-serde}: records written by the official producer
 * with {@code StringSerializer} and a JSON serializer that puts the value's type in a header are read back equal,
 * from class names in a property map as with the official client.
 */
@KafkaTest(nodes = 1)
class KafkaDeserializersTest {

    /** The value type written as JSON. */
    public record Order(String id, int quantity, List<String> items) {
    }

    static final String TYPE_HEADER = "value-type";
    static final ObjectMapper JSON = new ObjectMapper();

    /** Writes JSON and names the value's class in a header, as JSON serializers of frameworks commonly do. */
    public static final class JsonSerializer implements Serializer<Object> {
        @Override
        public byte[] serialize(String topic, Object data) {
            throw new IllegalStateException("the headers variant is used by the producer");
        }

        @Override
        public byte[] serialize(String topic, Headers headers, Object data) {
            headers.add(TYPE_HEADER, data.getClass().getName().getBytes(StandardCharsets.UTF_8));
            try {
                return JSON.writeValueAsBytes(data);
            } catch (IOException e) {
                throw new SerializationException(e);
            }
        }
    }

    /** Reads JSON into the class the header names; without headers it cannot work. Counts its lifecycle calls. */
    public static final class JsonDeserializer implements Deserializer<Object> {
        static final AtomicInteger CONFIGURES = new AtomicInteger();
        static final AtomicInteger CLOSES = new AtomicInteger();
        static final List<Object> CONFIGURED_WITH = new ArrayList<>();

        @Override
        public void configure(Map<String, ?> configs, boolean isKey) {
            CONFIGURES.incrementAndGet();
            CONFIGURED_WITH.add(configs.get("json.trusted.package"));
            CONFIGURED_WITH.add(isKey);
        }

        @Override
        public Object deserialize(String topic, byte[] data) {
            throw new SerializationException("no " + TYPE_HEADER + " header: the headers variant must be called");
        }

        @Override
        public Object deserialize(String topic, Headers headers, byte[] data) {
            Header type = headers.lastHeader(TYPE_HEADER);
            if (type == null) {
                throw new SerializationException("no " + TYPE_HEADER + " header");
            }
            try {
                return JSON.readValue(data, Class.forName(new String(type.value(), StandardCharsets.UTF_8)));
            } catch (IOException | ClassNotFoundException e) {
                throw new SerializationException(e);
            }
        }

        @Override
        public void close() {
            CLOSES.incrementAndGet();
        }
    }

    /** The official StringDeserializer, counting its lifecycle calls (a subclass, so the adapter runs it). */
    public static final class CountingStringDeserializer extends StringDeserializer {
        static final AtomicInteger CONFIGURES = new AtomicInteger();
        static final AtomicInteger CLOSES = new AtomicInteger();

        @Override
        public void configure(Map<String, ?> configs, boolean isKey) {
            CONFIGURES.incrementAndGet();
            super.configure(configs, isKey);
        }

        @Override
        public void close() {
            CLOSES.incrementAndGet();
            super.close();
        }
    }

    /** Throws on the value "boom". */
    public static final class PickyDeserializer implements Deserializer<String> {
        @Override
        public String deserialize(String topic, byte[] data) {
            String s = new String(data, StandardCharsets.UTF_8);
            if (s.equals("boom")) {
                throw new SerializationException("cannot read " + s);
            }
            return s;
        }
    }

    private static Map<String, Object> producerProps(EmbeddedKafkaCluster kafka, Class<?> valueSerializer) {
        return Map.of("bootstrap.servers", kafka.bootstrapServers(), "key.serializer", StringSerializer.class,
                      "value.serializer", valueSerializer, "linger.ms", 5);
    }

    private static Order order(int i) {
        return new Order("order-" + i, i % 7, List.of("item-" + i, "item-" + (i + 1)));
    }

    @Test
    void recordsWrittenWithStringAndJsonSerializersReadEqualFromClassNames(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("orders-json", 3, 1);
        try (KafkaProducer<String, Object> producer = new KafkaProducer<>(producerProps(kafka, JsonSerializer.class))) {
            for (int i = 0; i < 300; i++) {
                producer.send(new ProducerRecord<>("orders-json", "key-" + i, order(i)));
            }
            producer.flush();
        }
        int configuresBefore = JsonDeserializer.CONFIGURES.get();
        int closesBefore = JsonDeserializer.CLOSES.get();
        int stringConfiguresBefore = CountingStringDeserializer.CONFIGURES.get();
        int stringClosesBefore = CountingStringDeserializer.CLOSES.get();
        JsonDeserializer.CONFIGURED_WITH.clear();

        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(),
                "key.deserializer", CountingStringDeserializer.class.getName(),
                "value.deserializer", JsonDeserializer.class.getName(),
                "json.trusted.package", "io.kflux.compat");
        ConsumerOptions<String, Object> options = ConsumerOptions.<String, Object>fromProperties(props)
                .assignment(Kflux.partitions("orders-json", 3));
        assertThat(options.valueDeserializer()).isInstanceOf(KafkaDeserializerAdapter.class);
        KafkaFluxConsumer<String, Object> consumer = KafkaFluxConsumer.create(options);
        List<ConsumerRecord<String, Object>> records = consumer.receive().take(300).collectList()
                .block(Duration.ofSeconds(60));
        consumer.close().block(Duration.ofSeconds(30));
        consumer.close().block(Duration.ofSeconds(30));

        assertThat(records).hasSize(300);
        for (ConsumerRecord<String, Object> r : records) {
            int i = Integer.parseInt(r.key().substring("key-".length()));
            assertThat(r.value()).isEqualTo(order(i));
            assertThat(r.headers().lastHeader(TYPE_HEADER).valueAsString()).isEqualTo(Order.class.getName());
        }
        assertThat(JsonDeserializer.CONFIGURES.get() - configuresBefore).isEqualTo(1);
        assertThat(JsonDeserializer.CONFIGURED_WITH).containsExactly("io.kflux.compat", false);
        assertThat(JsonDeserializer.CLOSES.get() - closesBefore).isEqualTo(1);
        assertThat(CountingStringDeserializer.CONFIGURES.get() - stringConfiguresBefore).isEqualTo(1);
        assertThat(CountingStringDeserializer.CLOSES.get() - stringClosesBefore).isEqualTo(1);
    }

    @Test
    void stringsWrittenByTheOfficialProducerReadEqualThroughTheAdapter(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("strings", 2, 1);
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(producerProps(kafka, StringSerializer.class))) {
            for (int i = 0; i < 200; i++) {
                String value = i % 10 == 0 ? "" : "wert-" + i + "-\u00e4\u00f6\u00fc-\u6771\u4eac";
                sent.add(value);
                producer.send(new ProducerRecord<>("strings", "k" + i, value));
            }
            producer.send(new ProducerRecord<>("strings", "null-value", null));
            producer.flush();
        }
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "value.deserializer.encoding", "UTF-8");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(props,
                        KafkaDeserializerAdapter.configured(new StringDeserializer(), props, true),
                        KafkaDeserializerAdapter.configured(new StringDeserializer(), props, false))
                .assignment(Kflux.partitions("strings", 2)));
        List<ConsumerRecord<String, String>> records = consumer.receive().take(201).collectList()
                .block(Duration.ofSeconds(60));
        consumer.close().block(Duration.ofSeconds(30));

        List<String> values = new ArrayList<>();
        for (ConsumerRecord<String, String> r : records) {
            if (r.key().equals("null-value")) {
                assertThat(r.value()).isNull();
            } else {
                values.add(r.value());
                assertThat(r.value()).isEqualTo(sent.get(Integer.parseInt(r.key().substring(1))));
            }
        }
        assertThat(values).containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void throwingDeserializerEndsReceiveAtTheOffsetOfItsRecord(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("picky", 1, 1);
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(producerProps(kafka, StringSerializer.class))) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("picky", i == 6 ? "boom" : "ok-" + i));
            }
            producer.flush();
        }
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(),
                "key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer",
                "value.deserializer", PickyDeserializer.class.getName());
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.<String, String>fromProperties(props).assignment(Kflux.partitions("picky", 1)));
        List<String> seen = new ArrayList<>();
        assertThatThrownBy(() -> consumer.receive().doOnNext(r -> seen.add(r.value())).blockLast(Duration.ofSeconds(60)))
                .isInstanceOfSatisfying(RecordDeserializationException.class, e -> {
                    assertThat(e.topicPartition()).isEqualTo(new TopicPartition("picky", 0));
                    assertThat(e.offset()).isEqualTo(6);
                    assertThat(e.origin()).isEqualTo(RecordDeserializationException.Origin.VALUE);
                    assertThat(e.getCause()).isInstanceOf(SerializationException.class);
                });
        assertThat(seen).containsExactly("ok-0", "ok-1", "ok-2", "ok-3", "ok-4", "ok-5");
        consumer.close().block(Duration.ofSeconds(30));
    }
}
