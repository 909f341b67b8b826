package io.kflux.share;

import io.kflux.AcknowledgeType;
import io.kflux.KafkaFluxException;
import io.kflux.protocol.message.AcknowledgementBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the share fetcher keeps for one broker: its {@link ShareSession}, the acknowledgements not sent yet per
 * partition with the callers waiting on them, and those riding on the request out (answered per partition by its
 * acknowledgement error). Loop-only.
 */
final class ShareBroker {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ShareBroker.class);
    /** A caller waiting for the broker to confirm its acknowledgement of {@code offset}; hears once. */
    interface Waiter {
        long offset();

        /** The broker confirmed it. */
        void success();

        /** It failed: the broker refused it, it could not be sent, or it was not held. */
        void error(RuntimeException e);
    }

    /** Acknowledgements taken for one request, per partition. */
    record Drained(Map<SharePartition, List<AcknowledgementBatch>> batches,
                   Map<SharePartition, List<Waiter>> waiters, boolean renew) {
        boolean isEmpty() {
            return batches.isEmpty();
        }
    }

    final int nodeId;
    final ShareSession session;
    private final Map<SharePartition, PartitionAcknowledgements> pending = new HashMap<>();
    private final Map<SharePartition, List<Waiter>> pendingWaiters = new HashMap<>();
    /** The acknowledgements the request out carries; empty when none is out. */
    Drained inFlight = new Drained(Map.of(), Map.of(), false);
    /** Waiters of the pending acknowledgements, and of those on the request out. */
    private int pendingWaiterCount;
    private int inFlightWaiterCount;
    /** The records the ShareFetch out may acquire (its {@code maxRecords}); 0 when none is out. */
    int inFlightRecords;
    /** A request is due again after this (ms of the fetcher's clock): after a failure, or a throttle. */
    long notBeforeMs;
    int failures;
    /** When the last request to this broker was sent (ms of the fetcher's clock): acquired locks run from then. */
    long sentAtMs;
    /** The same moment on {@link System#nanoTime()}, for the latency meters. */
    long sentAtNanos;
    /** When the oldest acknowledgement not sent yet was taken (ms of the fetcher's clock); set by the fetcher. */
    long pendingSinceMs;
    /** The highest ShareAcknowledge version this broker offered on its last connection; -1 before one. */
    short acknowledgeVersion = -1;

    ShareBroker(int nodeId) {
        this.nodeId = nodeId;
        this.session = new ShareSession(nodeId);
    }

    /** Records an acknowledgement; {@code waiter} (null for gaps and releases nobody waits on) hears the outcome. */
    void add(SharePartition p, long offset, AcknowledgeType type, Waiter waiter) {
        PartitionAcknowledgements acks = pending.computeIfAbsent(p, k -> new PartitionAcknowledgements());
        if (type == null) {
            acks.addGap(offset);
        } else {
            acks.add(offset, type);
        }
        if (waiter != null) {
            pendingWaiters.computeIfAbsent(p, k -> new ArrayList<>()).add(waiter);
            pendingWaiterCount++;
        }
    }

    /** Whether someone waits for one of the acknowledgements not sent yet. */
    boolean hasPendingWaiters() {
        return pendingWaiterCount > 0;
    }

    /** Acknowledgements someone waits for that this broker has not answered yet: pending, or on the request out. */
    int waiting() {
        return pendingWaiterCount + inFlightWaiterCount;
    }

    /** The request out was answered, or failed: its waiters are settled. */
    void inFlightDone() {
        inFlight = new Drained(Map.of(), Map.of(), false);
        inFlightRecords = 0;
        inFlightWaiterCount = 0;
    }

    boolean hasPending() {
        return !pending.isEmpty();
    }

    Set<SharePartition> pendingPartitions() {
        return Set.copyOf(pending.keySet());
    }

    /** Whether a RENEW is pending: it goes by ShareAcknowledge with {@code IsRenewAck} (KIP-1222). */
    boolean hasPendingRenew() {
        for (PartitionAcknowledgements a : pending.values()) {
            if (a.hasRenew()) {
                return true;
            }
        }
        return false;
    }

    /** Takes every pending acknowledgement for the request about to go out (it is {@link #inFlight} then). */
    Drained drain() {
        int waited = pendingWaiterCount;
        Drained d = takePending();
        inFlightWaiterCount = waited;
        return d;
    }

    private Drained takePending() {
        Map<SharePartition, List<AcknowledgementBatch>> batches = new HashMap<>();
        boolean renew = false;
        for (Map.Entry<SharePartition, PartitionAcknowledgements> e : pending.entrySet()) {
            renew |= e.getValue().hasRenew();
            batches.put(e.getKey(), e.getValue().drain());
        }
        Map<SharePartition, List<Waiter>> waiters = new HashMap<>(pendingWaiters);
        pending.clear();
        pendingWaiters.clear();
        pendingWaiterCount = 0;
        return new Drained(batches, waiters, renew);
    }

    /** Fails every acknowledgement not sent yet (the session they belong to is gone), in {@code out}'s next pass. */
    void failPending(KafkaFluxException error, AckCompletions out) {
        fail(takePending(), error, out);
    }

    /** Fails every waiter of {@code d} with {@code error} in {@code out}'s next pass. */
    static void fail(Drained d, KafkaFluxException error, AckCompletions out) {
        d.waiters().values().forEach(ws -> out.add(ws, error));
    }

    /** The waiters of {@code p} in {@code d} hear in {@code out}'s next pass: confirmed, or failed with {@code error}. */
    static void answer(Drained d, SharePartition p, KafkaFluxException error, AckCompletions out) {
        List<Waiter> ws = d.waiters().get(p);
        if (ws != null) {
            out.add(ws, error);
        }
    }

    /**
     * Completes one waiter. Its subscriber's code runs here, on the fetcher's loop in the middle of handling a
     * broker answer: whatever it throws is logged and goes no further, so the answer is still handled in full.
     */
    static void complete(Waiter w, KafkaFluxException error) {
        try {
            if (error == null) {
                w.success();
            } else {
                w.error(error);
            }
        } catch (RuntimeException e) {
            log.warn("the subscriber of the acknowledgement of offset {} threw: {}", w.offset(), e.toString());
        }
    }
}
