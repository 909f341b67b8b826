package io.kflux.kafka.serde;

import io.kflux.DeserializerProvider;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Lets {@code key.deserializer} / {@code value.deserializer} name any Kafka {@link Deserializer} class, as with the
 * official consumer: registered in {@code META-INF/services/io.kflux.DeserializerProvider}, so having this module
 * on the class path is all it takes. The class is instantiated through its no-argument constructor, configured
 * once with the consumer's properties ({@code configure(props, isKey)}) and wrapped in a
 * {@link KafkaDeserializerAdapter}; the consumer closes it when it closes.
 *
 * <p>Why a {@link java.util.ServiceLoader} provider: the sdk cannot name Kafka's interface without depending on
 * {@code kafka-clients}, and must not guess at foreign classes by reflection; a provider keeps the knowledge of
 * Kafka's deserializer contract (configure, headers, close) in this module, behind one small public SPI that other
 * families of deserializers can use too.
 */
public final class KafkaDeserializerProvider implements DeserializerProvider {

    /** Called by {@link java.util.ServiceLoader}. */
    public KafkaDeserializerProvider() {
    }

    /**
     * Makes an adapter for a Kafka deserializer class.
     *
     * @param type               the class named by the property
     * @param consumerProperties the consumer's properties, passed to {@code configure}
     * @param isKey              whether it is the key deserializer
     * @return a configured adapter, or {@code null} when {@code type} is not a Kafka {@link Deserializer}
     * @throws IllegalArgumentException when the class has no usable no-argument constructor or its constructor
     *                                  throws (the consumer reports it as a {@code ConfigException})
     * @throws RuntimeException         whatever {@code configure} throws
     */
    @Override
    public io.kflux.Deserializer<?> create(Class<?> type, Map<String, ?> consumerProperties, boolean isKey) {
        if (!Deserializer.class.isAssignableFrom(type)) {
            return null;
        }
        Deserializer<?> instance;
        try {
            instance = (Deserializer<?>) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot instantiate " + type.getName()
                                               + " through a public no-argument constructor", e);
        }
        return KafkaDeserializerAdapter.configured(instance, consumerProperties, isKey);
    }
}
