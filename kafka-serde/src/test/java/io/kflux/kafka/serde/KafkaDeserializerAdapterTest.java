package io.kflux.kafka.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.Header;
import io.kflux.Headers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;

/** The adapter's contract without a broker; the broker tests are in compat-tests (KafkaDeserializersTest). */
class KafkaDeserializerAdapterTest {

    /** Records what the consumer does to it; values are "key=..." of the "k" header plus the value text. */
    public static final class Recording implements Deserializer<String> {
        static final List<String> EVENTS = new ArrayList<>();

        @Override
        public void configure(Map<String, ?> configs, boolean isKey) {
            EVENTS.add("configure " + configs.get("custom.setting") + " " + isKey);
        }

        @Override
        public String deserialize(String topic, byte[] data) {
            throw new AssertionError("the headers variant must be used");
        }

        @Override
        public String deserialize(String topic, org.apache.kafka.common.header.Headers headers, byte[] data) {
            headers.add("seen", new byte[] {1}); // a deserializer may annotate; the record keeps its own headers
            return new String(headers.lastHeader("k").value(), StandardCharsets.UTF_8) + ":"
                   + (data == null ? null : new String(data, StandardCharsets.UTF_8));
        }

        @Override
        public void close() {
            EVENTS.add("close");
        }
    }

    @Test
    void propertyNamingAKafkaDeserializerIsConfiguredOnceAndUsesHeaders() {
        Recording.EVENTS.clear();
        ConsumerOptions<String, String> options = ConsumerOptions.fromProperties(Map.of(
                "bootstrap.servers", "localhost:9092",
                "custom.setting", "x",
                "key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer",
                "value.deserializer", Recording.class.getName()));
        assertThat(Recording.EVENTS).containsExactly("configure x false");
        assertThat(options.valueDeserializer()).isInstanceOf(KafkaDeserializerAdapter.class);

        Headers headers = Headers.of(Header.of("k", "a"), Header.of("k", "b"));
        ByteBuffer data = ByteBuffer.wrap("xvaluex".getBytes(StandardCharsets.UTF_8), 1, 5);
        assertThat(options.valueDeserializer().deserialize("t", headers, data)).isEqualTo("b:value");
        assertThat(options.valueDeserializer().deserialize("t", headers, null)).isEqualTo("b:null");
        assertThat(headers.size()).isEqualTo(2);

        options.valueDeserializer().close();
        options.valueDeserializer().close();
        assertThat(Recording.EVENTS).containsExactly("configure x false", "close");
    }

    @Test
    void valueIsCopiedSoADeserializerMayKeepIt() {
        KafkaDeserializerAdapter<ByteBuffer> adapter = KafkaDeserializerAdapter.of(new ByteBufferDeserializer());
        byte[] fetched = {1, 2, 3};
        ByteBuffer kept = adapter.deserialize("t", Headers.empty(), ByteBuffer.wrap(fetched));
        fetched[0] = 9; // kflux reuses its buffer after the call
        assertThat(kept.get(0)).isEqualTo((byte) 1);
    }

    @Test
    void ofLeavesConfigureToTheCaller() {
        AtomicInteger configures = new AtomicInteger();
        Deserializer<String> d = new Deserializer<>() {
            @Override
            public void configure(Map<String, ?> configs, boolean isKey) {
                configures.incrementAndGet();
            }

            @Override
            public String deserialize(String topic, byte[] data) {
                return "v";
            }
        };
        KafkaDeserializerAdapter.of(d);
        assertThat(configures).hasValue(0);
        KafkaDeserializerAdapter.configured(d, Map.of(), true);
        assertThat(configures).hasValue(1);
    }

    @Test
    void headersViewReadsWithoutCopyingAndCopiesOnWrite() {
        KafkaHeadersView view = new KafkaHeadersView(Headers.of(Header.of("a", "1"), Header.of("b", "2"),
                                                                  Header.of("a", "3")));
        assertThat(view.toArray()).extracting(org.apache.kafka.common.header.Header::key).containsExactly("a", "b", "a");
        assertThat(view.headers("a")).extracting(h -> new String(h.value(), StandardCharsets.UTF_8))
                .containsExactly("1", "3");
        assertThat(view.lastHeader("missing")).isNull();
        view.remove("a");
        view.add("c", null);
        assertThat(view.toArray()).extracting(org.apache.kafka.common.header.Header::key).containsExactly("b", "c");
    }
}
