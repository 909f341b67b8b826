package io.kflux.protocol.record;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;

/** Compares what {@link RecordsReader} decodes with what kafka-clients' own reader yields. */
final class Oracle {
    private Oracle() {
    }

    /** How the bytes are presented to the reader: each hits a different CRC/copy path. */
    enum Layout { HEAP, DIRECT, COMPOSITE, OFFSET_HEAP }

    static ByteBuf wrap(byte[] bytes, Layout layout) {
        switch (layout) {
            case HEAP:
                return Unpooled.wrappedBuffer(bytes);
            case DIRECT: {
                ByteBuf b = Unpooled.directBuffer(bytes.length);
                b.writeBytes(bytes);
                return b;
            }
            case COMPOSITE: {
                CompositeByteBuf c = Unpooled.compositeBuffer();
                int third = bytes.length / 3;
                c.addComponent(true, Unpooled.wrappedBuffer(Arrays.copyOfRange(bytes, 0, third)));
                ByteBuf mid = Unpooled.directBuffer();
                mid.writeBytes(bytes, third, third);
                c.addComponent(true, mid);
                c.addComponent(true, Unpooled.wrappedBuffer(Arrays.copyOfRange(bytes, 2 * third, bytes.length)));
                return c;
            }
            case OFFSET_HEAP: {
                // non-zero arrayOffset and readerIndex: positions must be relative to both
                byte[] padded = new byte[bytes.length + 13];
                System.arraycopy(bytes, 0, padded, 7, bytes.length);
                ByteBuf b = Unpooled.wrappedBuffer(padded).slice(3, bytes.length + 10);
                b.readerIndex(4);
                b.writerIndex(4 + bytes.length);
                return b;
            }
            default:
                throw new AssertionError(layout);
        }
    }

    static byte[] bytes(MemoryRecords... records) {
        int size = 0;
        for (MemoryRecords r : records) {
            size += r.sizeInBytes();
        }
        ByteBuffer all = ByteBuffer.allocate(size);
        for (MemoryRecords r : records) {
            all.put(r.buffer().duplicate());
        }
        return all.array();
    }

    /** Recomputes the CRC32C of the batch starting at {@code at}, after a deliberate edit. */
    static void fixCrc(byte[] bytes, int at) {
        int length = ByteBuffer.wrap(bytes).getInt(at + 8);
        CRC32C crc = new CRC32C();
        crc.update(bytes, at + 21, length + 12 - 21);
        ByteBuffer.wrap(bytes).putInt(at + 17, (int) crc.getValue());
    }

    /** Decodes with both readers, over every buffer layout, and asserts every field is equal. */
    static int assertSameAsKafka(byte[] bytes) {
        int count = 0;
        for (Layout layout : Layout.values()) {
            count = assertSameAsKafka(bytes, new RecordsReader(), layout);
        }
        return count;
    }

    /** @return number of records compared */
    static int assertSameAsKafka(byte[] bytes, RecordsReader reader, Layout layout) {
        ByteBuf buf = wrap(bytes, layout);
        int startReader = buf.readerIndex();
        int startWriter = buf.writerIndex();
        reader.reset(buf);
        int records = 0;
        int batches = 0;
        int expectedBytes = 0;
        for (MutableRecordBatch kb : MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches()) {
            DefaultRecordBatch k = (DefaultRecordBatch) kb;
            RecordBatch b = reader.nextBatch();
            assertThat(b).as("batch %d", batches).isNotNull();
            assertThat(b.position()).isEqualTo(expectedBytes);
            assertThat(b.baseOffset()).isEqualTo(k.baseOffset());
            assertThat(b.lastOffset()).isEqualTo(k.lastOffset());
            assertThat(b.nextOffset()).isEqualTo(k.nextOffset());
            assertThat(b.sizeInBytes()).isEqualTo(k.sizeInBytes());
            assertThat(b.partitionLeaderEpoch()).isEqualTo(k.partitionLeaderEpoch());
            assertThat(b.magic()).isEqualTo(k.magic());
            assertThat(b.crc()).isEqualTo(k.checksum());
            assertThat(b.compression().id()).isEqualTo(k.compressionType().id);
            assertThat(b.timestampType().name()).isEqualTo(k.timestampType().name());
            assertThat(b.isTransactional()).isEqualTo(k.isTransactional());
            assertThat(b.isControl()).isEqualTo(k.isControlBatch());
            assertThat(b.hasDeleteHorizon()).isEqualTo(k.deleteHorizonMs().isPresent());
            assertThat(b.deleteHorizonMs()).isEqualTo(k.deleteHorizonMs().orElse(-1L));
            assertThat(b.baseTimestamp()).isEqualTo(k.baseTimestamp());
            assertThat(b.maxTimestamp()).isEqualTo(k.maxTimestamp());
            assertThat(b.producerId()).isEqualTo(k.producerId());
            assertThat(b.producerEpoch()).isEqualTo(k.producerEpoch());
            assertThat(b.baseSequence()).isEqualTo(k.baseSequence());
            assertThat(b.recordCount()).isEqualTo(k.countOrNull());

            RecordCursor c = reader.records();
            assertThat(c.batch()).isSameAs(b);
            int i = 0;
            for (Record r : k) {
                assertThat(c.next()).as("record %d of batch %d", i, batches).isTrue();
                assertThat(c.offset()).isEqualTo(r.offset());
                assertThat(c.timestamp()).isEqualTo(r.timestamp());
                assertThat(c.sizeInBytes()).isEqualTo(r.sizeInBytes());
                assertThat(c.keyLength()).isEqualTo(r.hasKey() ? r.keySize() : -1);
                assertThat(c.keyBytes()).isEqualTo(r.hasKey() ? toArray(r.key()) : null);
                if (r.hasKey()) {
                    assertThat(Arrays.copyOfRange(c.keyArray(), c.keyOffset(), c.keyOffset() + c.keyLength()))
                            .isEqualTo(toArray(r.key()));
                }
                assertThat(c.valueLength()).isEqualTo(r.hasValue() ? r.valueSize() : -1);
                assertThat(c.valueBytes()).isEqualTo(r.hasValue() ? toArray(r.value()) : null);
                if (r.hasValue()) {
                    assertThat(Arrays.copyOfRange(c.valueArray(), c.valueOffset(), c.valueOffset() + c.valueLength()))
                            .isEqualTo(toArray(r.value()));
                }
                Header[] kh = r.headers();
                assertThat(c.headerCount()).isEqualTo(kh.length);
                List<RecordHeader> hs = c.headers();
                assertThat(hs).hasSize(kh.length);
                for (int h = 0; h < kh.length; h++) {
                    assertThat(hs.get(h).key()).isEqualTo(kh[h].key());
                    assertThat(hs.get(h).value()).isEqualTo(kh[h].value());
                }
                // the copy a consumer's record keeps, read later on its own
                byte[] section = c.copyHeaderSection();
                assertThat(HeaderSection.count(section)).isEqualTo(kh.length);
                List<RecordHeader> later = new java.util.ArrayList<>();
                HeaderSection.forEach(section, (index, key, value) -> later.add(new RecordHeader(key, value)));
                assertThat(later).hasSize(kh.length);
                for (int h = 0; h < kh.length; h++) {
                    assertThat(later.get(h).key()).isEqualTo(kh[h].key());
                    assertThat(later.get(h).value()).isEqualTo(kh[h].value());
                }
                if (k.isControlBatch()) {
                    org.apache.kafka.common.record.ControlRecordType kt =
                            org.apache.kafka.common.record.ControlRecordType.parse(r.key());
                    assertThat(c.controlTypeId()).isEqualTo(kt.type());
                    if (kt == org.apache.kafka.common.record.ControlRecordType.ABORT
                            || kt == org.apache.kafka.common.record.ControlRecordType.COMMIT) {
                        assertThat(c.controlType().name()).isEqualTo(kt.name());
                    } else {
                        assertThat(c.controlType()).isEqualTo(ControlRecordType.UNKNOWN);
                    }
                }
                i++;
            }
            assertThat(c.next()).isFalse();
            assertThat(c.next()).isFalse();
            records += i;
            batches++;
            expectedBytes += k.sizeInBytes();
            assertThat(reader.completeBytes()).isEqualTo(expectedBytes);
        }
        assertThat(reader.nextBatch()).isNull();
        assertThat(reader.hasPartialBatch()).isFalse();
        assertThat(reader.completeBytes()).isEqualTo(bytes.length);
        assertThat(reader.remainingBytes()).isZero();
        assertThat(buf.readerIndex()).as("reader must not move the buffer indices").isEqualTo(startReader);
        assertThat(buf.writerIndex()).isEqualTo(startWriter);
        buf.release();
        return records;
    }

    static byte[] toArray(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    static List<Long> offsets(RecordCursor c) {
        List<Long> out = new ArrayList<>();
        while (c.next()) {
            out.add(c.offset());
        }
        return out;
    }
}
