package io.kflux.internal.config;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The effective configuration as one log message, as the official client logs its {@code ConsumerConfig values}
 * when a consumer is created: every defined property, sorted by name, with the value in effect (defaults included,
 * {@code client.id} as generated). No secret reaches it: values of {@link ConfigType#PASSWORD} properties, and of
 * any property whose name says it holds one (password, secret, private key, JAAS), are shown as
 * {@value Password#HIDDEN}; user info in a URL ({@code https://user:secret@host}) is hidden too. Unknown properties
 * are not listed (each was warned about when parsed).
 */
public final class EffectiveConfig {
    private static final Pattern SECRET_NAME =
            Pattern.compile(".*(password|secret|\\.key$|jaas).*");
    private static final Pattern URL_USER_INFO = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/@\\s]+@");

    private EffectiveConfig() {
    }

    /**
     * The message, {@code ConsumerConfig values:} and one {@code name = value} line per property.
     *
     * @param config   the parsed configuration
     * @param clientId the consumer's effective {@code client.id} (generated when not set)
     * @param extras kflux's own options (not properties), listed after them under their names; values as they are
     *               shown (no secrets here)
     */
    public static String describe(ConsumerConfig config, String clientId, Map<String, ?> extras) {
        Map<String, String> lines = new TreeMap<>();
        for (ConfigKey key : ConsumerConfigDef.DEF.keys().values()) {
            Object value = key.name().equals(ConsumerConfigDef.CLIENT_ID) ? clientId : config.get(key.name());
            lines.put(key.name(), shown(key, value));
        }
        StringBuilder out = new StringBuilder("ConsumerConfig values:");
        lines.forEach((name, value) -> out.append("\n\t").append(name).append(" = ").append(value));
        extras.forEach((name, value) -> out.append("\n\t").append(name).append(" = ").append(value));
        return out.toString();
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
