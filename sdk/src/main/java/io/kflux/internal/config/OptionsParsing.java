package io.kflux.internal.config;

import io.kflux.ConfigException;
import io.kflux.ConsumerOptions.SubscriptionType;
import io.kflux.Deserializer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What {@code io.kflux.ConsumerOptions} needs of configuration parsing, so that the public type only holds and copies
 * values: the properties' copy and parse, the deserializers named by {@code key.deserializer} and
 * {@code value.deserializer}, and the checks {@code KafkaFluxConsumer.create} makes beyond valid properties. Every
 * method throws {@link ConfigException} naming the property (or the subscription) for a bad value.
 */
public final class OptionsParsing {
    private static final List<String> DESERIALIZER_KEYS =
            List.of(ConsumerConfigDef.KEY_DESERIALIZER, ConsumerConfigDef.VALUE_DESERIALIZER);

    private OptionsParsing() {
    }

    /**
     * An unmodifiable copy of user properties, in their order.
     *
     * @throws NullPointerException when a property name is null
     */
    public static Map<String, Object> copy(Map<String, ?> props) {
        Map<String, Object> copy = new LinkedHashMap<>();
        props.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "property names must not be null"), v));
        return Collections.unmodifiableMap(copy);
    }

    /**
     * Parses and validates the properties. A {@link Deserializer} object given as {@code key.deserializer} or
     * {@code value.deserializer} is not a value of that (class) property: it was taken as the deserializer, and is
     * left out here.
     *
     * @throws ConfigException for a missing, invalid or contradicting value
     */
    public static ConsumerConfig parse(Map<String, ?> props) {
        Map<String, Object> forParsing = new LinkedHashMap<>(props);
        DESERIALIZER_KEYS.forEach(k -> forParsing.computeIfPresent(k, (key, v) -> v instanceof Deserializer ? null : v));
        return ConsumerConfig.parse(forParsing);
    }

    /**
     * Refuses deserializer properties other than the official {@code ByteArrayDeserializer}, for options that hand
     * out {@code byte[]}.
     *
     * @throws ConfigException naming the property
     */
    public static void requireByteArrayDeserializers(Map<String, ?> props) {
        for (String k : DESERIALIZER_KEYS) {
            Object v = props.get(k);
            String name = v instanceof Class<?> c ? c.getName() : v == null ? null : v.toString().trim();
            if (name != null && !DeserializerResolver.isByteArray(name)) {
                throw new ConfigException(k, v, "no value or org.apache.kafka.common.serialization.ByteArrayDeserializer"
                                                + " with ConsumerOptions.create(Map), which yields byte[]; use"
                                                + " fromProperties(Map) or pass Deserializers");
            }
        }
    }

    /**
     * The deserializer a property names: an object as it is, a {@code Class} or a class name resolved by
     * {@link DeserializerResolver} (configured with {@code props} where it takes configuration).
     *
     * @param key {@code key.deserializer} or {@code value.deserializer}
     * @throws ConfigException when the property is missing or names nothing usable
     */
    public static Deserializer<?> deserializer(Map<String, Object> props, String key) {
        Object v = props.get(key);
        if (v instanceof Deserializer<?> d) {
            return d;
        }
        if (v instanceof Class<?> c) {
            return DeserializerResolver.resolve(key, c.getName(), props);
        }
        if (v instanceof CharSequence cs) {
            return DeserializerResolver.resolve(key, cs.toString().trim(), props);
        }
        throw new ConfigException(key, v, "a Deserializer, a Class or a class name");
    }

    /**
     * The bound on fetched-but-not-emitted bytes: the one set, else twice {@code fetch.max.bytes} (one response being
     * emitted while the next arrives), at least 1.
     *
     * @param set the bound set with {@code withMaxBufferedBytes}, or a value below 1 when none was
     */
    public static long maxBufferedBytes(ConsumerConfig config, long set) {
        return set > 0 ? set : Math.max(1L, 2L * config.fetchMaxBytes());
    }

    /**
     * What {@code KafkaFluxConsumer.create} needs beyond valid properties.
     *
     * @param pattern the subscription pattern, null unless {@code type} is PATTERN
     * @throws IllegalArgumentException when no subscription or assignment was chosen
     * @throws ConfigException          when subscribing without {@code group.id}, or with a pattern the broker could
     *                                  not evaluate as written under {@code group.protocol=consumer}
     */
    public static void checkConsumable(ConsumerConfig config, SubscriptionType type, Pattern pattern) {
        if (type == SubscriptionType.NONE) {
            throw new IllegalArgumentException("no subscription or assignment: call subscription(...) or assignment(...)");
        }
        if ((type == SubscriptionType.TOPICS || type == SubscriptionType.PATTERN) && config.groupId().isEmpty()) {
            throw new ConfigException(ConsumerConfigDef.GROUP_ID, null,
                                      "a group id to subscribe to topics (subscription(...)); use assignment(...) to"
                                      + " read partitions without a group");
        }
        // KIP-848: the broker evaluates the pattern with RE2J, whose syntax is not Java's (no look-around, no
        // back-references, no flags): refuse here what the broker could not run the same way.
        if (type == SubscriptionType.PATTERN && config.groupProtocol() == GroupProtocol.CONSUMER) {
            // flags() also reports inline flags such as (?i), which RE2J takes: only flags given to compile() are lost
            if (pattern.flags() != Pattern.compile(pattern.pattern()).flags()) {
                throw new ConfigException("subscription pattern", pattern.pattern(), "a pattern without Java flags "
                        + "(flags " + pattern.flags() + " given): with group.protocol=consumer the broker evaluates it"
                        + " as an RE2J regular expression (KIP-848); write flags inline, e.g. (?i)");
            }
            try {
                com.google.re2j.Pattern.compile(pattern.pattern());
            } catch (com.google.re2j.PatternSyntaxException e) {
                throw new ConfigException("subscription pattern", pattern.pattern(), "a regular expression in RE2J "
                        + "syntax: with group.protocol=consumer the broker evaluates it (KIP-848): " + e.getMessage(), e);
            }
        }
    }
}
