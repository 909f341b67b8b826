package io.kflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The {@link DeserializerProvider} extension point and {@link Deserializer#close()} as the consumer drives them. */
class DeserializerLifecycleTest {

    /** Not a kflux Deserializer: only {@link ReversingProvider} knows what to make of it. */
    public static final class Reversing {
    }

    /** Registered in src/test/resources/META-INF/services. */
    public static final class ReversingProvider implements DeserializerProvider {
        static final List<Object[]> CALLS = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public Deserializer<?> create(Class<?> type, Map<String, ?> consumerProperties, boolean isKey) {
            if (type != Reversing.class) {
                return null;
            }
            CALLS.add(new Object[] {consumerProperties, isKey});
            Deserializer<String> reversing =
                    (topic, headers, data) -> new StringBuilder(StandardCharsets.UTF_8.decode(data)).reverse().toString();
            return reversing;
        }
    }

    static final class Counting implements Deserializer<String> {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public String deserialize(String topic, Headers headers, ByteBuffer data) {
            return "x";
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    private static Map<String, Object> props() {
        Map<String, Object> m = new HashMap<>();
        m.put("bootstrap.servers", "localhost:9092");
        m.put("custom.setting", "42");
        return m;
    }

    @Test
    void providerMakesDeserializersForClassesItAccepts() {
        ReversingProvider.CALLS.clear();
        Map<String, Object> m = props();
        m.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        m.put("value.deserializer", Reversing.class.getName());
        ConsumerOptions<String, String> o = ConsumerOptions.fromProperties(m);

        assertThat(o.valueDeserializer().deserialize("t", Headers.empty(),
                ByteBuffer.wrap("abc".getBytes(StandardCharsets.UTF_8)))).isEqualTo("cba");
        assertThat(ReversingProvider.CALLS).hasSize(1);
        assertThat(((Map<?, ?>) ReversingProvider.CALLS.get(0)[0]).get("custom.setting")).isEqualTo("42");
        assertThat(ReversingProvider.CALLS.get(0)[1]).isEqualTo(false);

        m.put("key.deserializer", Reversing.class);
        ConsumerOptions.fromProperties(m);
        assertThat(ReversingProvider.CALLS.get(1)[1]).isEqualTo(true);
    }

    @Test
    void classNoProviderAcceptsIsAConfigErrorNamingTheModule() {
        Map<String, Object> m = props();
        m.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        m.put("value.deserializer", "java.lang.Thread");
        assertThatThrownBy(() -> ConsumerOptions.fromProperties(m))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("value.deserializer")
                .hasMessageContaining("java.lang.Thread")
                .hasMessageContaining("kflux-kafka-serde");
    }

    @Test
    void consumerClosesEachDeserializerOnceHoweverOftenItIsClosed() {
        Counting key = new Counting();
        Counting value = new Counting();
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.create(props(), key, value).assignment(List.of(new TopicPartition("t", 0))));
        assertThat(key.closes).hasValue(0);
        consumer.close().block(Duration.ofSeconds(5));
        consumer.close().block(Duration.ofSeconds(5));
        assertThat(key.closes).hasValue(1);
        assertThat(value.closes).hasValue(1);

        Counting both = new Counting();
        KafkaFluxConsumer<String, String> shared = KafkaFluxConsumer.create(
                ConsumerOptions.create(props(), both, both).assignment(List.of(new TopicPartition("t", 0))));
        shared.close().block(Duration.ofSeconds(5));
        assertThat(both.closes).hasValue(1);
    }
}
