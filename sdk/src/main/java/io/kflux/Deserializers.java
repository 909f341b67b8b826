package io.kflux;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.UUID;

/**
 * Built-in {@link Deserializer}s. Each reads the same bytes the matching serializer of the official Java
 * client writes (fixed-size numbers big-endian, strings and UUIDs as UTF-8 text), so topics written by
 * Kafka producers read back unchanged.
 *
 * <p>All of them return {@code null} for a {@code null} input, never change the position of the buffer they
 * are given, and throw {@link IllegalArgumentException} when the number of bytes is wrong for the type (the
 * consumer reports that as {@link RecordDeserializationException}). All are stateless and thread-safe.
 */
public final class Deserializers {

    private static final Deserializer<String> STRING = string(StandardCharsets.UTF_8);
    private static final Deserializer<byte[]> BYTE_ARRAY = (topic, headers, data) -> data == null ? null : bytes(data);
    private static final Deserializer<ByteBuffer> BYTE_BUFFER =
        (topic, headers, data) -> data == null ? null : ByteBuffer.wrap(bytes(data));
    private static final Deserializer<Long> LONGS =
        (topic, headers, data) -> data == null ? null : readLong(data, "Long");
    private static final Deserializer<Integer> INTEGERS =
        (topic, headers, data) -> data == null ? null : readInt(data, "Integer");
    private static final Deserializer<Short> SHORTS = (topic, headers, data) -> {
        if (data == null) {
            return null;
        }
        checkSize(data, 2, "Short");
        short s = data.getShort(data.position());
        return data.order() == ByteOrder.BIG_ENDIAN ? s : Short.reverseBytes(s);
    };
    private static final Deserializer<Double> DOUBLES =
        (topic, headers, data) -> data == null ? null : Double.longBitsToDouble(readLong(data, "Double"));
    private static final Deserializer<Float> FLOATS =
        (topic, headers, data) -> data == null ? null : Float.intBitsToFloat(readInt(data, "Float"));
    private static final Deserializer<UUID> UUIDS = (topic, headers, data) -> {
        if (data == null) {
            return null;
        }
        String text = STRING.deserialize(topic, headers, data);
        // UUID.fromString also accepts shortened groups such as "1-2-3-4-5"; the official serializer only ever
        // writes the canonical 36-character form, so anything else is not a serialized UUID.
        if (text.length() != 36) {
            throw new IllegalArgumentException("expected a 36-character UUID string, got " + text.length()
                                               + " characters");
        }
        return UUID.fromString(text);
    };
    private static final Deserializer<Void> VOID = (topic, headers, data) -> {
        if (data != null) {
            throw new IllegalArgumentException("expected a null key or value, got " + data.remaining() + " bytes");
        }
        return null;
    };

    private Deserializers() {
    }

    /**
     * Decodes UTF-8 text (the official {@code StringDeserializer}'s default encoding).
     *
     * @return a shared deserializer
     */
    public static Deserializer<String> string() {
        return STRING;
    }

    /**
     * Decodes text in the given charset; malformed input is replaced, as {@link String#String(byte[], Charset)}
     * does.
     *
     * @param charset the charset, never {@code null}
     * @return a new deserializer
     * @throws NullPointerException if {@code charset} is {@code null}
     */
    public static Deserializer<String> string(Charset charset) {
        Objects.requireNonNull(charset, "charset");
        return (topic, headers, data) -> {
            if (data == null) {
                return null;
            }
            if (data.hasArray()) {
                return new String(data.array(), data.arrayOffset() + data.position(), data.remaining(), charset);
            }
            return new String(bytes(data), charset);
        };
    }

    /**
     * Copies the bytes into a new array.
     *
     * @return a shared deserializer
     */
    public static Deserializer<byte[]> byteArray() {
        return BYTE_ARRAY;
    }

    /**
     * Copies the bytes into a new heap buffer (position 0, limit = length), which the application may keep.
     *
     * @return a shared deserializer
     */
    public static Deserializer<ByteBuffer> byteBuffer() {
        return BYTE_BUFFER;
    }

    /**
     * Reads a 64-bit big-endian signed integer.
     *
     * @return a shared deserializer; throws {@link IllegalArgumentException} unless there are exactly 8 bytes
     */
    public static Deserializer<Long> longs() {
        return LONGS;
    }

    /**
     * Reads a 32-bit big-endian signed integer.
     *
     * @return a shared deserializer; throws {@link IllegalArgumentException} unless there are exactly 4 bytes
     */
    public static Deserializer<Integer> integers() {
        return INTEGERS;
    }

    /**
     * Reads a 16-bit big-endian signed integer.
     *
     * @return a shared deserializer; throws {@link IllegalArgumentException} unless there are exactly 2 bytes
     */
    public static Deserializer<Short> shorts() {
        return SHORTS;
    }

    /**
     * Reads an IEEE 754 double from 8 big-endian bytes.
     *
     * @return a shared deserializer; throws {@link IllegalArgumentException} unless there are exactly 8 bytes
     */
    public static Deserializer<Double> doubles() {
        return DOUBLES;
    }

    /**
     * Reads an IEEE 754 float from 4 big-endian bytes.
     *
     * @return a shared deserializer; throws {@link IllegalArgumentException} unless there are exactly 4 bytes
     */
    public static Deserializer<Float> floats() {
        return FLOATS;
    }

    /**
     * Reads a UUID written as its canonical 36-character text in UTF-8, which is how the official
     * {@code UUIDSerializer} writes it (not as 16 raw bytes).
     *
     * @return a shared deserializer; throws {@link IllegalArgumentException} for anything but a canonical UUID
     */
    public static Deserializer<UUID> uuid() {
        return UUIDS;
    }

    /**
     * Accepts only null keys or values, for topics whose keys are always null.
     *
     * @return a shared deserializer that returns {@code null}; throws {@link IllegalArgumentException} for
     *         non-null data
     */
    public static Deserializer<Void> voidDeserializer() {
        return VOID;
    }

    private static byte[] bytes(ByteBuffer data) {
        byte[] out = new byte[data.remaining()];
        data.get(data.position(), out);
        return out;
    }

    private static void checkSize(ByteBuffer data, int expected, String type) {
        if (data.remaining() != expected) {
            throw new IllegalArgumentException(type + " needs exactly " + expected + " bytes, got " + data.remaining());
        }
    }

    private static long readLong(ByteBuffer data, String type) {
        checkSize(data, 8, type);
        long v = data.getLong(data.position());
        return data.order() == ByteOrder.BIG_ENDIAN ? v : Long.reverseBytes(v);
    }

    private static int readInt(ByteBuffer data, String type) {
        checkSize(data, 4, type);
        int v = data.getInt(data.position());
        return data.order() == ByteOrder.BIG_ENDIAN ? v : Integer.reverseBytes(v);
    }
}
