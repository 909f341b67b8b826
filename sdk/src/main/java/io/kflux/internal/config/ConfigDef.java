package io.kflux.internal.config;

import io.kflux.ConfigException;
import io.kflux.PropertyDescription;
import io.kflux.PropertyDescription.Support;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A set of property definitions and the parser that turns a user's {@code Map<String, ?>} into typed values.
 *
 * <p>Parsed Java types: BOOLEAN {@code Boolean}, SHORT {@code Short}, INT {@code Integer}, LONG {@code Long},
 * DOUBLE {@code Double}, STRING and CLASS {@code String}, LIST {@code List<String>} (unmodifiable),
 * PASSWORD {@link Password}. A {@code null} value counts as "not set".
 */
public final class ConfigDef {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigDef.class);
    // "logged once": applications often build many consumers from one map; one warning per key is enough
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private final Map<String, ConfigKey> keys = new LinkedHashMap<>();

    /**
     * Adds a definition.
     *
     * @param key the definition
     * @return this
     * @throws IllegalArgumentException if a key of that name is already defined
     */
    public ConfigDef define(ConfigKey key) {
        if (keys.putIfAbsent(key.name(), key) != null) {
            throw new IllegalArgumentException("duplicate definition of " + key.name());
        }
        return this;
    }

    /**
     * Every definition, in definition order.
     *
     * @return an unmodifiable map from name to definition
     */
    public Map<String, ConfigKey> keys() {
        return Collections.unmodifiableMap(keys);
    }

    /**
     * Documentation rows for every definition, in definition order.
     *
     * @return an unmodifiable list
     */
    public List<PropertyDescription> describe() {
        return keys.values().stream().map(ConfigKey::describe).toList();
    }

    /**
     * The result of {@link #parse}.
     *
     * @param values   typed value of every defined key (defaults filled in; {@code null} where the default is null)
     * @param explicit keys the user set to a non-null value (the official client treats some of these differently
     *                 from defaults, e.g. {@code enable.auto.commit} without {@code group.id})
     */
    public record Parsed(Map<String, Object> values, Set<String> explicit) {

        /**
         * The typed value of a key.
         *
         * @param name key name
         * @param <T>  expected Java type
         * @return the value or {@code null}
         */
        @SuppressWarnings("unchecked")
        public <T> T get(String name) {
            return (T) values.get(name);
        }
    }

    /**
     * Parses and validates user properties.
     *
     * <p>Unknown keys and keys with support {@link Support#IGNORED} are logged at WARN once per JVM (an unknown key
     * with the closest known one when it is close, see {@link KeySuggestion}) and otherwise ignored (ignored keys are still type-checked). A {@link Support#REJECTED} key set to a value other than its
     * default fails.
     *
     * @param props user properties; keys must be strings, values typed or strings
     * @return typed values
     * @throws ConfigException      naming key, value (masked for passwords) and what is allowed, when a value
     *                              has the wrong type, fails validation, a required key is missing, or a rejected
     *                              key is set
     * @throws NullPointerException if {@code props} is {@code null} or has a {@code null} key
     */
    public Parsed parse(Map<String, ?> props) {
        Objects.requireNonNull(props, "props");
        Map<String, Object> values = new HashMap<>();
        Set<String> explicit = new LinkedHashSet<>();
        for (Map.Entry<String, ?> e : props.entrySet()) {
            String name = Objects.requireNonNull(e.getKey(), "property names must not be null");
            ConfigKey key = keys.get(name);
            if (key == null) {
                String suggestion = KeySuggestion.closest(name, keys.keySet());
                warnOnce(name, "Ignoring unknown consumer property '" + name + "'"
                        + (suggestion == null ? "" : " (did you mean '" + suggestion + "'?)"));
                continue;
            }
            Object raw = e.getValue();
            if (raw == null) {
                continue;
            }
            Object value = parseValue(key, raw);
            switch (key.support()) {
                case IGNORED:
                    warnOnce(name, "Consumer property '" + name + "' has no effect in kflux (" + key.description() + ")");
                    break;
                case REJECTED:
                    if (!Objects.equals(value, key.defaultValue())) {
                        throw new ConfigException(name, shown(key, raw),
                                                  "the property not to be set (" + key.description() + ")");
                    }
                    break;
                default:
                    break;
            }
            values.put(name, value);
            explicit.add(name);
        }
        for (ConfigKey key : keys.values()) {
            if (!values.containsKey(key.name())) {
                if (key.required()) {
                    throw new ConfigException(key.name(), null, requiredText(key));
                }
                values.put(key.name(), key.defaultValue());
            }
        }
        return new Parsed(Collections.unmodifiableMap(values), Collections.unmodifiableSet(explicit));
    }

    private static String requiredText(ConfigKey key) {
        String allowed = key.validator() == null ? "a " + key.type().docName() : key.validator().allowed();
        return allowed + " (this property is required)";
    }

    /**
     * The value as it may appear in an error message: {@value Password#HIDDEN} for passwords.
     *
     * @param key definition
     * @param raw the user's value
     * @return a loggable form
     */
    public static Object shown(ConfigKey key, Object raw) {
        return key.type() == ConfigType.PASSWORD ? Password.HIDDEN : raw;
    }

    /**
     * Parses one value into the Java type of its key's type and validates it.
     *
     * @param key definition
     * @param raw non-null user value
     * @return typed value
     * @throws ConfigException when the type or the validator rejects it
     */
    public static Object parseValue(ConfigKey key, Object raw) {
        Object value = parseType(key, raw);
        Validator v = key.validator();
        if (v != null && value != null) {
            boolean ok;
            try {
                ok = v.accepts(value);
            } catch (RuntimeException ex) {
                throw new ConfigException(key.name(), shown(key, raw), v.allowed(), ex);
            }
            if (!ok) {
                throw new ConfigException(key.name(), shown(key, raw), v.allowed());
            }
        }
        return value;
    }

    private static Object parseType(ConfigKey key, Object raw) {
        String name = key.name();
        switch (key.type()) {
            case BOOLEAN: {
                if (raw instanceof Boolean) {
                    return raw;
                }
                if (raw instanceof String s) {
                    String t = s.trim();
                    if (t.equalsIgnoreCase("true")) {
                        return Boolean.TRUE;
                    }
                    if (t.equalsIgnoreCase("false")) {
                        return Boolean.FALSE;
                    }
                }
                throw new ConfigException(name, raw, "a boolean: true or false (Boolean or string)");
            }
            case SHORT:
                return (short) integral(key, raw, Short.MIN_VALUE, Short.MAX_VALUE, "a 16-bit integer");
            case INT:
                return (int) integral(key, raw, Integer.MIN_VALUE, Integer.MAX_VALUE, "a 32-bit integer");
            case LONG:
                return integral(key, raw, Long.MIN_VALUE, Long.MAX_VALUE, "a 64-bit integer");
            case DOUBLE: {
                if (raw instanceof Number n) {
                    return n.doubleValue();
                }
                if (raw instanceof String s) {
                    try {
                        return Double.parseDouble(s.trim());
                    } catch (NumberFormatException ex) {
                        // falls through to the error below
                    }
                }
                throw new ConfigException(name, raw, "a decimal number (Number or string)");
            }
            case STRING:
                if (raw instanceof CharSequence cs) {
                    return cs.toString().trim();
                }
                throw new ConfigException(name, raw, "a string, got a " + raw.getClass().getName());
            case CLASS:
                if (raw instanceof Class<?> c) {
                    return c.getName();
                }
                if (raw instanceof CharSequence cs) {
                    return cs.toString().trim();
                }
                throw new ConfigException(name, raw, "a class name or a Class, got a " + raw.getClass().getName());
            case PASSWORD:
                if (raw instanceof Password) {
                    return raw;
                }
                if (raw instanceof CharSequence cs) {
                    return new Password(cs.toString());
                }
                throw new ConfigException(name, Password.HIDDEN, "a string");
            case LIST:
                return list(key, raw);
            default:
                throw new IllegalStateException("unhandled type " + key.type());
        }
    }

    private static long integral(ConfigKey key, Object raw, long min, long max, String what) {
        String allowed = what + " (integral Number or decimal string) between " + min + " and " + max;
        // not a number at all: the key's own bounds, when it has some, are what a user can act on
        // (max.poll.records=abc: ">= 1", not the type's -2147483648 ... 2147483647)
        String notANumber = key.validator() == null ? allowed
                : what + " (integral Number or decimal string), " + key.validator().allowed();
        long v;
        if (raw instanceof Byte || raw instanceof Short || raw instanceof Integer || raw instanceof Long) {
            v = ((Number) raw).longValue();
        } else if (raw instanceof BigInteger b && b.bitLength() < 64) {
            v = b.longValue();
        } else if (raw instanceof String s) {
            try {
                v = Long.parseLong(s.trim());
            } catch (NumberFormatException ex) {
                throw new ConfigException(key.name(), raw, s.trim().matches("[-+]?\\d+") ? allowed : notANumber);
            }
        } else {
            throw new ConfigException(key.name(), raw, notANumber);
        }
        if (v < min || v > max) {
            throw new ConfigException(key.name(), raw, allowed);
        }
        return v;
    }

    private static List<String> list(ConfigKey key, Object raw) {
        List<String> out = new ArrayList<>();
        if (raw instanceof CharSequence cs) {
            String s = cs.toString().trim();
            if (s.isEmpty()) {
                return List.of();
            }
            for (String part : s.split(",", -1)) {
                out.add(part.trim());
            }
        } else if (raw instanceof Collection<?> c) {
            for (Object o : c) {
                if (o instanceof Class<?> cl) {
                    out.add(cl.getName());
                } else if (o instanceof CharSequence item) {
                    out.add(item.toString().trim());
                } else {
                    throw new ConfigException(key.name(), raw, "a list of strings; element " + o + " is a "
                                                               + (o == null ? "null" : o.getClass().getName()));
                }
            }
        } else {
            throw new ConfigException(key.name(), raw, "a comma-separated string or a Collection of strings");
        }
        return Collections.unmodifiableList(out);
    }

    private static void warnOnce(String name, String message) {
        if (WARNED.add(name)) {
            LOG.warn(message);
        }
    }
}
