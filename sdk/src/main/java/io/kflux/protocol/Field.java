package io.kflux.protocol;

/**
 * One field of a message schema: its name (the record component it maps to), its wire type, the
 * message versions it exists in, its default (the value in versions where it is absent), and,
 * for tagged fields (KIP-482), its tag. Immutable: each modifier returns a copy, so schemas read
 * like the protocol's JSON specs:
 * <pre>{@code field("replicaId", INT32).versions(0, 14).defaultValue(-1)}</pre>
 *
 * @param <T> the field's Java type
 */
public final class Field<T> {
    final String name;
    final Type<T> type;
    final short minVersion;
    final short maxVersion;
    final int tag;
    final T defaultValue;

    private Field(String name, Type<T> type, short minVersion, short maxVersion, int tag, T defaultValue) {
        this.name = name;
        this.type = type;
        this.minVersion = minVersion;
        this.maxVersion = maxVersion;
        this.tag = tag;
        this.defaultValue = defaultValue;
    }

    /** A field present in every version, defaulting to its type's default. */
    public static <T> Field<T> field(String name, Type<T> type) {
        return new Field<>(name, type, (short) 0, Short.MAX_VALUE, -1, type.defaultValue());
    }

    /** Present from {@code min} on ("min+" in the JSON specs). */
    public Field<T> versions(int min) {
        return new Field<>(name, type, (short) min, maxVersion, tag, defaultValue);
    }

    /** Present in {@code min..max} inclusive ("min-max" in the JSON specs). */
    public Field<T> versions(int min, int max) {
        return new Field<>(name, type, (short) min, (short) max, tag, defaultValue);
    }

    /** A tagged field: only in flexible versions, written only when it differs from its default. */
    public Field<T> tag(int tag) {
        return new Field<>(name, type, minVersion, maxVersion, tag, defaultValue);
    }

    public Field<T> defaultValue(T value) {
        return new Field<>(name, type, minVersion, maxVersion, tag, value);
    }

    boolean presentIn(short version) {
        return version >= minVersion && version <= maxVersion;
    }

    boolean tagged() {
        return tag >= 0;
    }

    public String name() {
        return name;
    }
}
