package io.kflux.spring.boot;

import io.kflux.ConfigException;
import io.kflux.ConsumerOptions;
import io.kflux.Deserializer;
import io.kflux.KafkaFluxConsumer;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.ssl.SslBundles;

/**
 * The starter's consumers, one per name under {@code kflux.consumers} (or the one {@code kflux.consumer} declares
 * alone), created eagerly with the context so a bad property fails the start. Each is also a bean named
 * {@code <name>KafkaFluxConsumer}, with its options as {@code <name>ConsumerOptions}.
 *
 * <p>Deserializers: a bean of type {@link Deserializer} named {@code <name>KeyDeserializer} (or
 * {@code <name>ValueDeserializer}) is that consumer's key (value) deserializer; else the Kafka property
 * {@code key.deserializer} ({@code value.deserializer}) names one, as {@link ConsumerOptions#fromProperties}
 * reads it; else keys (values) are {@code byte[]}.
 *
 * <p>Consumers are closed by {@link KfluxPipelineRunner} at shutdown; those without a pipeline are closed here
 * when the context is destroyed (closing is idempotent).
 */
public final class KfluxConsumers implements DisposableBean {

    private static final String BYTES = "org.apache.kafka.common.serialization.ByteArrayDeserializer";

    private final Map<String, KfluxProperties.Consumer> specs;
    private final Map<String, ConsumerOptions<?, ?>> options = new LinkedHashMap<>();
    private final Map<String, KafkaFluxConsumer<?, ?>> consumers = new LinkedHashMap<>();

    /**
     * Builds every consumer's options and creates the consumers (no I/O until a pipeline subscribes).
     *
     * @param properties  the bound {@code kflux.*} properties
     * @param beans       where deserializer beans are looked up
     * @param customizers applied to each consumer's options, in order
     * @throws KfluxConfigurationException naming the Spring property when kflux refuses a value
     */
    public KfluxConsumers(KfluxProperties properties, ListableBeanFactory beans, List<KfluxConsumerCustomizer> customizers) {
        this.specs = declared(properties);
        specs.forEach((name, spec) -> {
            ConsumerOptions<?, ?> built = build(name, properties, spec, beans);
            for (KfluxConsumerCustomizer customizer : customizers) {
                built = customizer.customize(name, built);
            }
            options.put(name, built);
            consumers.put(name, create(name, properties, spec, built));
        });
    }

    /**
     * The consumers {@code properties} declare, each with the shared Kafka properties under its own.
     *
     * @param properties the bound properties
     * @return name to consumer spec, in declaration order
     */
    static Map<String, KfluxProperties.Consumer> declared(KfluxProperties properties) {
        if (properties.getConsumers().isEmpty()) {
            return properties.getConsumer().getProperties().isEmpty() && properties.getConsumer().getTopics().isEmpty()
                    ? Map.of() : Map.of(KfluxProperties.DEFAULT_CONSUMER, properties.getConsumer());
        }
        return properties.getConsumers();
    }

    private static ConsumerOptions<?, ?> build(String name, KfluxProperties properties, KfluxProperties.Consumer spec,
                                               ListableBeanFactory beans) {
        Map<String, Object> props = new LinkedHashMap<>(properties.getConsumer().getProperties());
        props.putAll(spec.getProperties());
        String bundle = spec.getSslBundle() != null ? spec.getSslBundle() : properties.getConsumer().getSslBundle();
        if (bundle != null) {
            SslBundles bundles = beans.getBeanProvider(SslBundles.class).getIfAvailable();
            if (bundles == null) {
                throw new IllegalStateException(prefix(name, properties) + ".ssl-bundle: no SslBundles bean in the context");
            }
            SslBundleProperties.of(bundles.getBundle(bundle)).forEach(props::putIfAbsent);
            props.putIfAbsent("security.protocol", "SSL");
        }
        Deserializer<?> keyBean = bean(beans, name + "KeyDeserializer");
        Deserializer<?> valueBean = bean(beans, name + "ValueDeserializer");
        if (keyBean != null || !props.containsKey("key.deserializer")) {
            props.put("key.deserializer", BYTES);
        }
        if (valueBean != null || !props.containsKey("value.deserializer")) {
            props.put("value.deserializer", BYTES);
        }
        try {
            ConsumerOptions<?, ?> built = ConsumerOptions.fromProperties(props);
            if (keyBean != null) {
                built = built.withKeyDeserializer(keyBean);
            }
            if (valueBean != null) {
                built = built.withValueDeserializer(valueBean);
            }
            List<String> topics = spec.getTopics().isEmpty() ? properties.getConsumer().getTopics() : spec.getTopics();
            return topics.isEmpty() ? built : built.subscription(topics);
        } catch (ConfigException e) {
            throw new KfluxConfigurationException(propertyName(name, properties, spec, e.key()), e);
        } catch (IllegalArgumentException e) {
            throw new KfluxConfigurationException(prefix(name, properties) + ".topics", e);
        }
    }

    private static KafkaFluxConsumer<?, ?> create(String name, KfluxProperties properties, KfluxProperties.Consumer spec,
                                                 ConsumerOptions<?, ?> built) {
        try {
            return KafkaFluxConsumer.create(built);
        } catch (ConfigException e) {
            throw new KfluxConfigurationException(propertyName(name, properties, spec, e.key()), e);
        } catch (IllegalArgumentException e) {
            // no subscription: neither topics nor a customizer's subscription(Pattern) or assignment(...)
            throw new KfluxConfigurationException(prefix(name, properties) + ".topics", e);
        }
    }

    /** The Spring property a Kafka key came from: the consumer's own, else the shared one, else where it belongs. */
    private static String propertyName(String name, KfluxProperties properties, KfluxProperties.Consumer spec, String key) {
        if (!spec.getProperties().containsKey(key) && properties.getConsumer().getProperties().containsKey(key)) {
            return "kflux.consumer.properties." + key;
        }
        return prefix(name, properties) + ".properties." + key;
    }

    private static String prefix(String name, KfluxProperties properties) {
        return properties.getConsumers().isEmpty() ? "kflux.consumer" : "kflux.consumers." + name;
    }

    private static Deserializer<?> bean(ListableBeanFactory beans, String name) {
        return beans.containsBean(name) ? beans.getBean(name, Deserializer.class) : null;
    }

    /** @return the consumers' names, in declaration order */
    public Set<String> names() {
        return Collections.unmodifiableSet(consumers.keySet());
    }

    /**
     * @param name a consumer's name
     * @param <K>  key type its key deserializer makes (not checked)
     * @param <V>  value type its value deserializer makes (not checked)
     * @return the consumer
     * @throws IllegalArgumentException when no consumer has that name, listing the names there are
     */
    @SuppressWarnings("unchecked")
    public <K, V> KafkaFluxConsumer<K, V> consumer(String name) {
        KafkaFluxConsumer<?, ?> consumer = consumers.get(name);
        if (consumer == null) {
            throw new IllegalArgumentException("no kflux consumer named '" + name + "'; declared: " + consumers.keySet());
        }
        return (KafkaFluxConsumer<K, V>) consumer;
    }

    /**
     * @param name a consumer's name
     * @return the options it was created with
     * @throws IllegalArgumentException when no consumer has that name
     */
    public ConsumerOptions<?, ?> options(String name) {
        consumer(name);
        return options.get(name);
    }

    /**
     * @param name a consumer's name
     * @return its declaration (failure policy, close timeout)
     */
    KfluxProperties.Consumer spec(String name) {
        consumer(name);
        return specs.get(name);
    }

    /** Closes every consumer still open, each within its {@code close-timeout}. */
    @Override
    public void destroy() {
        consumers.forEach((name, consumer) -> {
            Duration timeout = specs.get(name).getCloseTimeout();
            consumer.close(timeout).block(timeout.plusSeconds(5));
        });
    }
}
