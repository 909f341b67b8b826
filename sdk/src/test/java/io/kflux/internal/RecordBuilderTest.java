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

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
