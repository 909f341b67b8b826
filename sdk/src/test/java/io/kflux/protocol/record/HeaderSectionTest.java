package io.kflux.protocol.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.DefaultRecord;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.apache.kafka.common.utils.ByteUtils;
import org.junit.jupiter.api.Test;

/**
 * A record's header section read apart from its batch, as a consumer's record reads it when its headers are first
 * asked for: against the official client's own encoding of the same headers, and every malformed section refused with
 * {@link IllegalArgumentException} before reading past its end.
 */
class HeaderSectionTest {

    /** The section of a record the official client writes: its header count and headers, as DefaultRecord puts them. */
    private static byte[] officialSection(Header... headers) throws Exception {
        ByteBuffer record = ByteBuffer.allocate(4096);
        try (ByteBufferOutputStream out = new ByteBufferOutputStream(record);
             java.io.DataOutputStream data = new java.io.DataOutputStream(out)) {
            DefaultRecord.writeTo(data, 0, 0L, null, null, headers);
        }
        record.flip();
        // the record: length, attributes, timestamp delta, offset delta, key length -1, value length -1, then headers
        ByteUtils.readVarint(record);
        record.get();
        ByteUtils.readVarlong(record);
        ByteUtils.readVarint(record);
        ByteUtils.readVarint(record);
        ByteUtils.readVarint(record);
        byte[] section = new byte[record.remaining()];
        record.get(section);
        return section;
    }

    private static List<RecordHeader> read(byte[] section) {
        List<RecordHeader> out = new ArrayList<>();
        HeaderSection.forEach(section, (index, key, value) -> {
            assertThat(index).isEqualTo(out.size());
            out.add(new RecordHeader(key, value));
        });
        return out;
    }

    @Test
    void readsWhatTheOfficialClientWrites() throws Exception {
        byte[] binary = new byte[300];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        Header[] headers = {
            new RecordHeader("trace-id", "abc".getBytes(StandardCharsets.UTF_8)),
            new RecordHeader("null-value", (byte[]) null),
            new RecordHeader("", new byte[0]),
            new RecordHeader("trace-id", "again".getBytes(StandardCharsets.UTF_8)),
            new RecordHeader("schl\u00fcssel-\u263A-" + "k".repeat(200), binary),
        };
        byte[] section = officialSection(headers);

        assertThat(HeaderSection.count(section)).isEqualTo(headers.length);
        List<RecordHeader> read = read(section);
        assertThat(read).hasSize(headers.length);
        for (int i = 0; i < headers.length; i++) {
            assertThat(read.get(i).key()).isEqualTo(headers[i].key());
            assertThat(read.get(i).value()).isEqualTo(headers[i].value());
        }
        assertThat(read.get(4).value()).as("a copy, not the section").isNotSameAs(section);

        byte[] none = officialSection();
        assertThat(HeaderSection.count(none)).isZero();
        assertThat(read(none)).isEmpty();
    }

    /** Malformed UTF-8 in a key is replaced as {@code new String(bytes, UTF_8)} replaces it, not refused. */
    @Test
    void aMalformedKeyIsReplacedAsTheJdkReplacesIt() {
        byte[] key = {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, 0x41};
        byte[] section = {2, 8, key[0], key[1], key[2], key[3], 2, 7};
        assertThat(read(section)).singleElement().satisfies(h -> {
            assertThat(h.key()).isEqualTo(new String(key, StandardCharsets.UTF_8));
            assertThat(h.value()).containsExactly(7);
        });
    }

    @Test
    void malformedSectionsAreRefused() throws Exception {
        byte[] good = officialSection(new RecordHeader("key", "value".getBytes(StandardCharsets.UTF_8)));
        for (int cut = 0; cut < good.length; cut++) {
            byte[] truncated = Arrays.copyOf(good, cut);
            assertThatThrownBy(() -> read(truncated)).as("cut at %d", cut)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("malformed header section");
        }
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertThatThrownBy(() -> read(trailing)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 bytes after the last of 1 headers");
        assertThatThrownBy(() -> read(new byte[] {2, 1})).as("null key")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null key");
        assertThatThrownBy(() -> read(new byte[] {2, 0, 3})).as("value length -2")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("value length -2");
        assertThatThrownBy(() -> HeaderSection.count(new byte[] {1})).as("count -1")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("malformed header section: it declares -1 headers");
        byte[] longVarint = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0};
        assertThatThrownBy(() -> HeaderSection.count(longVarint))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longer than 5 bytes");
    }
}
