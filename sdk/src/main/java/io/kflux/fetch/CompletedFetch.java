package io.kflux.fetch;

import io.kflux.protocol.message.FetchResponse.AbortedTransaction;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * The records of one partition from one Fetch response, waiting to be emitted. It holds a
 * retained slice of the response frame; whoever finishes with it calls {@link #release()}
 * exactly once. {@code seekEpoch} is the partition's seek epoch when the fetch was sent: data
 * fetched before a seek, reset or revocation is dropped instead of emitted.
 *
 * @param partition       the partition's state
 * @param seekEpoch       the partition's seek epoch at fetch time
 * @param fetchOffset     the offset the fetch asked for (batches may start before it)
 * @param nextFetchOffset the offset after the last complete batch (the next fetch's offset)
 * @param records         record batches, possibly ending with a partial one
 * @param sizeInBytes     bytes accounted against the consumer's buffer bound
 * @param highWatermark   the partition's high watermark at fetch time
 * @param abortedTransactions for read_committed: transactions aborted within the returned range
 *                        (producer id and first offset), whose data batches must not be emitted; empty otherwise
 */
public record CompletedFetch(PartitionState partition, int seekEpoch, long fetchOffset, long nextFetchOffset,
                             ByteBuf records, int sizeInBytes, long highWatermark,
                             List<AbortedTransaction> abortedTransactions) {

    public boolean isStale() {
        return partition.isRevoked() || partition.seekEpoch() != seekEpoch;
    }

    public void release() {
        records.release();
    }
}
