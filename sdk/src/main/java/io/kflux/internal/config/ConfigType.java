package io.kflux.internal.config;

/**
 * The value types of consumer properties (the same set the official client uses). Each says which Java values
 * and strings it accepts; {@link ConfigDef} does the parsing.
 */
public enum ConfigType {
    /** {@code Boolean}, or the strings {@code true} / {@code false} (any case, surrounding blanks ignored). */
    BOOLEAN,
    /** A 16-bit integer: any integral {@code Number} in range, or a decimal string. */
    SHORT,
    /** A 32-bit integer: any integral {@code Number} in range, or a decimal string. */
    INT,
    /** A 64-bit integer: any integral {@code Number}, or a decimal string. */
    LONG,
    /** A double: any {@code Number}, or a decimal string. */
    DOUBLE,
    /** A string, trimmed. */
    STRING,
    /** A {@code Collection} of strings (or classes, taken by name), or a comma-separated string; items trimmed. */
    LIST,
    /** A class name, or a {@code Class} (taken by name). Kept as the name; loading is up to the user of the value. */
    CLASS,
    /** A secret string; parsed into a {@link Password}. */
    PASSWORD;

    /**
     * The Java type {@link ConfigDef} parses values of this type into.
     *
     * @return e.g. {@code Integer.class} for {@link #INT}; {@code List.class} (of strings) for {@link #LIST}
     */
    public Class<?> javaType() {
        return switch (this) {
            case BOOLEAN -> Boolean.class;
            case SHORT -> Short.class;
            case INT -> Integer.class;
            case LONG -> Long.class;
            case DOUBLE -> Double.class;
            case STRING, CLASS -> String.class;
            case LIST -> java.util.List.class;
            case PASSWORD -> Password.class;
        };
    }

    /**
     * The lower-case name used in documentation.
     *
     * @return e.g. {@code int}
     */
    public String docName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
