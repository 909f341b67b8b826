package io.kflux.internal.config;

import io.kflux.PropertyDescription.Support;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The effective configuration as one log message, as the official client logs its {@code ConsumerConfig values}
 * when a consumer is created, but only what is in effect: every property kflux honours, sorted by name, with the value
 * in effect (defaults included, {@code client.id} as generated, {@code key.deserializer} and
 * {@code value.deserializer} as the class of the deserializer in use, whether it was passed as an object or named
 * in the properties). Properties kflux accepts but ignores ({@link io.kflux.PropertyDescription.Support#IGNORED},
 * e.g. {@code metric.reporters}) are listed apart, and only when set: they have no effect, set or not.
 * No secret reaches it: values of {@link ConfigType#PASSWORD} properties, and of
 * any property whose name says it holds one (password, secret, private key, JAAS), are shown as
 * {@value Password#HIDDEN}; user info in a URL ({@code https://user:secret@host}) is hidden too. Unknown properties
 * are not listed (each was warned about when parsed).
 */
public final class EffectiveConfig {
    private static final Pattern SECRET_NAME =
            Pattern.compile(".*(password|secret|\\.key$|jaas).*");
    private static final Pattern URL_USER_INFO = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/@\\s]+@");
    /** The heading of the properties that are accepted, set, and have no effect. */
    static final String IGNORED_HEADING = "accepted but ignored by kflux (no effect):";

    private EffectiveConfig() {
    }

    /**
     * The message: {@code ConsumerConfig values:}, one {@code name = value} line per property in effect, the
     * options after them, then under {@value #IGNORED_HEADING} the ignored properties that were set.
     *
     * @param config            the parsed configuration
     * @param clientId          the consumer's effective {@code client.id} (generated when not set)
     * @param keyDeserializer   the key deserializer in use (its class is shown)
     * @param valueDeserializer the value deserializer in use (its class is shown)
     * @param extras            kflux's own options (not properties), listed after them under their names; values as
     *                          they are shown (no secrets here)
     */
    public static String describe(ConsumerConfig config, String clientId, Object keyDeserializer,
                                  Object valueDeserializer, Map<String, ?> extras) {
        Map<String, String> lines = new TreeMap<>();
        Map<String, String> ignored = new TreeMap<>();
        for (ConfigKey key : ConsumerConfigDef.DEF.keys().values()) {
            String name = key.name();
            Object value = switch (name) {
                case ConsumerConfigDef.CLIENT_ID -> clientId;
                case ConsumerConfigDef.KEY_DESERIALIZER -> className(keyDeserializer);
                case ConsumerConfigDef.VALUE_DESERIALIZER -> className(valueDeserializer);
                default -> config.get(name);
            };
            if (key.support() != Support.IGNORED) {
                lines.put(name, shown(key, value));
            } else if (config.isSet(name)) {
                ignored.put(name, shown(key, value));
            }
        }
        StringBuilder out = new StringBuilder("ConsumerConfig values:");
        lines.forEach((name, value) -> out.append("\n\t").append(name).append(" = ").append(value));
        extras.forEach((name, value) -> out.append("\n\t").append(name).append(" = ").append(value));
        if (!ignored.isEmpty()) {
            out.append("\n").append(IGNORED_HEADING);
            ignored.forEach((name, value) -> out.append("\n\t").append(name).append(" = ").append(value));
        }
        return out.toString();
    }

    /** A class name as it reads: a lambda's without the JVM's generated suffix ({@code ...$$Lambda$941}). */
    private static String className(Object o) {
        if (o == null) {
            return null;
        }
        String name = o.getClass().getName();
        int lambda = name.indexOf("$$Lambda");
        return lambda < 0 ? name : name.substring(0, lambda + "$$Lambda".length());
    }

    /** A value as the dump shows it: secrets hidden, lists comma-separated, null as {@code null}. */
    static String shown(ConfigKey key, Object value) {
        if (value == null) {
            return "null";
        }
        if (key.type() == ConfigType.PASSWORD || SECRET_NAME.matcher(key.name().toLowerCase(Locale.ROOT)).matches()) {
            return Password.HIDDEN;
        }
        String text = value instanceof Collection<?> c ? String.join(",", c.stream().map(String::valueOf).toList())
                : String.valueOf(value);
        return URL_USER_INFO.matcher(text).replaceAll("$1" + Password.HIDDEN + "@");
    }
}
