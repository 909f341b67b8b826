package io.kflux.util;

/**
 * The parsed consumer configuration as the layers below {@code io.kflux.internal} may read it: by property name and
 * Java type, without seeing the configuration package above them. It is how a property reaches the one place that
 * reads it in two files (DESIGN.md, "Adding a property"): its definition, and {@code config.value(name, type)} where
 * it takes effect. Implemented by {@code internal.config.ConsumerConfig}; the layer settings records
 * ({@code NetworkOptions}, ...) carry it beside their typed components.
 */
@FunctionalInterface
public interface ConfigValues {

    /**
     * The value in effect of a defined property (its default when not set).
     *
     * @param name     the property name, e.g. {@code "bootstrap.resolve.timeout.ms"}
     * @param javaType the Java type of the property's definition: {@code Integer}, {@code Long}, {@code Boolean},
     *                 {@code String}, {@code Double}, {@code List}
     * @param <T>      that type
     * @return the value, possibly {@code null} where the definition's default is null
     * @throws IllegalArgumentException when no property of that name is defined, or it has another Java type (a
     *                                  programming error, caught by the unit tests that build settings)
     */
    <T> T value(String name, Class<T> javaType);
}
