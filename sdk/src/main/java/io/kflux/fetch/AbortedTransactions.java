package io.kflux.fetch;

import io.kflux.protocol.message.FetchResponse.AbortedTransaction;
import io.kflux.protocol.record.RecordBatch;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * read_committed filtering of one fetch result: the broker lists the transactions aborted within
 * the returned range (producer id, first offset); a transactional data batch of such a producer
 * at or after that first offset, and before the producer's ABORT marker, is never emitted.
 * Walk the batches in order and ask {@link #isAborted} for each data batch, and tell
 * {@link #onAbortMarker} when an ABORT control batch passes.
 */
public final class AbortedTransactions {
    private final PriorityQueue<AbortedTransaction> pending;
    private final Set<Long> abortedProducers = new HashSet<>();

    public AbortedTransactions(List<AbortedTransaction> aborted) {
        this.pending = new PriorityQueue<>(Math.max(1, aborted.size()), Comparator.comparingLong(AbortedTransaction::firstOffset));
        this.pending.addAll(aborted);
    }

    public boolean isEmpty() {
        return pending.isEmpty() && abortedProducers.isEmpty();
    }

    /** True when {@code batch} (a data batch) belongs to an aborted transaction. */
    public boolean isAborted(RecordBatch batch) {
        while (!pending.isEmpty() && pending.peek().firstOffset() <= batch.lastOffset()) {
            abortedProducers.add(pending.poll().producerId());
        }
        return batch.isTransactional() && abortedProducers.contains(batch.producerId());
    }

    /** An ABORT marker of {@code producerId} ends that producer's aborted transaction. */
    public void onAbortMarker(long producerId) {
        abortedProducers.remove(producerId);
    }
}
