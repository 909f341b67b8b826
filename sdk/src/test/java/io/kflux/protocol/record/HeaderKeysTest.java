package io.kflux.protocol.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Header keys decode as new String(bytes, UTF_8) would, and a repeated key is one String. */
class HeaderKeysTest {

    /** {@code key}'s bytes in the middle of a larger array, as in a batch. */
    private static byte[] around(byte[] key) {
        byte[] data = new byte[key.length + 5];
        System.arraycopy(key, 0, data, 2, key.length);
        data[0] = 'x';
        data[data.length - 1] = 'y';
        return data;
    }

    private static String decode(HeaderKeys keys, byte[] key) {
        return keys.key(around(key), 2, key.length);
    }

    @Test
    void everyKeyDecodesAsUtf8AndRepeatedKeysAreOneString() {
        HeaderKeys keys = new HeaderKeys();
        List<byte[]> wire = new ArrayList<>(List.of(
                "trace-id".getBytes(StandardCharsets.UTF_8), "event-type".getBytes(StandardCharsets.UTF_8),
                "source".getBytes(StandardCharsets.UTF_8), new byte[0],
                "schl\u00fcssel-\u263A".getBytes(StandardCharsets.UTF_8),
                new byte[] {(byte) 0xC3, 0x28, (byte) 0xFF}, // malformed: replaced, as new String does
                "k".repeat(65).getBytes(StandardCharsets.UTF_8))); // past the cached length
        Random random = new Random(28);
        for (int i = 0; i < 200; i++) { // many keys: slots shared, evicted, kept
            byte[] k = new byte[1 + random.nextInt(20)];
            random.nextBytes(k);
            wire.add(k);
        }
        for (int pass = 0; pass < 3; pass++) {
            for (byte[] k : wire) {
                assertThat(decode(keys, k)).isEqualTo(new String(k, StandardCharsets.UTF_8));
            }
        }
        for (int i = 0; i < 5; i++) {
            byte[] k = wire.get(i);
            assertThat(decode(keys, k)).as("key %d met again", i).isSameAs(decode(keys, k));
        }
    }

    /** Two keys that share a slot, alternating: the one that kept being met stays; both decode right throughout. */
    @Test
    void aKeptKeyIsNotEvictedByAnotherOfItsSlot() {
        HeaderKeys keys = new HeaderKeys();
        byte[] a = "trace-id".getBytes(StandardCharsets.UTF_8);
        String first = decode(keys, a);
        for (int i = 0; i < 4; i++) {
            assertThat(decode(keys, a)).isSameAs(first);
        }
        byte[] b = collidingWith(keys, a, first);
        for (int i = 0; i < 3; i++) {
            assertThat(decode(keys, b)).isEqualTo(new String(b, StandardCharsets.UTF_8));
            assertThat(decode(keys, a)).as("kept after a miss of its slot").isSameAs(first);
        }
    }

    /** A key of {@code a}'s slot: one whose decoding leaves {@code a} cached (found by trying, as the slot is hashed). */
    private static byte[] collidingWith(HeaderKeys keys, byte[] a, String cachedA) {
        for (int i = 0; i < 100_000; i++) {
            byte[] candidate = ("key-" + i).getBytes(StandardCharsets.UTF_8);
            HeaderKeys probe = new HeaderKeys();
            String p = decode(probe, a);
            decode(probe, candidate); // a has no hits in probe: a colliding key takes the slot
            if (decode(probe, a) != p) {
                return candidate;
            }
        }
        throw new AssertionError("no key of the same slot found");
    }
}
