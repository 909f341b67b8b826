package io.kflux.protocol.record;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A record's headers in their wire form (record format v2, KIP-82): a zigzag varint count, then per header a varint
 * key length, the UTF-8 key, a varint value length (-1 for a null value) and the value. The one reader of that form:
 * {@link RecordCursor#forEachHeader} walks it inside a batch, and a consumer's records keep a copy of it
 * ({@link RecordCursor#copyHeaderSection()}) that is read only when the application asks for the headers (issue #28:
 * most consumers never do, and decoding every header of every record cost a quarter of the emit thread on a record
 * with three headers).
 *
 * <p>Reads validate every length against the section's end, so a section that is not one fails with
 * {@link IllegalArgumentException} instead of reading past it; a section copied from a record the cursor validated
 * always reads.
 */
public final class HeaderSection {
    private final byte[] data;
    private final int limit;
    private int pos;

    private HeaderSection(byte[] data, int from, int to) {
        this.data = data;
        this.pos = from;
        this.limit = to;
    }

    /**
     * The number of headers a section holds, read from its count alone.
     *
     * @param section a section as {@link RecordCursor#copyHeaderSection()} gives it
     * @return the count, {@code >= 0}
     * @throws IllegalArgumentException if the section does not start with a varint of at most 5 bytes holding a
     *         non-negative count
     */
    public static int count(byte[] section) {
        int count = new HeaderSection(section, 0, section.length).varint();
        if (count < 0) {
            throw malformed("it declares " + count + " headers");
        }
        return count;
    }

    /**
     * Hands each header of a section to {@code visitor}, in wire order: keys decoded as UTF-8 (malformed bytes
     * replaced, as {@code new String(bytes, UTF_8)} does), values copied into arrays of their own.
     *
     * @param section a section as {@link RecordCursor#copyHeaderSection()} gives it
     * @param visitor receives {@link #count(byte[])} calls
     * @throws IllegalArgumentException if the section is malformed: a negative count, a varint past its end or longer
     *         than 5 bytes, a length past its end, a null key, a value length below -1, bytes left after the last
     *         header; the message starts with "malformed header section"
     */
    public static void forEach(byte[] section, RecordCursor.HeaderVisitor visitor) {
        forEach(section, 0, section.length, visitor);
    }

    /** {@link #forEach(byte[], RecordCursor.HeaderVisitor)} over {@code [from, to)} of {@code data}. */
    static void forEach(byte[] data, int from, int to, RecordCursor.HeaderVisitor visitor) {
        HeaderSection s = new HeaderSection(data, from, to);
        int count = s.varint();
        if (count < 0) {
            throw malformed("it declares " + count + " headers");
        }
        for (int i = 0; i < count; i++) {
            int keyLength = s.varint();
            if (keyLength < 0) {
                throw malformed("header " + i + " has a null key");
            }
            String key = new String(data, s.take(keyLength), keyLength, StandardCharsets.UTF_8);
            int valueLength = s.varint();
            byte[] value = null;
            if (valueLength >= 0) {
                int at = s.take(valueLength);
                value = Arrays.copyOfRange(data, at, at + valueLength);
            } else if (valueLength != -1) {
                throw malformed("header " + i + " has value length " + valueLength);
            }
            visitor.header(i, key, value);
        }
        if (s.pos != to) {
            throw malformed((to - s.pos) + " bytes after the last of " + count + " headers");
        }
    }

    /** Moves past {@code length} bytes; returns where they start. */
    private int take(int length) {
        if (length > limit - pos) {
            throw malformed("a length of " + length + " runs past its end");
        }
        int at = pos;
        pos += length;
        return at;
    }

    private int varint() {
        int raw = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (pos >= limit) {
                throw malformed("a varint runs past its end");
            }
            byte b = data[pos++];
            raw |= (b & 0x7F) << shift;
            if (b >= 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw malformed("a varint is longer than 5 bytes");
    }

    private static IllegalArgumentException malformed(String what) {
        return new IllegalArgumentException("malformed header section: " + what);
    }
}
