package io.kflux.internal.config;

import java.util.Objects;

/**
 * A secret configuration value ({@code sasl.jaas.config}, {@code ssl.*.password}, ...). Its {@link #toString()}
 * never shows the value, so it cannot leak through logs or exception messages by accident.
 */
public final class Password {

    /** What {@link #toString()} prints instead of the secret. */
    public static final String HIDDEN = "[hidden]";

    private final String value;

    /**
     * Wraps a secret.
     *
     * @param value the secret, never {@code null}
     * @throws NullPointerException if {@code value} is {@code null}
     */
    public Password(String value) {
        this.value = Objects.requireNonNull(value, "value");
    }

    /**
     * The secret itself; only for the code that uses it (TLS key stores, SASL).
     *
     * @return the secret
     */
    public String value() {
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Password p && p.value.equals(value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    /**
     * Returns {@value #HIDDEN}.
     *
     * @return {@value #HIDDEN}
     */
    @Override
    public String toString() {
        return HIDDEN;
    }
}
