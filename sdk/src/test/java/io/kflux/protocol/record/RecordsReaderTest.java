package io.kflux.protocol.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RecordsReaderTest {
    static final byte V2 = org.apache.kafka.common.record.RecordBatch.MAGIC_VALUE_V2;

    static Compression kafka(io.kflux.protocol.record.Compression c) {
        return switch (c) {
            case NONE -> Compression.NONE;
            case GZIP -> Compression.gzip().build();
            case SNAPPY -> Compression.snappy().build();
            case LZ4 -> Compression.lz4().build();
            case ZSTD -> Compression.zstd().build();
        };
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static MemoryRecordsBuilder builder(io.kflux.protocol.record.Compression c, TimestampType type, long baseOffset,
                                        long logAppendTime, long producerId, short epoch, int seq,
                                        boolean transactional, int leaderEpoch) {
        return MemoryRecords.builder(ByteBuffer.allocate(1024), V2, kafka(c), type, baseOffset, logAppendTime,
                producerId, epoch, seq, transactional, leaderEpoch);
    }

    /** A batch with headers, null keys, null values, empty arrays, explicit timestamps and a unicode header key. */
    static MemoryRecords mixedBatch(io.kflux.protocol.record.Compression c, long baseOffset) {
        MemoryRecordsBuilder b = builder(c, TimestampType.CREATE_TIME, baseOffset, -1L, 4711L, (short) 3, 17,
                false, 9);
        b.append(1_700_000_000_000L, utf8("k0"), utf8("v0"));
        b.append(1_700_000_000_005L, (byte[]) null, utf8("value with null key"));
        b.append(1_699_999_999_000L, utf8("tombstone"), (byte[]) null);
        b.append(1_700_000_000_010L, (byte[]) null, (byte[]) null);
        b.append(1_700_000_000_011L, new byte[0], new byte[0]);
        b.append(1_700_000_000_012L, utf8("h"), utf8("with headers"), new Header[] {
            new RecordHeader("trace-id", utf8("abc")),
            new RecordHeader("null-value", (byte[]) null),
            new RecordHeader("ünïcødé-键", new byte[0]),
            new RecordHeader("trace-id", utf8("duplicate key"))});
        return b.build();
    }

    @ParameterizedTest
    @EnumSource(io.kflux.protocol.record.Compression.class)
    void decodesMixedRecordsLikeKafka(io.kflux.protocol.record.Compression c) {
        byte[] bytes = Oracle.bytes(mixedBatch(c, 100L));
        assertThat(Oracle.assertSameAsKafka(bytes)).isEqualTo(6);

        RecordsReader reader = new RecordsReader().reset(Unpooled.wrappedBuffer(bytes));
        RecordBatch batch = reader.nextBatch();
        assertThat(batch.compression()).isEqualTo(c);
        assertThat(batch.timestampType()).isEqualTo(io.kflux.protocol.record.TimestampType.CREATE_TIME);
        assertThat(batch.producerId()).isEqualTo(4711L);
        assertThat(batch.producerEpoch()).isEqualTo((short) 3);
        assertThat(batch.baseSequence()).isEqualTo(17);
        assertThat(batch.partitionLeaderEpoch()).isEqualTo(9);
        assertThat(batch.baseOffset()).isEqualTo(100L);
        assertThat(batch.lastOffset()).isEqualTo(105L);
        assertThat(batch.nextOffset()).isEqualTo(106L);
        assertThat(batch.maxTimestamp()).isEqualTo(1_700_000_000_012L);
        RecordCursor cursor = reader.records();
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.headers()).isEmpty();
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.keyLength()).isEqualTo(-1);
        assertThat(cursor.keyBytes()).isNull();
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.timestamp()).isEqualTo(1_699_999_999_000L);
        assertThat(cursor.valueLength()).isEqualTo(-1);
        assertThat(cursor.valueBytes()).isNull();
        assertThat(cursor.next() && cursor.next() && cursor.next()).isTrue();
        assertThat(cursor.offset()).isEqualTo(105L);
        List<io.kflux.protocol.record.RecordHeader> headers = cursor.headers();
        assertThat(headers).extracting(io.kflux.protocol.record.RecordHeader::key)
                .containsExactly("trace-id", "null-value", "ünïcødé-键", "trace-id");
        assertThat(headers.get(1).value()).isNull();
        assertThat(headers.get(2).value()).isEmpty();
        assertThat(cursor.next()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(io.kflux.protocol.record.Compression.class)
    void logAppendTimeGivesEveryRecordTheBatchMaxTimestamp(io.kflux.protocol.record.Compression c) {
        MemoryRecordsBuilder b = builder(c, TimestampType.LOG_APPEND_TIME, 0L, 1_234_567L, -1L, (short) -1, -1,
                false, -1);
        b.append(1L, utf8("a"), utf8("1"));
        b.append(99_999_999L, utf8("b"), utf8("2"));
        byte[] bytes = Oracle.bytes(b.build());
        Oracle.assertSameAsKafka(bytes);

        RecordsReader reader = new RecordsReader().reset(Unpooled.wrappedBuffer(bytes));
        RecordBatch batch = reader.nextBatch();
        assertThat(batch.timestampType()).isEqualTo(io.kflux.protocol.record.TimestampType.LOG_APPEND_TIME);
        assertThat(batch.producerId()).isEqualTo(RecordBatch.NO_PRODUCER_ID);
        RecordCursor cursor = reader.records();
        while (cursor.next()) {
            assertThat(cursor.timestamp()).isEqualTo(1_234_567L);
        }
    }

    @Test
    void concatenatedBatchesOfEveryCompressionAndReaderReuse() {
        io.kflux.protocol.record.Compression[] all = io.kflux.protocol.record.Compression.values();
        MemoryRecords[] parts = new MemoryRecords[all.length * 2];
        long offset = 0;
        for (int i = 0; i < parts.length; i++) {
            MemoryRecords m = mixedBatch(all[i % all.length], offset);
            parts[i] = m;
            offset += 6 + i; // gaps between batches, as compaction leaves them
        }
        byte[] bytes = Oracle.bytes(parts);
        RecordsReader reused = new RecordsReader();
        for (Oracle.Layout layout : Oracle.Layout.values()) {
            assertThat(Oracle.assertSameAsKafka(bytes, reused, layout)).isEqualTo(6 * parts.length);
        }
        // a big batch followed by small ones on the same reader: the pooled array must not leak old bytes
        byte[] big = Oracle.bytes(largeBatch(io.kflux.protocol.record.Compression.NONE, 2000, 1024, 7));
        Oracle.assertSameAsKafka(big, reused, Oracle.Layout.HEAP);
        Oracle.assertSameAsKafka(bytes, reused, Oracle.Layout.HEAP);
    }

    @Test
    void emptyBuffer() {
        RecordsReader reader = new RecordsReader().reset(Unpooled.EMPTY_BUFFER);
        assertThat(reader.nextBatch()).isNull();
        assertThat(reader.hasPartialBatch()).isFalse();
        assertThat(reader.completeBytes()).isZero();
        assertThatThrownBy(reader::records).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void emptyBatchKeptByCompaction() {
        ByteBuffer empty = ByteBuffer.allocate(61);
        org.apache.kafka.common.record.DefaultRecordBatch.writeEmptyHeader(empty, V2, 9L, (short) 1, 5, 100L, 104L, 3,
                TimestampType.CREATE_TIME, 1_700_000_000_000L, true, false);
        empty.flip();
        byte[] gzipNoRecords = Oracle.bytes(mixedBatch(io.kflux.protocol.record.Compression.GZIP, 200L));
        ByteBuffer.wrap(gzipNoRecords).putInt(57, 0);
        Oracle.fixCrc(gzipNoRecords, 0);
        byte[] bytes = Oracle.bytes(MemoryRecords.readableRecords(empty),
                MemoryRecords.readableRecords(ByteBuffer.wrap(gzipNoRecords)));
        Oracle.assertSameAsKafka(bytes);
        RecordsReader reader = new RecordsReader().reset(Unpooled.wrappedBuffer(bytes));
        RecordBatch batch = reader.nextBatch();
        assertThat(batch.recordCount()).isZero();
        assertThat(batch.nextOffset()).isEqualTo(105L);
        assertThat(batch.isTransactional()).isTrue();
        assertThat(reader.records().next()).isFalse();
        assertThat(reader.nextBatch().recordCount()).isZero();
        assertThat(reader.records().next()).isFalse();
    }

    @Test
    void readerRequiresReset() {
        assertThatThrownBy(() -> new RecordsReader().nextBatch()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void transactionalBatchFollowedByCommitAndAbortMarkers() {
        long pid = 77L;
        short epoch = 5;
        MemoryRecordsBuilder tx = builder(io.kflux.protocol.record.Compression.LZ4, TimestampType.CREATE_TIME, 10L,
                -1L, pid, epoch, 0, true, 2);
        tx.append(1000L, utf8("k1"), utf8("v1"));
        tx.append(1001L, utf8("k2"), utf8("v2"));
        MemoryRecords commit = MemoryRecords.withEndTransactionMarker(12L, 2000L, 2, pid, epoch,
                new EndTransactionMarker(org.apache.kafka.common.record.ControlRecordType.COMMIT, 3));
        MemoryRecords abort = MemoryRecords.withEndTransactionMarker(13L, 2001L, 2, pid, epoch,
                new EndTransactionMarker(org.apache.kafka.common.record.ControlRecordType.ABORT, 3));
        byte[] bytes = Oracle.bytes(tx.build(), commit, abort);
        Oracle.assertSameAsKafka(bytes);

        RecordsReader reader = new RecordsReader().reset(Unpooled.wrappedBuffer(bytes));
        RecordBatch data = reader.nextBatch();
        assertThat(data.isTransactional()).isTrue();
        assertThat(data.isControl()).isFalse();
        assertThat(data.producerId()).isEqualTo(pid);
        assertThat(Oracle.offsets(reader.records())).containsExactly(10L, 11L);

        RecordBatch c = reader.nextBatch();
        assertThat(c.isControl()).isTrue();
        assertThat(c.isTransactional()).isTrue();
        assertThat(c.nextOffset()).isEqualTo(13L);
        RecordCursor cursor = reader.records();
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.controlType()).isEqualTo(ControlRecordType.COMMIT);
        assertThat(cursor.next()).isFalse();

        RecordBatch a = reader.nextBatch();
        assertThat(a.isControl()).isTrue();
        cursor = reader.records();
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.controlType()).isEqualTo(ControlRecordType.ABORT);
        assertThat(cursor.offset()).isEqualTo(13L);
        assertThat(reader.nextBatch()).isNull();
    }

    @Test
    void controlTypeOfAnOrdinaryRecordIsRejected() {
        MemoryRecords m = MemoryRecords.withRecords(V2, 0L, Compression.NONE, new SimpleRecord(utf8("ab"), utf8("v")));
        RecordsReader reader = new RecordsReader().reset(Unpooled.wrappedBuffer(Oracle.bytes(m)));
        reader.nextBatch();
        RecordCursor cursor = reader.records();
        assertThat(cursor.next()).isTrue();
        assertThatThrownBy(cursor::controlType).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("at least 4");
    }

    @Test
    void deleteHorizonBatch() {
        MemoryRecordsBuilder b = new MemoryRecordsBuilder(new ByteBufferOutputStream(256), V2, Compression.NONE,
                TimestampType.CREATE_TIME, 50L, -1L, -1L, (short) -1, -1, false, false, 0, Integer.MAX_VALUE,
                1_800_000_000_000L);
        b.appendWithOffset(50L, 1_700_000_000_000L, utf8("k"), utf8("v"));
        b.appendWithOffset(53L, 1_700_000_000_100L, utf8("k2"), (byte[]) null);
        byte[] bytes = Oracle.bytes(b.build());
        Oracle.assertSameAsKafka(bytes);
        RecordsReader reader = new RecordsReader().reset(Unpooled.wrappedBuffer(bytes));
        RecordBatch batch = reader.nextBatch();
        assertThat(batch.hasDeleteHorizon()).isTrue();
        assertThat(batch.deleteHorizonMs()).isEqualTo(1_800_000_000_000L);
    }

    /**
     * Batches that expand far beyond the reader's first guess (zstd frames from Kafka producers do not declare
     * their size, so its buffer grows and the batch is decompressed again), read after a small batch, and read
     * from each buffer layout.
     */
    @ParameterizedTest
    @EnumSource(io.kflux.protocol.record.Compression.class)
    void highlyCompressibleBatchesDecodeWhole(io.kflux.protocol.record.Compression c) {
        MemoryRecordsBuilder b = builder(c, TimestampType.CREATE_TIME, 0L, -1L, -1L, (short) -1, -1, false, 0);
        for (int i = 0; i < 20; i++) {
            byte[] value = new byte[50_000 + i];
            Arrays.fill(value, (byte) ('a' + i));
            b.append(1_700_000_000_000L + i, utf8("k" + i), value);
        }
        byte[] bytes = Oracle.bytes(mixedBatch(c, 100L), b.build());
        for (Oracle.Layout layout : Oracle.Layout.values()) {
            RecordsReader reader = new RecordsReader().reset(Oracle.wrap(bytes, layout));
            assertThat(Oracle.offsets(reader.nextBatch() == null ? null : reader.records())).hasSize(6);
            assertThat(reader.nextBatch().recordCount()).isEqualTo(20);
            RecordCursor cursor = reader.records();
            for (int i = 0; i < 20; i++) {
                assertThat(cursor.next()).isTrue();
                byte[] expected = new byte[50_000 + i];
                Arrays.fill(expected, (byte) ('a' + i));
                assertThat(cursor.valueBytes()).as("%s %s record %d", c, layout, i).isEqualTo(expected);
            }
            assertThat(cursor.next()).isFalse();
            assertThat(reader.nextBatch()).isNull();
        }
    }

    @Test
    void skipsRecordsBelowTheFetchOffset() {
        MemoryRecordsBuilder b = builder(io.kflux.protocol.record.Compression.ZSTD, TimestampType.CREATE_TIME, 1000L,
                -1L, -1L, (short) -1, -1, false, 0);
        for (long o : new long[] {1000, 1001, 1004, 1005, 1009}) { // gaps as after compaction
            b.appendWithOffset(o, o, utf8("k" + o), utf8("v" + o));
        }
        RecordsReader reader = new RecordsReader().reset(Unpooled.wrappedBuffer(Oracle.bytes(b.build())));
        RecordBatch batch = reader.nextBatch();
        assertThat(batch.nextOffset()).isEqualTo(1010L);
        RecordCursor cursor = reader.records();
        assertThat(cursor.nextAtOrAfter(1002L)).isTrue();
        assertThat(cursor.offset()).isEqualTo(1004L);
        assertThat(cursor.valueBytes()).isEqualTo(utf8("v1004"));
        assertThat(cursor.remaining()).isEqualTo(2);
        assertThat(cursor.nextAtOrAfter(1009L)).isTrue();
        assertThat(cursor.offset()).isEqualTo(1009L);
        assertThat(cursor.nextAtOrAfter(0L)).isFalse();

        // records() again rewinds without decoding again
        cursor = reader.records();
        assertThat(cursor.nextAtOrAfter(2000L)).isFalse();
        cursor = reader.records();
        assertThat(Oracle.offsets(cursor)).containsExactly(1000L, 1001L, 1004L, 1005L, 1009L);
        assertThatThrownBy(cursor::offset).isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest
    @EnumSource(io.kflux.protocol.record.Compression.class)
    void truncatedTrailingBatchAtEveryCutPoint(io.kflux.protocol.record.Compression c) {
        byte[] first = Oracle.bytes(mixedBatch(c, 0L));
        byte[] bytes = Oracle.bytes(mixedBatch(c, 0L), mixedBatch(c, 6L));
        for (int cut = 0; cut <= bytes.length; cut++) {
            ByteBuf buf = Unpooled.wrappedBuffer(Arrays.copyOf(bytes, cut));
            RecordsReader reader = new RecordsReader().reset(buf);
            int complete = 0;
            RecordBatch b;
            while ((b = reader.nextBatch()) != null) {
                complete++;
                assertThat(Oracle.offsets(reader.records())).hasSize(6);
            }
            int expectedBatches = cut == bytes.length ? 2 : cut >= first.length ? 1 : 0;
            int expectedBytes = expectedBatches == 2 ? bytes.length : expectedBatches == 1 ? first.length : 0;
            assertThat(complete).as("cut %d", cut).isEqualTo(expectedBatches);
            assertThat(reader.completeBytes()).as("cut %d", cut).isEqualTo(expectedBytes);
            assertThat(reader.hasPartialBatch()).as("cut %d", cut).isEqualTo(cut != expectedBytes);
            assertThat(reader.remainingBytes()).isEqualTo(cut - expectedBytes);
        }
    }

    static MemoryRecords largeBatch(io.kflux.protocol.record.Compression c, int count, int valueSize, long seed) {
        java.util.Random random = new java.util.Random(seed);
        MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(1 << 20), V2, kafka(c),
                TimestampType.CREATE_TIME, 0L, -1L, -1L, (short) -1, -1, false, 0);
        byte[] value = new byte[valueSize];
        for (int i = 0; i < count; i++) {
            // half random (incompressible), half repetitive: exercises both codec paths
            if (i % 2 == 0) {
                random.nextBytes(value);
            } else {
                Arrays.fill(value, (byte) i);
            }
            b.append(1_700_000_000_000L + i, utf8("key-" + i), value.clone(),
                    i % 10 == 0 ? new Header[] {new RecordHeader("i", utf8(Integer.toString(i)))} : Record_EMPTY);
        }
        return b.build();
    }

    private static final Header[] Record_EMPTY = new Header[0];

    @ParameterizedTest
    @EnumSource(io.kflux.protocol.record.Compression.class)
    void largeBatchOfTenThousandOneKilobyteRecords(io.kflux.protocol.record.Compression c) {
        byte[] bytes = Oracle.bytes(largeBatch(c, 10_000, 1024, 42));
        assertThat(Oracle.assertSameAsKafka(bytes, new RecordsReader(), Oracle.Layout.HEAP)).isEqualTo(10_000);
        assertThat(Oracle.assertSameAsKafka(bytes, new RecordsReader(), Oracle.Layout.DIRECT)).isEqualTo(10_000);
    }

    @Test
    void compressionAndTimestampTypeIds() {
        for (io.kflux.protocol.record.Compression c : io.kflux.protocol.record.Compression.values()) {
            assertThat(c.id()).isEqualTo(kafka(c).type().id);
            assertThat(io.kflux.protocol.record.Compression.forId(c.id())).isSameAs(c);
        }
        assertThatThrownBy(() -> io.kflux.protocol.record.Compression.forId(5))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(ControlRecordType.forId(0)).isEqualTo(ControlRecordType.ABORT);
        assertThat(ControlRecordType.forId(1)).isEqualTo(ControlRecordType.COMMIT);
        assertThat(ControlRecordType.forId(2)).isEqualTo(ControlRecordType.UNKNOWN);
    }
}
