package io.kflux.internal.config;

import io.kflux.PropertyDescription;
import java.util.List;
import java.util.Objects;

/**
 * The definition of one property.
 *
 * @param name         property name
 * @param type         value type
 * @param defaultValue parsed default (of the Java type {@link ConfigDef} produces for {@code type}), may be
 *                     {@code null}; ignored when {@code required}
 * @param required     whether the property must be given
 * @param validator    checks a parsed value, may be {@code null} for "any value of the type"
 * @param description  one-line description with units
 * @param support      how kflux treats it
 */
public record ConfigKey(String name, ConfigType type, Object defaultValue, boolean required, Validator validator,
                        String description, PropertyDescription.Support support) {

    /**
     * Checks the fields.
     *
     * @param name property name
     * @param type value type
     * @param defaultValue parsed default
     * @param required whether it must be given
     * @param validator value check, may be {@code null}
     * @param description one-line description
     * @param support how kflux treats it
     * @throws NullPointerException if {@code name}, {@code type}, {@code description} or {@code support} is null
     */
    public ConfigKey {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(support, "support");
    }

    /**
     * The documentation view of this key.
     *
     * @return name, type, default as text, description and support
     */
    public PropertyDescription describe() {
        String def;
        if (required) {
            def = "(required)";
        } else if (defaultValue == null) {
            def = "null";
        } else if (defaultValue instanceof List<?> list) {
            def = String.join(",", list.stream().map(String::valueOf).toList());
        } else {
            def = String.valueOf(defaultValue);
        }
        return new PropertyDescription(name, type.docName(), def, description, support);
    }
}
