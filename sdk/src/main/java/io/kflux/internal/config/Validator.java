package io.kflux.internal.config;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Checks a parsed property value. The text of {@link #allowed()} goes into
 * {@link io.kflux.ConfigException#allowed()}, so it must read as the completion of "expected ...".
 */
public interface Validator {

    /**
     * Whether the parsed value is acceptable.
     *
     * @param value the parsed value (never {@code null}: null means "not set" and is not validated)
     * @return {@code true} when accepted
     */
    boolean accepts(Object value);

    /**
     * What is accepted, e.g. {@code "an int >= 0"}.
     *
     * @return a human-readable description
     */
    String allowed();

    /**
     * A validator from a predicate and its description.
     *
     * @param allowed description of accepted values
     * @param test    the check
     * @return the validator
     */
    static Validator of(String allowed, Predicate<Object> test) {
        return new Validator() {
            @Override
            public boolean accepts(Object value) {
                return test.test(value);
            }

            @Override
            public String allowed() {
                return allowed;
            }
        };
    }

    /**
     * Accepts numbers {@code >= min}.
     *
     * @param min the smallest accepted value
     * @return the validator
     */
    static Validator atLeast(long min) {
        return of("a value >= " + min, v -> ((Number) v).longValue() >= min);
    }

    /**
     * Accepts exactly these strings (case-sensitive, as the official client is for these properties).
     *
     * @param values the accepted strings
     * @return the validator
     */
    static Validator oneOf(String... values) {
        List<String> list = Arrays.asList(values);
        return of("one of " + list, list::contains);
    }

    /**
     * Accepts these strings in any case (as the official client does for enum-like properties such as
     * {@code security.protocol}).
     *
     * @param values the accepted strings
     * @return the validator
     */
    static Validator oneOfIgnoreCase(String... values) {
        List<String> upper = Arrays.stream(values).map(s -> s.toUpperCase(Locale.ROOT)).collect(Collectors.toList());
        return of("one of " + Arrays.asList(values) + " (any case)",
                  v -> upper.contains(((String) v).toUpperCase(Locale.ROOT)));
    }

    /**
     * Accepts non-empty strings.
     *
     * @return the validator
     */
    static Validator nonEmpty() {
        return of("a non-empty string", v -> !((String) v).isEmpty());
    }

    /**
     * Accepts numbers from {@code min} to {@code max}, both included.
     *
     * @param min the smallest accepted value
     * @param max the largest accepted value
     * @return the validator
     */
    static Validator between(long min, long max) {
        return of("a value from " + min + " to " + max, v -> {
            long n = ((Number) v).longValue();
            return n >= min && n <= max;
        });
    }

    /**
     * Accepts -1 (leave the operating system's default) or a size of at least 1, as socket buffer sizes.
     *
     * @return the validator
     */
    static Validator osDefaultOrPositive() {
        return of("-1 (the operating system default) or a size >= 1", v -> {
            long n = ((Number) v).longValue();
            return n == -1 || n >= 1;
        });
    }
}
