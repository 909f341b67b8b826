package io.kflux;

/**
 * A consumer property is missing, has a value of the wrong type or outside its allowed values, or contradicts
 * another property. Raised by {@link ConsumerOptions#create} and the {@code withX} copies, before any I/O.
 *
 * <p>The message names the key, the value and what is allowed. Values of password properties
 * ({@code sasl.jaas.config}, {@code ssl.*.password}, ...) are never included: they read {@code [hidden]}.
 */
public class ConfigException extends KafkaFluxException {

    private static final long serialVersionUID = 1L;

    /** The property name. */
    private final String key;
    /** The rejected value as text (masked for passwords), null when missing. */
    private final String value;
    /** What is allowed. */
    private final String allowed;

    /**
     * Creates the error for one property.
     *
     * @param key     the property name, e.g. {@code session.timeout.ms}
     * @param value   the rejected value as given (use {@code null} for a missing property); already masked by
     *                the caller for password properties
     * @param allowed what would have been accepted, e.g. {@code "one of [earliest, latest, none]"}
     */
    public ConfigException(String key, Object value, String allowed) {
        this(key, value, allowed, null);
    }

    /**
     * Creates the error for one property with a cause (e.g. a {@link ClassNotFoundException}).
     *
     * @param key     the property name
     * @param value   the rejected value, {@code null} for a missing property
     * @param allowed what would have been accepted
     * @param cause   the underlying error, may be {@code null}
     */
    public ConfigException(String key, Object value, String allowed, Throwable cause) {
        super(message(key, value, allowed), cause);
        this.key = key;
        this.value = value == null ? null : String.valueOf(value);
        this.allowed = allowed;
    }

    private static String message(String key, Object value, String allowed) {
        if (value == null) {
            return "Missing or null value for configuration " + key + ": expected " + allowed;
        }
        return "Invalid value '" + value + "' for configuration " + key + ": expected " + allowed;
    }

    /**
     * The property name.
     *
     * @return e.g. {@code heartbeat.interval.ms}
     */
    public String key() {
        return key;
    }

    /**
     * The rejected value as text.
     *
     * @return the value, {@code [hidden]} for passwords, {@code null} when the property was missing
     */
    public String value() {
        return value;
    }

    /**
     * What is allowed for this property.
     *
     * @return a human-readable description of the accepted values
     */
    public String allowed() {
        return allowed;
    }
}
