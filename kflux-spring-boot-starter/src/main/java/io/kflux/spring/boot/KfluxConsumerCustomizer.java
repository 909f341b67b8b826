package io.kflux.spring.boot;

import io.kflux.ConsumerOptions;

/**
 * Adjusts the options of the starter's consumers before they are created, e.g. a rebalance listener, an emit
 * scheduler or an OAuth token provider. Every bean of this type is applied to every consumer, in
 * {@link org.springframework.core.annotation.Order} order; the starter's own (meter registry, observation registry)
 * run first.
 */
@FunctionalInterface
public interface KfluxConsumerCustomizer {

    /**
     * @param consumerName the consumer's name under {@code kflux.consumers}
     * @param options      its options so far (properties, deserializers, subscription)
     * @return the options to use (a {@code withX} copy, or {@code options} unchanged)
     */
    ConsumerOptions<?, ?> customize(String consumerName, ConsumerOptions<?, ?> options);
}
