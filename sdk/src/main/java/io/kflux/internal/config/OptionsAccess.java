package io.kflux.internal.config;

import io.kflux.ConsumerOptions;
import java.util.Objects;
import java.util.function.Function;

/**
 * How the implementation reads the parsed configuration of a {@link ConsumerOptions} without the public type
 * offering it to users (a public {@code ConsumerOptions.config()} handed them an internal type that may change in
 * any release). {@code ConsumerOptions} installs the reader as its class initialises, so it is in place before any
 * instance exists; nothing else may install one.
 */
public final class OptionsAccess {
    private static volatile Function<ConsumerOptions<?, ?>, ConsumerConfig> reader;

    private OptionsAccess() {
    }

    /**
     * Called once, by {@code ConsumerOptions}'s static initialiser.
     *
     * @throws IllegalStateException when a reader is installed already
     */
    public static synchronized void install(Function<ConsumerOptions<?, ?>, ConsumerConfig> configReader) {
        if (reader != null) {
            throw new IllegalStateException("the ConsumerOptions configuration reader is installed already");
        }
        reader = Objects.requireNonNull(configReader, "configReader");
    }

    /** The parsed, validated configuration of {@code options}. */
    public static ConsumerConfig config(ConsumerOptions<?, ?> options) {
        return reader.apply(options);
    }
}
