package io.kflux.protocol.record;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyOutputStream;

class RecordsReaderRandomizedTest {
    /** Sizes around the 1-, 2- and 3-byte zigzag varint boundaries, plus small ones. */
    private static final int[] EDGE_SIZES = {0, 1, 2, 63, 64, 65, 127, 128, 8191, 8192, 8193, 20_000};

    private static int size(Random r) {
        return r.nextInt(4) == 0 ? EDGE_SIZES[r.nextInt(EDGE_SIZES.length)] : r.nextInt(40);
    }

    private static byte[] bytesOrNull(Random r) {
        if (r.nextInt(6) == 0) {
            return null;
        }
        byte[] b = new byte[size(r)];
        if (r.nextBoolean()) {
            r.nextBytes(b);
        } else {
            Arrays.fill(b, (byte) r.nextInt(4));
        }
        return b;
    }

    private static String headerKey(Random r) {
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(4) == 0 ? 70 : r.nextInt(8);
        for (int i = 0; i < n; i++) {
            sb.append(r.nextInt(5) == 0 ? (char) (0x400 + r.nextInt(200)) : (char) ('a' + r.nextInt(26)));
        }
        return sb.toString();
    }

    private static MemoryRecords randomBatch(Random r, long baseOffset) {
        io.kflux.protocol.record.Compression c =
                io.kflux.protocol.record.Compression.values()[r.nextInt(io.kflux.protocol.record.Compression.values().length)];
        boolean logAppend = r.nextInt(4) == 0;
        boolean idempotent = r.nextBoolean();
        boolean transactional = idempotent && r.nextInt(3) == 0;
        long baseTimestamp = r.nextInt(10) == 0 ? 1_000_000L : 1_500_000_000_000L + r.nextInt(1 << 30);
        MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(512), RecordsReaderTest.V2,
                RecordsReaderTest.kafka(c), logAppend ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME,
                baseOffset, logAppend ? baseTimestamp + 99 : -1L,
                idempotent ? r.nextLong() & Long.MAX_VALUE : -1L, idempotent ? (short) r.nextInt(Short.MAX_VALUE) : -1,
                idempotent ? r.nextInt(Integer.MAX_VALUE) : -1, transactional, r.nextInt(1000) - 1);
        int count = r.nextInt(10) == 0 ? 200 + r.nextInt(300) : 1 + r.nextInt(20);
        long offset = baseOffset;
        for (int i = 0; i < count; i++) {
            int hc = r.nextInt(5) == 0 ? (r.nextInt(4) == 0 ? 64 + r.nextInt(10) : r.nextInt(5)) : 0;
            Header[] headers = new Header[hc];
            for (int h = 0; h < hc; h++) {
                headers[h] = new RecordHeader(headerKey(r), bytesOrNull(r));
            }
            // timestamps may go backwards (negative deltas) and offsets may have gaps
            long ts = r.nextInt(50) == 0 ? -1L : baseTimestamp + r.nextInt(2_000_000) - 1_000_000;
            b.appendWithOffset(offset, ts, bytesOrNull(r), bytesOrNull(r), headers);
            offset += 1 + (r.nextInt(5) == 0 ? r.nextInt(1000) : 0);
        }
        return b.build();
    }

    @Test
    void randomShapesDecodeLikeKafka() {
        Random r = new Random(0x5EEDL);
        RecordsReader reused = new RecordsReader();
        long total = 0;
        for (int round = 0; round < 150; round++) {
            int batches = 1 + r.nextInt(4);
            MemoryRecords[] parts = new MemoryRecords[batches];
            long offset = r.nextInt(5) == 0 ? (1L << 40) + r.nextInt(1000) : r.nextInt(1000);
            for (int i = 0; i < batches; i++) {
                parts[i] = randomBatch(r, offset);
                offset = parts[i].batches().iterator().next().nextOffset() + r.nextInt(3);
            }
            byte[] bytes = Oracle.bytes(parts);
            Oracle.Layout layout = Oracle.Layout.values()[r.nextInt(Oracle.Layout.values().length)];
            total += Oracle.assertSameAsKafka(bytes, reused, layout);
        }
        assertThat(total).isGreaterThan(1000);
    }

    /** Rebuilds a NONE batch with a compressed records section, as another producer could write it. */
    private static byte[] withCompressedRecords(byte[] plain, byte[] compressed, int compressionId) {
        byte[] bytes = withSnappyRecords(plain, compressed);
        bytes[22] = (byte) ((bytes[22] & ~0x07) | compressionId);
        Oracle.fixCrc(bytes, 0);
        return bytes;
    }

    @Test
    void lz4FramesWithOptionalFieldsAndLargerBlocks() throws IOException {
        byte[] plain = Oracle.bytes(RecordsReaderTest.largeBatch(io.kflux.protocol.record.Compression.NONE, 3000, 200, 5));
        byte[] section = Arrays.copyOfRange(plain, 61, plain.length);
        LZ4FrameOutputStream.FLG.Bits[][] flags = {
            {LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE},
            {LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE, LZ4FrameOutputStream.FLG.Bits.BLOCK_CHECKSUM},
            {LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE, LZ4FrameOutputStream.FLG.Bits.CONTENT_CHECKSUM,
                LZ4FrameOutputStream.FLG.Bits.CONTENT_SIZE},
        };
        for (LZ4FrameOutputStream.BLOCKSIZE blockSize : LZ4FrameOutputStream.BLOCKSIZE.values()) {
            for (LZ4FrameOutputStream.FLG.Bits[] bits : flags) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try (LZ4FrameOutputStream lz = new LZ4FrameOutputStream(out, blockSize, section.length, bits)) {
                    lz.write(section);
                }
                // two frames back to back decode as their concatenation
                byte[] twice = new byte[out.size() * 2];
                System.arraycopy(out.toByteArray(), 0, twice, 0, out.size());
                System.arraycopy(out.toByteArray(), 0, twice, out.size(), out.size());
                Oracle.assertSameAsKafka(withCompressedRecords(plain, out.toByteArray(), 3),
                        new RecordsReader(), Oracle.Layout.DIRECT);
                byte[] doubled = withCompressedRecords(plain, twice, 3);
                RecordsReader reader = new RecordsReader().reset(Unpooled.wrappedBuffer(doubled));
                reader.nextBatch();
                RecordCursor c = reader.records();
                int n = 0;
                while (c.remaining() > 0 && c.next()) {
                    n++;
                }
                assertThat(n).isEqualTo(3000);
                org.assertj.core.api.Assertions.assertThatThrownBy(c::next)
                        .isInstanceOf(CorruptRecordBatchException.class).hasMessageContaining("remain after them");
            }
        }
        // lz4-java refuses to write dependent-block frames: clear the flag and fix the header checksum
        ByteArrayOutputStream independent = new ByteArrayOutputStream();
        try (LZ4FrameOutputStream lz = new LZ4FrameOutputStream(independent, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB)) {
            lz.write(section);
        }
        byte[] frame = independent.toByteArray();
        frame[4] &= ~0x20;
        frame[6] = (byte) (net.jpountz.xxhash.XXHashFactory.safeInstance().hash32().hash(frame, 4, 2, 0) >> 8);
        byte[] bytes = withCompressedRecords(plain, frame, 3);
        RecordsReader reader = new RecordsReader().reset(Unpooled.wrappedBuffer(bytes));
        reader.nextBatch();
        org.assertj.core.api.Assertions.assertThatThrownBy(reader::records)
                .isInstanceOf(CorruptRecordBatchException.class).hasMessageContaining("dependent blocks");
    }

    /** Rebuilds a NONE batch with a snappy-compressed records section produced by {@code codec}. */
    private static byte[] withSnappyRecords(byte[] plain, byte[] compressed) {
        ByteBuffer out = ByteBuffer.allocate(61 + compressed.length);
        out.put(plain, 0, 61).put(compressed);
        byte[] bytes = out.array();
        ByteBuffer.wrap(bytes).putInt(8, bytes.length - 12);
        bytes[22] = (byte) ((bytes[22] & ~0x07) | 0x02);
        Oracle.fixCrc(bytes, 0);
        return bytes;
    }

    @Test
    void rawAndConcatenatedSnappyStreamsAsOtherProducersWriteThem() throws IOException {
        byte[] plain = Oracle.bytes(RecordsReaderTest.largeBatch(io.kflux.protocol.record.Compression.NONE, 100, 100, 3));
        byte[] section = Arrays.copyOfRange(plain, 61, plain.length);

        byte[] raw = withSnappyRecords(plain, Snappy.compress(section));
        Oracle.assertSameAsKafka(raw);

        ByteArrayOutputStream framed = new ByteArrayOutputStream();
        int half = section.length / 2;
        for (byte[] part : List.of(Arrays.copyOfRange(section, 0, half), Arrays.copyOfRange(section, half, section.length))) {
            ByteArrayOutputStream one = new ByteArrayOutputStream();
            try (SnappyOutputStream s = new SnappyOutputStream(one, 1024)) { // smallest chunks: many blocks
                s.write(part);
            }
            framed.write(one.toByteArray());
        }
        Oracle.assertSameAsKafka(withSnappyRecords(plain, framed.toByteArray()));
    }

    @Test
    void lz4ReadsKafkasFramesByteExactly() {
        // independent of the oracle comparison: values survive the LZ4 frame round trip exactly
        Random r = new Random(7);
        MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordsReaderTest.V2,
                RecordsReaderTest.kafka(io.kflux.protocol.record.Compression.LZ4), TimestampType.CREATE_TIME, 0L);
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            byte[] v = new byte[r.nextInt(3000)];
            if (i % 3 == 0) {
                r.nextBytes(v); // incompressible: LZ4 stores these blocks uncompressed
            }
            values.add(v);
            b.append(i, null, v);
        }
        RecordsReader reader = new RecordsReader().reset(Unpooled.wrappedBuffer(Oracle.bytes(b.build())));
        assertThat(reader.nextBatch().compression()).isEqualTo(io.kflux.protocol.record.Compression.LZ4);
        RecordCursor c = reader.records();
        for (byte[] v : values) {
            assertThat(c.next()).isTrue();
            assertThat(c.valueBytes()).isEqualTo(v);
        }
        assertThat(c.next()).isFalse();
    }
}
