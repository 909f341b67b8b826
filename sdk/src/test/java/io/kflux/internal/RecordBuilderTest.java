package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConsumerRecord;
import io.kflux.DeserializationErrorHandler;
import io.kflux.Deserializers;
import io.kflux.Header;
import io.kflux.RecordDeserializationException;
import io.kflux.TopicPartition;
import io.kflux.protocol.record.RecordCursor;
import io.kflux.protocol.record.RecordsReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** The public records built from a batch: headers as written, independent of the batch's memory; deserializer failures. */
class RecordBuilderTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    /** Headers as the official producer writes them: repeated and unicode keys, null and empty values. */
    private static org.apache.kafka.common.header.Header[] wireHeaders(int record) {
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) (i + record);
        }
        return new org.apache.kafka.common.header.Header[] {
            new RecordHeader("trace-id", utf8("trace-" + record)),
            new RecordHeader("null-value", (byte[]) null),
            new RecordHeader("empty", new byte[0]),
            new RecordHeader("trace-id", utf8("again-" + record)),
            new RecordHeader("schlüssel-\u263A", binary),
        };
    }

    /**
     * Every header a user reads has the key and value bytes the producer wrote, in wire order, also after the batch's
     * memory was overwritten (uncompressed batches are read in place) and released, and after the decompression
     * array was reused for the next batch (lz4).
     */
    @Test
    void headersHoldTheWrittenBytesAfterTheBatchMemoryIsGone() {
        for (Compression compression : List.of(Compression.NONE, Compression.lz4().build())) {
            byte[] wire = batches(compression);
            ByteBuf buf = Unpooled.wrappedBuffer(wire);
            RecordBuilder<String, String> builder = new RecordBuilder<>(Deserializers.string(), Deserializers.string(),
                    DeserializationErrorHandler.fail(), null);
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            RecordsReader reader = new RecordsReader(true).reset(buf);
            for (io.kflux.protocol.record.RecordBatch batch; (batch = reader.nextBatch()) != null; ) {
                RecordCursor cursor = reader.records();
                while (cursor.next()) {
                    records.add(builder.build(TP, cursor, io.kflux.TimestampType.CREATE_TIME,
                            batch.partitionLeaderEpoch()));
                }
            }
            Arrays.fill(wire, (byte) 0x5A);
            buf.release();

            assertThat(records).as("%s", compression).hasSize(4);
            for (ConsumerRecord<String, String> r : records) {
                int n = (int) r.offset();
                List<Header> expected = new ArrayList<>();
                for (org.apache.kafka.common.header.Header h : wireHeaders(n)) {
                    expected.add(new Header(h.key(), h.value()));
                }
                assertThat(r.headers().toList()).as("%s record %d", compression, n).containsExactlyElementsOf(expected);
                List<Header> iterated = new ArrayList<>();
                r.headers().forEach(iterated::add);
                assertThat(iterated).containsExactlyElementsOf(expected);
                assertThat(r.headers().lastHeader("trace-id").valueAsString()).isEqualTo("again-" + n);
                assertThat(r.headers().headers("trace-id")).extracting(Header::valueAsString)
                        .containsExactly("trace-" + n, "again-" + n);
                assertThat(r.headers().lastHeader("null-value").value()).isNull();
                assertThat(r.headers().lastHeader("empty").value()).isEmpty();
                assertThat(r.value()).isEqualTo("v" + n);
            }
            assertThat(records.get(0).headers().lastHeader("trace-id").value())
                    .as("each record its own value arrays")
                    .isNotSameAs(records.get(1).headers().lastHeader("trace-id").value());
        }
    }

    /**
     * Headers are decoded when first read, on the reading thread: threads reading one record's headers at once all see
     * the same whole headers (the same objects: one decoding is kept), equal to headers built from {@link Header}s; the
     * count needs no decoding.
     */
    @Test
    void headersReadFromManyThreadsAtOnceAreWhole() throws Exception {
        byte[] wire = batches(Compression.NONE);
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        RecordBuilder<String, String> builder = new RecordBuilder<>(Deserializers.string(), Deserializers.string(),
                DeserializationErrorHandler.fail(), null);
        RecordsReader reader = new RecordsReader(true).reset(Unpooled.wrappedBuffer(wire));
        for (io.kflux.protocol.record.RecordBatch batch; (batch = reader.nextBatch()) != null; ) {
            RecordCursor cursor = reader.records();
            while (cursor.next()) {
                records.add(builder.build(TP, cursor, io.kflux.TimestampType.CREATE_TIME, -1));
            }
        }
        for (ConsumerRecord<String, String> r : records) {
            io.kflux.Headers expected = io.kflux.Headers.of(java.util.Arrays.stream(wireHeaders((int) r.offset()))
                    .map(h -> new Header(h.key(), h.value())).toList());
            assertThat(r.headers().size()).isEqualTo(5);
            assertThat(r.headers().isEmpty()).isFalse();
            int threads = 8;
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
            try {
                List<java.util.concurrent.Future<List<Header>>> reads = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    reads.add(pool.submit(() -> {
                        start.await();
                        return r.headers().toList();
                    }));
                }
                List<Header> first = reads.get(0).get();
                assertThat(first).containsExactlyElementsOf(expected.toList());
                for (java.util.concurrent.Future<List<Header>> read : reads) {
                    List<Header> seen = read.get();
                    for (int i = 0; i < first.size(); i++) {
                        assertThat(seen.get(i)).as("one decoding kept: every thread sees the same objects")
                                .isSameAs(first.get(i));
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(r.headers()).isEqualTo(expected).hasSameHashCodeAs(expected);
            assertThat(expected).isEqualTo(r.headers());
            assertThat(r.headers().lastHeader("trace-id").value()).as("decoded once, then kept")
                    .isSameAs(r.headers().lastHeader("trace-id").value());
        }
    }

    /** A record without headers gets the shared empty instance (no allocation). */
    @Test
    void aRecordWithoutHeadersHasEmptyHeaders() {
        MemoryRecordsBuilder b = builder(Compression.NONE, 0L);
        b.append(1_000L, utf8("k"), utf8("v"));
        RecordsReader reader = new RecordsReader(true).reset(Unpooled.wrappedBuffer(bytes(b.build())));
        reader.nextBatch();
        RecordCursor cursor = reader.records();
        assertThat(cursor.next()).isTrue();
        ConsumerRecord<String, String> r = new RecordBuilder<>(Deserializers.string(), Deserializers.string(),
                DeserializationErrorHandler.fail(), null).build(TP, cursor, io.kflux.TimestampType.CREATE_TIME, 3);
        assertThat(r.headers()).isSameAs(io.kflux.Headers.empty());
        assertThat(r.leaderEpoch()).contains(3);
        assertThat(r.key()).isEqualTo("k");
    }

    /**
     * A value deserializer that throws: the handler sees the record as written (copies of its key, value, headers);
     * SKIP makes build return null, anything else throws the error.
     */
    @Test
    void aDeserializerFailureGoesToTheHandler() {
        MemoryRecordsBuilder b = builder(Compression.NONE, 40L);
        b.append(1_000L, utf8("k"), utf8("bad"), new org.apache.kafka.common.header.Header[] {
            new RecordHeader("h", utf8("x"))});
        byte[] wire = bytes(b.build());
        io.kflux.Deserializer<String> failing = (topic, headers, data) -> {
            throw new IllegalArgumentException("not a value");
        };
        List<RecordDeserializationException> seen = new ArrayList<>();

        RecordCursor cursor = cursorAtFirst(wire);
        ConsumerRecord<String, String> skipped = new RecordBuilder<>(Deserializers.string(), failing,
                e -> {
                    seen.add(e);
                    return DeserializationErrorHandler.Decision.SKIP;
                }, null).build(TP, cursor, io.kflux.TimestampType.CREATE_TIME, -1);
        Arrays.fill(wire, (byte) 0);

        assertThat(skipped).isNull();
        assertThat(seen).hasSize(1);
        RecordDeserializationException e = seen.get(0);
        assertThat(e.offset()).isEqualTo(40L);
        assertThat(e.origin()).isEqualTo(RecordDeserializationException.Origin.VALUE);
        assertThat(StandardCharsets.UTF_8.decode(e.valueBuffer()).toString()).isEqualTo("bad");
        assertThat(StandardCharsets.UTF_8.decode(e.keyBuffer()).toString()).isEqualTo("k");
        assertThat(e.headers().lastHeader("h").valueAsString()).isEqualTo("x");

        RecordCursor failAt = cursorAtFirst(bytes(b.build()));
        RecordBuilder<String, String> failingBuilder = new RecordBuilder<>(Deserializers.string(), failing,
                DeserializationErrorHandler.fail(), null);
        assertThatThrownBy(() -> failingBuilder.build(TP, failAt, io.kflux.TimestampType.CREATE_TIME, -1))
                .isInstanceOf(RecordDeserializationException.class)
                .hasCauseInstanceOf(IllegalArgumentException.class);
    }

    /** A cursor at the first record of {@code wire}. */
    private static RecordCursor cursorAtFirst(byte[] wire) {
        RecordsReader reader = new RecordsReader(true).reset(Unpooled.wrappedBuffer(wire));
        assertThat(reader.nextBatch()).isNotNull();
        RecordCursor cursor = reader.records();
        assertThat(cursor.next()).isTrue();
        return cursor;
    }

    /** Two batches of two records each (offsets 0-3), every record with {@link #wireHeaders}. */
    private static byte[] batches(Compression compression) {
        MemoryRecordsBuilder first = builder(compression, 0L);
        MemoryRecordsBuilder second = builder(compression, 2L);
        for (int i = 0; i < 2; i++) {
            first.append(1_000L + i, utf8("k" + i), utf8("v" + i), wireHeaders(i));
            second.append(1_002L + i, utf8("k" + (2 + i)), utf8("v" + (2 + i)), wireHeaders(2 + i));
        }
        byte[] a = bytes(first.build());
        byte[] b = bytes(second.build());
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static MemoryRecordsBuilder builder(Compression compression, long baseOffset) {
        return MemoryRecords.builder(ByteBuffer.allocate(4096), RecordBatch.MAGIC_VALUE_V2, compression,
                TimestampType.CREATE_TIME, baseOffset, -1L, -1L, (short) -1, -1, false, 5);
    }

    private static byte[] bytes(MemoryRecords records) {
        ByteBuffer b = records.buffer().duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /**
     * Records read in place from one array get their key and value through one view each, re-pointed from record to
     * record: no ByteBuffer per record. Each view shows exactly the record's bytes; a new array (the next batch's
     * decompression) is wrapped anew.
     */
    @Test
    void deserializersSeeOneReusedViewPerArray() {
        for (Compression compression : List.of(Compression.NONE, Compression.lz4().build())) {
            ByteBuf buf = Unpooled.wrappedBuffer(batches(compression));
            List<ByteBuffer> keyViews = new ArrayList<>();
            List<ByteBuffer> valueViews = new ArrayList<>();
            List<String> seen = new ArrayList<>();
            RecordBuilder<String, String> builder = new RecordBuilder<>(
                    (topic, headers, data) -> {
                        keyViews.add(data);
                        return Deserializers.string().deserialize(topic, headers, data);
                    },
                    (topic, headers, data) -> {
                        valueViews.add(data);
                        return Deserializers.string().deserialize(topic, headers, data);
                    },
                    DeserializationErrorHandler.fail(), null);
            RecordsReader reader = new RecordsReader(true).reset(buf);
            List<byte[]> arrays = new ArrayList<>();
            for (io.kflux.protocol.record.RecordBatch batch; (batch = reader.nextBatch()) != null; ) {
                RecordCursor cursor = reader.records();
                while (cursor.next()) {
                    arrays.add(cursor.valueArray());
                    ConsumerRecord<String, String> r = builder.build(TP, cursor, io.kflux.TimestampType.CREATE_TIME,
                            batch.partitionLeaderEpoch());
                    seen.add(r.key() + "=" + r.value());
                }
            }
            buf.release();

            assertThat(seen).as("%s", compression).containsExactly("k0=v0", "k1=v1", "k2=v2", "k3=v3");
            for (int i = 1; i < arrays.size(); i++) {
                boolean sameArray = arrays.get(i) == arrays.get(i - 1);
                assertThat(keyViews.get(i) == keyViews.get(i - 1)).as("%s key view %d", compression, i)
                        .isEqualTo(sameArray);
                assertThat(valueViews.get(i) == valueViews.get(i - 1)).as("%s value view %d", compression, i)
                        .isEqualTo(sameArray);
            }
            assertThat(keyViews.get(1)).as("%s: key and value have views of their own", compression)
                    .isNotSameAs(valueViews.get(1));
        }
    }

    /**
     * The built-in byte[] and String deserializers run straight from the batch's array: each key and value equals
     * what the deserializer itself returns for a view of the same bytes (empty, null, binary, multi-byte and malformed
     * UTF-8, which is replaced as the deserializer replaces it), byte[] results are copies that outlive the batch's
     * memory, and every other deserializer still gets a view.
     */
    @Test
    void builtInDeserializersReadTheArrayDirectlyWithTheirOwnResults() {
        byte[][] values = {
            new byte[0], null, utf8("plain"), utf8("gr\u00fc\u00df \u263A \uD83D\uDE00"),
            {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, 0x41}, {0, 1, 2, (byte) 0x80, (byte) 0xFE},
        };
        MemoryRecordsBuilder wire = builder(Compression.NONE, 0L);
        for (int i = 0; i < values.length; i++) {
            wire.append(1_000L + i, values[values.length - 1 - i], values[i]);
        }
        byte[] bytes = bytes(wire.build());
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        RecordBuilder<byte[], String> direct = new RecordBuilder<>(Deserializers.byteArray(), Deserializers.string(),
                DeserializationErrorHandler.fail(), null);
        List<byte[]> keys = new ArrayList<>();
        List<String> strings = new ArrayList<>();
        RecordsReader reader = new RecordsReader(true).reset(buf);
        for (io.kflux.protocol.record.RecordBatch batch; (batch = reader.nextBatch()) != null; ) {
            RecordCursor cursor = reader.records();
            while (cursor.next()) {
                ConsumerRecord<byte[], String> r = direct.build(TP, cursor, io.kflux.TimestampType.CREATE_TIME, 0);
                keys.add(r.key());
                strings.add(r.value());
            }
        }
        Arrays.fill(bytes, (byte) 0x5A);
        buf.release();

        assertThat(keys).hasSize(values.length);
        for (int i = 0; i < values.length; i++) {
            byte[] key = values[values.length - 1 - i];
            assertThat(keys.get(i)).as("key %d", i)
                    .isEqualTo(Deserializers.byteArray().deserialize("t", io.kflux.Headers.empty(), view(key)));
            assertThat(strings.get(i)).as("value %d", i)
                    .isEqualTo(Deserializers.string().deserialize("t", io.kflux.Headers.empty(), view(values[i])));
        }
        assertThat(strings.get(4)).as("malformed UTF-8 replaced").contains("\uFFFD");
        assertThat(RecordBuilder.direct(Deserializers.byteBuffer())).isNull();
        assertThat(RecordBuilder.direct(Deserializers.string(StandardCharsets.UTF_16))).isNull();
        assertThat(RecordBuilder.direct((topic, headers, data) -> "user's own")).isNull();
    }

    /** {@code bytes} in the middle of a larger array, as a batch's record is: a view as the emitter hands one. */
    private static ByteBuffer view(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        byte[] around = new byte[bytes.length + 6];
        System.arraycopy(bytes, 0, around, 3, bytes.length);
        return ByteBuffer.wrap(around, 3, bytes.length);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
