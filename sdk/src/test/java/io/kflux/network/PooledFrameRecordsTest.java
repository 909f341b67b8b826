package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.record.RecordCursor;
import io.kflux.protocol.record.RecordsReader;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The record path reads a reused frame only up to its writer index, through slices at any offset: the array behind
 * holds the longer frame it carried before, which must never show.
 */
class PooledFrameRecordsTest {

    private static byte[] batches(String codec, int count, long seed) {
        Compression compression = switch (codec) {
            case "lz4" -> Compression.lz4().build();
            case "zstd" -> Compression.zstd().build();
            default -> Compression.NONE;
        };
        MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(1 << 16), RecordBatch.CURRENT_MAGIC_VALUE,
                compression, TimestampType.CREATE_TIME, 1000L);
        Random random = new Random(seed);
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[100 + random.nextInt(200)];
            random.nextBytes(value);
            b.append(1_700_000_000_000L + i, ("key-" + i).getBytes(StandardCharsets.UTF_8), value,
                    new Header[] {new RecordHeader("h" + i % 3, value.length % 2 == 0 ? null : new byte[] {(byte) i})});
        }
        ByteBuffer built = b.build().buffer();
        byte[] bytes = new byte[built.remaining()];
        built.get(bytes);
        return bytes;
    }

    private static List<String> expected(byte[] records) {
        List<String> out = new ArrayList<>();
        for (Record r : MemoryRecords.readableRecords(ByteBuffer.wrap(records)).records()) {
            StringBuilder s = new StringBuilder().append(r.offset()).append(' ').append(r.timestamp()).append(' ')
                    .append(Arrays.toString(bytes(r.key()))).append(' ').append(Arrays.toString(bytes(r.value())));
            for (Header h : r.headers()) {
                s.append(' ').append(h.key()).append('=').append(Arrays.toString(h.value()));
            }
            out.add(s.toString());
        }
        return out;
    }

    private static byte[] bytes(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static List<String> read(RecordsReader reader, ByteBuf records) {
        List<String> out = new ArrayList<>();
        reader.reset(records);
        while (reader.nextBatch() != null) {
            RecordCursor c = reader.records();
            while (c.next()) {
                StringBuilder s = new StringBuilder().append(c.offset()).append(' ').append(c.timestamp()).append(' ')
                        .append(Arrays.toString(c.keyBytes())).append(' ').append(Arrays.toString(c.valueBytes()));
                for (io.kflux.protocol.record.RecordHeader h : c.headers()) {
                    s.append(' ').append(h.key()).append('=').append(Arrays.toString(h.value()));
                }
                out.add(s.toString());
            }
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "lz4", "zstd"})
    void recordsOfAReusedFrameEndAtItsWriterIndexNotAtItsArray(String codec) {
        FramePool pool = new FramePool(false);
        byte[] previous = batches(codec, 700, 1);
        ByteBuf first = pool.frame(previous.length + 10);
        first.writeZero(10).writeBytes(previous);
        byte[] array = first.array();
        first.release();

        // the next response: some header bytes, one partition's batches, then a batch the broker cut short
        byte[] current = batches(codec, 400, 2);
        byte[] cut = Arrays.copyOf(batches(codec, 40, 3), 200);
        int prefix = 17;
        int size = prefix + current.length + cut.length;
        assertThat(size).isLessThan(previous.length).isGreaterThanOrEqualTo(FramePool.MIN_POOLED);
        ByteBuf frame = pool.frame(size);
        frame.writeZero(prefix).writeBytes(current).writeBytes(cut);
        assertThat(frame.array()).isSameAs(array);
        frame.readerIndex(prefix);
        ByteBuf records = frame.readRetainedSlice(current.length + cut.length); // as Types.RECORDS reads a partition
        frame.release(); // the connection handler's release after decoding; the slice keeps the array

        RecordsReader reader = new RecordsReader();
        assertThat(read(reader, records)).isEqualTo(expected(current));
        assertThat(reader.completeBytes()).isEqualTo(current.length);
        assertThat(reader.hasPartialBatch()).isTrue();
        assertThat(reader.remainingBytes()).isEqualTo(cut.length);
        records.release();
        assertThat(pool.freeArrays()).isOne();
    }
}
