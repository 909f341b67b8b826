package io.kflux.protocol.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class RecordsReaderCorruptionTest {
    private static final int RECORD_COUNT_AT = 57;
    private static final int FIRST_RECORD_AT = 61;

    private static byte[] batch(io.kflux.protocol.record.Compression c, long baseOffset) {
        return Oracle.bytes(RecordsReaderTest.mixedBatch(c, baseOffset));
    }

    private static RecordsReader reader(byte[] bytes) {
        return new RecordsReader().reset(Unpooled.wrappedBuffer(bytes));
    }

    /** Decodes everything, touching every accessor; returns the number of records seen. */
    private static int drain(RecordsReader reader) {
        int n = 0;
        while (reader.nextBatch() != null) {
            RecordCursor c = reader.records();
            while (c.next()) {
                c.keyBytes();
                c.valueBytes();
                c.headers();
                c.timestamp();
                n++;
            }
        }
        return n;
    }

    @ParameterizedTest
    @EnumSource(io.kflux.protocol.record.Compression.class)
    void flippedByteFailsTheCrcAfterTheGoodBatchesBeforeIt(io.kflux.protocol.record.Compression c) {
        byte[] good = batch(c, 0L);
        byte[] bytes = Oracle.bytes(RecordsReaderTest.mixedBatch(c, 0L), RecordsReaderTest.mixedBatch(c, 6L));
        bytes[good.length + FIRST_RECORD_AT + 5] ^= 0x01;
        for (Oracle.Layout layout : Oracle.Layout.values()) {
            RecordsReader reader = new RecordsReader().reset(Oracle.wrap(bytes, layout));
            assertThat(reader.nextBatch()).isNotNull();
            assertThat(Oracle.offsets(reader.records())).hasSize(6);
            assertThatThrownBy(reader::nextBatch)
                    .isInstanceOf(CorruptRecordBatchException.class)
                    .hasMessageContaining("CRC32C mismatch")
                    .hasMessageContaining("offset 6")
                    .satisfies(e -> assertThat(((CorruptRecordBatchException) e).baseOffset()).isEqualTo(6L));
            assertThat(reader.completeBytes()).isEqualTo(good.length);
            // the reader stays on the bad batch instead of skipping it
            assertThatThrownBy(reader::nextBatch).isInstanceOf(CorruptRecordBatchException.class);
            assertThatThrownBy(reader::records).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void flippedCrcFieldAndFlippedAttributes() {
        byte[] bytes = batch(io.kflux.protocol.record.Compression.NONE, 3L);
        byte[] crcFlipped = bytes.clone();
        crcFlipped[17] ^= (byte) 0x80;
        assertThatThrownBy(() -> reader(crcFlipped).nextBatch()).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("0x" + Long.toHexString(ByteBuffer.wrap(bytes).getInt(17) & 0xFFFFFFFFL));
        byte[] attrFlipped = bytes.clone();
        attrFlipped[22] ^= 0x20; // would make it a control batch
        assertThatThrownBy(() -> reader(attrFlipped).nextBatch()).isInstanceOf(CorruptRecordBatchException.class);
    }

    @Test
    void crcCheckCanBeTurnedOff() {
        byte[] bytes = batch(io.kflux.protocol.record.Compression.NONE, 0L);
        byte[] flipped = bytes.clone();
        flipped[17] ^= 1;
        RecordsReader reader = new RecordsReader(false).reset(Unpooled.wrappedBuffer(flipped));
        assertThat(drain(reader)).isEqualTo(6);
    }

    @ParameterizedTest
    @ValueSource(bytes = {0, 1})
    void oldMessageFormatsAreRejectedWithATypedError(byte magic) {
        MemoryRecords old = MemoryRecords.withRecords(magic, 40L, Compression.NONE, TimestampType.CREATE_TIME,
                new SimpleRecord(10L, "k".getBytes(), "v".getBytes()));
        byte[] bytes = Oracle.bytes(old);
        assertThatThrownBy(() -> reader(bytes).nextBatch())
                .isInstanceOf(UnsupportedRecordFormatException.class)
                .hasMessageContaining("magic " + magic)
                .satisfies(e -> assertThat(((UnsupportedRecordFormatException) e).magic()).isEqualTo(magic));
        // after good v2 batches, too, and also when only the start of the old batch arrived
        byte[] mixed = Oracle.bytes(RecordsReaderTest.mixedBatch(io.kflux.protocol.record.Compression.NONE, 0L), old);
        RecordsReader reader = reader(Arrays.copyOf(mixed, mixed.length - 1));
        assertThat(reader.nextBatch()).isNotNull();
        assertThatThrownBy(reader::nextBatch).isInstanceOf(UnsupportedRecordFormatException.class);
    }

    @Test
    void magicV1BatchFromTheBuilder() {
        var b = MemoryRecords.builder(ByteBuffer.allocate(256), org.apache.kafka.common.record.RecordBatch.MAGIC_VALUE_V1,
                Compression.gzip().build(), TimestampType.CREATE_TIME, 0L);
        b.append(1L, "k".getBytes(), "v".getBytes());
        byte[] bytes = Oracle.bytes(b.build());
        assertThatThrownBy(() -> reader(bytes).nextBatch()).isInstanceOf(UnsupportedRecordFormatException.class)
                .hasMessageContaining("only magic 2");
    }

    @ParameterizedTest
    @EnumSource(io.kflux.protocol.record.Compression.class)
    void recordCountTooHighOrTooLow(io.kflux.protocol.record.Compression c) {
        byte[] more = batch(c, 0L);
        ByteBuffer.wrap(more).putInt(RECORD_COUNT_AT, 7);
        Oracle.fixCrc(more, 0);
        assertThatThrownBy(() -> drain(reader(more))).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("runs past the end");

        byte[] fewer = batch(c, 0L);
        ByteBuffer.wrap(fewer).putInt(RECORD_COUNT_AT, 5);
        Oracle.fixCrc(fewer, 0);
        assertThatThrownBy(() -> drain(reader(fewer))).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("declares 5 records but");

        byte[] negative = batch(c, 0L);
        ByteBuffer.wrap(negative).putInt(RECORD_COUNT_AT, -1);
        Oracle.fixCrc(negative, 0);
        assertThatThrownBy(() -> reader(negative).nextBatch()).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("record count -1");
    }

    @Test
    void impossibleRecordCountIsRejectedBeforeDecoding() {
        byte[] bytes = batch(io.kflux.protocol.record.Compression.NONE, 0L);
        ByteBuffer.wrap(bytes).putInt(RECORD_COUNT_AT, Integer.MAX_VALUE);
        Oracle.fixCrc(bytes, 0);
        assertThatThrownBy(() -> reader(bytes).nextBatch()).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("impossible");
    }

    @Test
    void unknownCompressionId() {
        byte[] bytes = batch(io.kflux.protocol.record.Compression.NONE, 0L);
        bytes[22] = (byte) ((bytes[22] & ~0x07) | 0x05);
        Oracle.fixCrc(bytes, 0);
        assertThatThrownBy(() -> reader(bytes).nextBatch()).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("unknown compression id 5");
    }

    @ParameterizedTest
    @EnumSource(value = io.kflux.protocol.record.Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void garbageCompressedStream(io.kflux.protocol.record.Compression c) {
        byte[] bytes = batch(c, 0L);
        Random random = new Random(c.ordinal());
        for (int i = FIRST_RECORD_AT; i < bytes.length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        Oracle.fixCrc(bytes, 0);
        RecordsReader reader = reader(bytes);
        assertThat(reader.nextBatch()).isNotNull();
        assertThatThrownBy(() -> {
            RecordCursor cursor = reader.records();
            while (cursor.next()) {
                cursor.headers();
            }
        }).isInstanceOf(CorruptRecordBatchException.class);
    }

    @ParameterizedTest
    @EnumSource(value = io.kflux.protocol.record.Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void truncatedCompressedStream(io.kflux.protocol.record.Compression c) {
        byte[] full = batch(c, 0L);
        // cut the compressed section in half and fix up the batch length and CRC
        int cut = FIRST_RECORD_AT + (full.length - FIRST_RECORD_AT) / 2;
        byte[] bytes = Arrays.copyOf(full, cut);
        ByteBuffer.wrap(bytes).putInt(8, cut - 12);
        Oracle.fixCrc(bytes, 0);
        assertThatThrownBy(() -> drain(reader(bytes))).isInstanceOf(CorruptRecordBatchException.class);
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 0, 48, Integer.MIN_VALUE})
    void impossibleBatchLength(int length) {
        byte[] bytes = batch(io.kflux.protocol.record.Compression.NONE, 0L);
        ByteBuffer.wrap(bytes).putInt(8, length);
        assertThatThrownBy(() -> reader(bytes).nextBatch()).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("batch length " + length);
    }

    @Test
    void recordOffsetsThatDoNotGrowOrPassTheLastOffsetAreCorrupt() {
        byte[] base = batch(io.kflux.protocol.record.Compression.NONE, 0L);
        int second = FIRST_RECORD_AT + 1 + (base[FIRST_RECORD_AT] >> 1); // after a one-byte length varint
        assertThat(base[second + 3]).as("second record's offset delta, zigzag 1").isEqualTo((byte) 2);

        byte[] repeated = base.clone();
        repeated[second + 3] = 0; // the first record's offset again
        Oracle.fixCrc(repeated, 0);
        assertThatThrownBy(() -> drain(reader(repeated))).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("record 1 has offset delta 0 after 0");

        byte[] pastLast = base.clone();
        pastLast[FIRST_RECORD_AT + 3] = 100; // zigzag 50, past lastOffsetDelta
        Oracle.fixCrc(pastLast, 0);
        assertThatThrownBy(() -> drain(reader(pastLast))).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("record 0 has offset delta 50");
    }

    @Test
    void malformedRecordFieldsWithAValidCrc() {
        byte[] base = batch(io.kflux.protocol.record.Compression.NONE, 0L);
        // first record: length varint, attributes, timestampDelta(0), offsetDelta(0), keyLength(2 -> zigzag 4) ...
        assertThat(base[FIRST_RECORD_AT + 4]).isEqualTo((byte) 4);

        byte[] longer = base.clone();
        longer[FIRST_RECORD_AT] += 2;
        Oracle.fixCrc(longer, 0);
        assertThatThrownBy(() -> drain(reader(longer))).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("record 0");

        byte[] negativeKey = base.clone();
        negativeKey[FIRST_RECORD_AT + 4] = 3; // zigzag -2
        Oracle.fixCrc(negativeKey, 0);
        assertThatThrownBy(() -> drain(reader(negativeKey))).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("key length -2");

        byte[] hugeKey = base.clone();
        hugeKey[FIRST_RECORD_AT + 4] = 100; // 50 bytes: past the record end
        Oracle.fixCrc(hugeKey, 0);
        assertThatThrownBy(() -> drain(reader(hugeKey))).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("key length 50");

        byte[] endlessVarint = base.clone();
        Arrays.fill(endlessVarint, FIRST_RECORD_AT + 2, FIRST_RECORD_AT + 9, (byte) 0xFF);
        Oracle.fixCrc(endlessVarint, 0);
        assertThatThrownBy(() -> drain(reader(endlessVarint))).isInstanceOf(CorruptRecordBatchException.class);

        byte[] negativeLength = base.clone();
        negativeLength[FIRST_RECORD_AT] = 1; // zigzag -1
        Oracle.fixCrc(negativeLength, 0);
        assertThatThrownBy(() -> drain(reader(negativeLength))).isInstanceOf(CorruptRecordBatchException.class)
                .hasMessageContaining("length -1");
    }

    /**
     * Random mutations with a recomputed CRC (what a buggy broker or producer could write): the
     * reader must either decode or throw CorruptRecordBatchException, never anything else.
     */
    @ParameterizedTest
    @EnumSource(io.kflux.protocol.record.Compression.class)
    void fuzzedBatchesFailOnlyWithTypedErrors(io.kflux.protocol.record.Compression c) {
        byte[] base = Oracle.bytes(RecordsReaderTest.mixedBatch(c, 0L), RecordsReaderTest.mixedBatch(c, 6L));
        int second = batch(c, 0L).length;
        Random random = new Random(2024 + c.ordinal());
        int decoded = 0;
        int rejected = 0;
        RecordsReader reader = new RecordsReader();
        for (int round = 0; round < 1500; round++) {
            byte[] bytes = base.clone();
            int mutations = 1 + random.nextInt(3);
            for (int m = 0; m < mutations; m++) {
                int at = 21 + random.nextInt(bytes.length - 21);
                if (at >= second && at < second + 21) {
                    at = second + 21 + random.nextInt(bytes.length - second - 21);
                }
                bytes[at] = random.nextInt(3) == 0 ? (byte) (bytes[at] ^ (1 << random.nextInt(8))) : (byte) random.nextInt();
            }
            Oracle.fixCrc(bytes, 0);
            Oracle.fixCrc(bytes, second);
            try {
                drain(reader.reset(Unpooled.wrappedBuffer(bytes)));
                decoded++;
            } catch (CorruptRecordBatchException e) {
                rejected++;
            }
        }
        assertThat(decoded + rejected).isEqualTo(1500);
        assertThat(rejected).isPositive();
    }
}
