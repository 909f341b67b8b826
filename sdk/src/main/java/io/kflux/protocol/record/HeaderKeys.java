package io.kflux.protocol.record;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The header keys a {@link RecordCursor} decoded lately, by their UTF-8 bytes. The records of a topic repeat the same
 * few keys (trace ids, event types, sources), so a key seen before is handed out as the same {@code String} instead
 * of being decoded and allocated again for every record (issue #28). A {@code String} is immutable: records sharing
 * one cannot tell. Each key decodes to exactly what {@code new String(bytes, UTF_8)} gives (malformed input replaced).
 *
 * <p>Direct-mapped: a key's slot is chosen by its length and three of its bytes. A slot keeps a key that keeps being
 * met and gives way to another only after as many misses as it had hits (at most {@value #MAX_HITS}), so two keys
 * that share a slot do not evict each other on every record. Keys longer than {@value #MAX_CACHED} bytes are decoded
 * each time. Not thread-safe, like its cursor.
 */
final class HeaderKeys {
    private static final int SLOTS = 32;
    private static final int MAX_CACHED = 64;
    private static final int MAX_HITS = 8;

    private final byte[][] bytes = new byte[SLOTS][];
    private final String[] strings = new String[SLOTS];
    private final int[] hits = new int[SLOTS];

    /** The key at {@code [offset, offset+length)} of {@code data}, decoded as UTF-8. */
    String key(byte[] data, int offset, int length) {
        if (length == 0) {
            return "";
        }
        if (length > MAX_CACHED) {
            return new String(data, offset, length, StandardCharsets.UTF_8);
        }
        int h = length;
        h = 31 * h + data[offset];
        h = 31 * h + data[offset + (length >>> 1)];
        h = 31 * h + data[offset + length - 1];
        int slot = (h ^ (h >>> 5)) & (SLOTS - 1);
        byte[] cached = bytes[slot];
        if (cached != null && cached.length == length
                && Arrays.equals(cached, 0, length, data, offset, offset + length)) {
            if (hits[slot] < MAX_HITS) {
                hits[slot]++;
            }
            return strings[slot];
        }
        String decoded = new String(data, offset, length, StandardCharsets.UTF_8);
        if (cached == null || hits[slot] == 0) {
            bytes[slot] = Arrays.copyOfRange(data, offset, offset + length);
            strings[slot] = decoded;
        } else {
            hits[slot]--;
        }
        return decoded;
    }
}
