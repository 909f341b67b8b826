package io.kflux.protocol.record;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kflux.protocol.FuzzChecks;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Coverage-guided fuzzing of the record batch reader: {@link RecordsReader} and {@link RecordCursor} over any bytes,
 * walked as the emitter walks them (control batches read for their marker type, data batches record by record with
 * key, value and headers copied out), in every codec (none, gzip, snappy, lz4, zstd: the codec id is part of the
 * fuzzed batch attributes).
 *
 * <p>Input layout: byte 0 holds flags (bit 0: verify CRC32C, off by default so the fuzzer gets past the checksum
 * into the records; bit 1: read from a direct buffer, the network-buffer path), the rest is the partition's records
 * bytes. Allowed outcomes: batches and records, or {@link CorruptRecordBatchException} /
 * {@link UnsupportedRecordFormatException} holding nothing untyped. Allocations stay within the frame's bound plus
 * what the data really decompresses to (a header claiming more proves nothing).
 *
 * <p>Without {@code JAZZER_FUZZ} this replays the corpus in {@code src/test/resources/io/kflux/protocol/record/
 * RecordsFuzzTestInputs/records}; with it, it fuzzes (see README, "Fuzzing").
 */
class RecordsFuzzTest {
    private final RecordsReader crcReader = new RecordsReader(true);
    private final RecordsReader reader = new RecordsReader(false);

    @FuzzTest(maxDuration = "2m")
    void records(byte[] input) {
        if (input.length < 1) {
            return;
        }
        RecordsReader r = (input[0] & 1) != 0 ? crcReader : reader;
        ByteBuf buf = (input[0] & 2) != 0 ? Unpooled.directBuffer(input.length) : Unpooled.buffer(input.length);
        buf.writeBytes(input, 1, input.length - 1);
        long[] decoded = {0};
        try {
            FuzzChecks.withinAllocationBound(input.length, () -> 4 * decoded[0], () -> walk(r, buf, decoded));
        } catch (CorruptRecordBatchException | UnsupportedRecordFormatException e) {
            FuzzChecks.assertTyped(e, CorruptRecordBatchException.class, UnsupportedRecordFormatException.class);
        } finally {
            buf.release();
        }
    }

    /** The emitter's walk; {@code decoded[0]} grows to the largest records section decoded so far. */
    private static Integer walk(RecordsReader r, ByteBuf buf, long[] decoded) {
        r.reset(buf);
        int records = 0;
        for (RecordBatch batch; (batch = r.nextBatch()) != null; ) {
            RecordCursor c = r.records();
            decoded[0] = Math.max(decoded[0], r.decodedLength());
            if (batch.isControl()) {
                if (c.next()) {
                    c.controlType();
                }
                continue;
            }
            while (c.nextAtOrAfter(batch.baseOffset())) {
                c.offset();
                c.timestamp();
                c.keyBytes();
                c.valueBytes();
                c.headers();
                records++;
            }
        }
        r.completeBytes();
        r.hasPartialBatch();
        return records;
    }
}
