package io.kflux.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Next fetch offset and last fetched epoch from batch headers, checked against batches the official client writes. */
class BatchScanTest {

    private static ByteBuf batches() {
        ByteBuffer out = ByteBuffer.allocate(4096);
        FakeFetchIo.append(out, 10, 3, 5);  // 10..14, epoch 3
        FakeFetchIo.append(out, 15, 4, 2);  // 15..16, epoch 4
        out.flip();
        return Unpooled.wrappedBuffer(out);
    }

    @Test
    void theNextOffsetAndTheLastBatchsEpoch() {
        BatchScan.Result r = BatchScan.scan(batches(), 10, -1);
        assertThat(r.nextOffset()).isEqualTo(17);
        assertThat(r.lastEpoch()).isEqualTo(4);
        assertThat(r.records()).isEqualTo(7); // the headers' record counts, for records-per-request-avg
        assertThat(BatchScan.nextOffset(batches(), 10)).isEqualTo(17);
    }

    @Test
    void aTrailingPartialBatchIsNotCounted() {
        ByteBuf all = batches();
        ByteBuf cut = all.slice(0, all.readableBytes() - 3);
        BatchScan.Result r = BatchScan.scan(cut, 10, -1);
        assertThat(r.nextOffset()).isEqualTo(15);
        assertThat(r.lastEpoch()).isEqualTo(3);
        assertThat(r.records()).isEqualTo(5);
    }

    @Test
    void withoutACompleteBatchTheFetchOffsetAndEpochStay() {
        ByteBuf cut = batches().slice(0, 30);
        BatchScan.Result r = BatchScan.scan(cut, 10, 7);
        assertThat(r.nextOffset()).isEqualTo(10);
        assertThat(r.lastEpoch()).isEqualTo(7);
        assertThat(r.records()).isZero();
    }
}
