package io.kflux;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * One record header (record format v2, KIP-82): a string key and an opaque value.
 *
 * <p>Keys may repeat within a record; see {@link Headers}. Equality and hash code are over the key and the
 * <em>contents</em> of the value array.
 *
 * <p>The value array is not copied, so {@link #value()} returns the array held by this header (for a consumer's
 * record, the one decoded from the wire, the same on every read of its headers): do not modify it.
 *
 * @param key   header key (UTF-8 on the wire), never {@code null}
 * @param value header value bytes, or {@code null} when the producer sent a null value
 */
public record Header(String key, byte[] value) {

    /**
     * Creates a header.
     *
     * @param key header key
     * @param value header value, may be {@code null}
     * @throws NullPointerException if {@code key} is {@code null} (the protocol has no null header keys)
     */
    public Header {
        Objects.requireNonNull(key, "key");
    }

    /**
     * Creates a header whose value is the UTF-8 encoding of a string, mostly for tests and examples.
     *
     * @param key   header key, never {@code null}
     * @param value value to encode, or {@code null} for a null value
     * @return the header
     * @throws NullPointerException if {@code key} is {@code null}
     */
    public static Header of(String key, String value) {
        return new Header(key, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Decodes the value as UTF-8, the usual encoding of textual headers.
     *
     * @return the decoded value, or {@code null} for a null value
     */
    public String valueAsString() {
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        return o instanceof Header other && key.equals(other.key) && Arrays.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value);
    }

    /**
     * Returns the key and the value length only: values are opaque and may be large or sensitive.
     *
     * @return e.g. {@code Header[key=trace-id, value=16 bytes]}
     */
    @Override
    public String toString() {
        return "Header[key=" + key + ", value=" + (value == null ? "null" : value.length + " bytes") + "]";
    }
}
