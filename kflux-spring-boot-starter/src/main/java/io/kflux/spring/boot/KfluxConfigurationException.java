package io.kflux.spring.boot;

import io.kflux.ConfigException;

/**
 * A {@code kflux.*} property kflux refused when the context started. The message starts with the Spring property
 * that holds the bad value (e.g. {@code kflux.consumers.orders.properties.session.timeout.ms}) followed by kflux's
 * {@link ConfigException} text (the Kafka key, the value, masked for passwords, and what is allowed); the
 * {@code ConfigException} is the cause.
 */
public class KfluxConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** The Spring property naming the bad value. */
    private final String property;

    /**
     * @param property the Spring property, e.g. {@code kflux.consumer.properties.bootstrap.servers}
     * @param cause    what kflux said
     */
    public KfluxConfigurationException(String property, RuntimeException cause) {
        super(property + ": " + cause.getMessage(), cause);
        this.property = property;
    }

    /** @return the Spring property naming the bad value */
    public String property() {
        return property;
    }
}
