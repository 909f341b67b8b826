package io.kflux.internal.config;

import java.time.Duration;
import java.util.Objects;

/**
 * {@code auto.offset.reset}: where to start when a partition has no committed offset or its position is out of
 * range.
 *
 * @param strategy what to do
 * @param duration for {@link Strategy#BY_DURATION}: how far back from now, non-negative; otherwise {@code null}
 */
public record AutoOffsetReset(Strategy strategy, Duration duration) {

    /** The reset strategies. */
    public enum Strategy {
        /** The log start offset (ListOffsets timestamp -2). */
        EARLIEST,
        /** The end offset (ListOffsets timestamp -1). */
        LATEST,
        /** No automatic reset: fail with {@link io.kflux.OffsetOutOfRangeException}. */
        NONE,
        /** The first offset whose timestamp is at or after now minus the duration (KIP-1106). */
        BY_DURATION
    }

    /** Prefix of the by-duration form, {@code by_duration:<ISO-8601 duration>} (KIP-1106). */
    public static final String BY_DURATION_PREFIX = "by_duration:";

    /**
     * Checks the fields.
     *
     * @param strategy what to do
     * @param duration look-back for BY_DURATION, else {@code null}
     * @throws NullPointerException     if {@code strategy} is null, or {@code duration} is null for BY_DURATION
     * @throws IllegalArgumentException if a duration is negative or given for another strategy
     */
    public AutoOffsetReset {
        Objects.requireNonNull(strategy, "strategy");
        if (strategy == Strategy.BY_DURATION) {
            Objects.requireNonNull(duration, "duration");
            if (duration.isNegative()) {
                throw new IllegalArgumentException("duration must not be negative: " + duration);
            }
        } else if (duration != null) {
            throw new IllegalArgumentException("duration only applies to BY_DURATION");
        }
    }

    /**
     * Parses the property value: {@code earliest}, {@code latest}, {@code none} (case-sensitive, as the official
     * client), or {@code by_duration:} followed by a non-negative ISO-8601 duration such as {@code P1DT2H}.
     *
     * @param value the property value
     * @return the parsed value
     * @throws IllegalArgumentException for anything else
     */
    public static AutoOffsetReset parse(String value) {
        switch (value) {
            case "earliest": return new AutoOffsetReset(Strategy.EARLIEST, null);
            case "latest": return new AutoOffsetReset(Strategy.LATEST, null);
            case "none": return new AutoOffsetReset(Strategy.NONE, null);
            default:
                if (value.startsWith(BY_DURATION_PREFIX)) {
                    return new AutoOffsetReset(Strategy.BY_DURATION,
                                               Duration.parse(value.substring(BY_DURATION_PREFIX.length())));
                }
                throw new IllegalArgumentException("unknown auto.offset.reset " + value);
        }
    }

    /**
     * Returns the property form.
     *
     * @return e.g. {@code latest} or {@code by_duration:PT1H}
     */
    @Override
    public String toString() {
        return strategy == Strategy.BY_DURATION ? BY_DURATION_PREFIX + duration
                                                : strategy.name().toLowerCase(java.util.Locale.ROOT);
    }
}
