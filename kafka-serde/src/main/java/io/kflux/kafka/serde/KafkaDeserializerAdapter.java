package io.kflux.kafka.serde;

import io.kflux.Headers;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Runs a Kafka {@link Deserializer} as a kflux {@link io.kflux.Deserializer}.
 *
 * <ul>
 *   <li><b>Deserializing</b> calls the delegate's headers variant, {@link Deserializer#deserialize(String,
 *       org.apache.kafka.common.header.Headers, byte[])}, with the record's headers seen through a Kafka
 *       {@code Headers} view (no copy unless the delegate adds or removes a header, see {@link KafkaHeadersView})
 *       and the key or value <em>copied</em> into a fresh array ({@code null} for a null key or value). The copy is
 *       deliberate: kflux hands deserializers a view of a buffer it reuses after the call, while a Kafka
 *       deserializer may keep what it is given (the official {@code ByteBufferDeserializer} returns it).</li>
 *   <li><b>Configuring</b>: {@link #configured} calls {@link Deserializer#configure(Map, boolean)} once, before the
 *       adapter is returned; {@link #of} leaves it to the caller, as the official consumer does with deserializer
 *       instances handed to its constructor. Deserializers made from {@code key.deserializer} /
 *       {@code value.deserializer} by {@link KafkaDeserializerProvider} are configured with the consumer's
 *       properties.</li>
 *   <li><b>Closing</b>: {@link #close()} closes the delegate once; later calls do nothing. The consumer calls it
 *       when it closes.</li>
 *   <li>Exceptions of the delegate (typically Kafka's {@code SerializationException}) pass through; the consumer
 *       reports them as {@link io.kflux.RecordDeserializationException} with the record's partition and offset.</li>
 * </ul>
 *
 * <p>Thread safety is the delegate's: kflux calls a consumer's deserializer from one thread at a time.
 *
 * @param <T> the produced type
 */
public final class KafkaDeserializerAdapter<T> implements io.kflux.Deserializer<T> {

    private final Deserializer<T> delegate;
    private final AtomicBoolean closed = new AtomicBoolean();

    private KafkaDeserializerAdapter(Deserializer<T> delegate) {
        this.delegate = delegate;
    }

    /**
     * Adapts a deserializer as it is, without configuring it.
     *
     * @param delegate the Kafka deserializer, never {@code null}
     * @param <T>      the produced type
     * @return the adapter
     * @throws NullPointerException if {@code delegate} is {@code null}
     */
    public static <T> KafkaDeserializerAdapter<T> of(Deserializer<T> delegate) {
        return new KafkaDeserializerAdapter<>(Objects.requireNonNull(delegate, "delegate"));
    }

    /**
     * Configures a deserializer once and adapts it.
     *
     * @param delegate the Kafka deserializer, never {@code null}
     * @param configs  the consumer's properties, passed to {@link Deserializer#configure(Map, boolean)} as given
     * @param isKey    {@code true} when it deserializes keys
     * @param <T>      the produced type
     * @return the adapter
     * @throws NullPointerException if {@code delegate} or {@code configs} is {@code null}
     * @throws RuntimeException     whatever {@code configure} throws
     */
    public static <T> KafkaDeserializerAdapter<T> configured(Deserializer<T> delegate, Map<String, ?> configs,
                                                             boolean isKey) {
        Objects.requireNonNull(delegate, "delegate");
        Objects.requireNonNull(configs, "configs");
        delegate.configure(configs, isKey);
        return new KafkaDeserializerAdapter<>(delegate);
    }

    /**
     * The adapted deserializer.
     *
     * @return never {@code null}
     */
    public Deserializer<T> delegate() {
        return delegate;
    }

    @Override
    public T deserialize(String topic, Headers headers, ByteBuffer data) {
        byte[] bytes = null;
        if (data != null) {
            bytes = new byte[data.remaining()];
            data.get(bytes);
        }
        return delegate.deserialize(topic, new KafkaHeadersView(headers), bytes);
    }

    /** Closes the delegate the first time; later calls do nothing. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            delegate.close();
        }
    }

    @Override
    public String toString() {
        return "KafkaDeserializerAdapter[" + delegate.getClass().getName() + "]";
    }
}
