package io.kflux;

/**
 * One consumer property kflux knows about, as listed by {@link ConsumerOptions#describeProperties()} (used to
 * generate and check the configuration documentation).
 *
 * @param name         the property name, the official client's name (e.g. {@code session.timeout.ms})
 * @param type         the value type: {@code boolean}, {@code short}, {@code int}, {@code long}, {@code double},
 *                     {@code string}, {@code list}, {@code class} or {@code password}
 * @param defaultValue the default as text ({@code "null"} for no value, {@code ""} for the empty string,
 *                     {@code "(required)"} when the property must be given); passwords never have one
 * @param description  one line saying what it does, with its unit (ms, bytes) where it has one
 * @param support      whether kflux honours it
 */
public record PropertyDescription(String name, String type, String defaultValue, String description,
                                  Support support) {

    /** How kflux treats a property of the official consumer. */
    public enum Support {
        /** Parsed, validated and acted on, with the official meaning. */
        HONOURED,
        /** Type-checked, then ignored with a WARN log (once per JVM), e.g. {@code metric.reporters}. */
        IGNORED,
        /**
         * Setting it fails {@code create} with {@link ConfigException}, because ignoring it would silently change
         * security behaviour (e.g. {@code ssl.engine.factory.class}).
         */
        REJECTED
    }
}
