package io.kflux;

import java.util.Map;

/**
 * Service provider that turns a {@code key.deserializer} / {@code value.deserializer} class which is <em>not</em> a
 * kflux {@link Deserializer} into one, so that {@link ConsumerOptions#fromProperties(Map)} accepts deserializer
 * families kflux itself does not know. The {@code kflux-kafka-serde} module provides one for
 * {@code org.apache.kafka.common.serialization.Deserializer} implementations, which keeps the {@code sdk} free of a
 * {@code kafka-clients} dependency.
 *
 * <p>Providers are found with {@link java.util.ServiceLoader} (a
 * {@code META-INF/services/io.kflux.DeserializerProvider} entry, or a {@code provides} clause of a module) through
 * the thread's context class loader, falling back to the one that loaded kflux. They are asked in the order the
 * {@code ServiceLoader} finds them, after the built-in names and kflux's own {@link Deserializer} classes; the first
 * one that returns a deserializer wins.
 *
 * <p>Lifecycle: a provider configures what it creates (as the official consumer configures deserializers it
 * instantiates from class names); the consumer calls {@link Deserializer#close()} once when it closes.
 */
public interface DeserializerProvider {

    /**
     * Creates a deserializer for {@code type}, or declines.
     *
     * @param type               the loaded class named by the property
     * @param consumerProperties every consumer property as given to {@link ConsumerOptions#fromProperties(Map)}
     *                           (unmodifiable), for the deserializer's configuration
     * @param isKey              {@code true} for {@code key.deserializer}, {@code false} for {@code value.deserializer}
     * @return a new, configured deserializer, or {@code null} when this provider does not handle {@code type}
     * @throws RuntimeException when {@code type} is handled but cannot be instantiated or configured; reported as a
     *                          {@link ConfigException} naming the property
     */
    Deserializer<?> create(Class<?> type, Map<String, ?> consumerProperties, boolean isKey);
}
