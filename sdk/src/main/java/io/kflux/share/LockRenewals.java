package io.kflux.share;

import io.kflux.AcknowledgeType;
import io.kflux.protocol.message.AcknowledgementBatch;
import io.kflux.util.StateTransitions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * The acquisition locks of the records a share consumer holds, and which of them to renew when (KIP-1222 RENEW).
 * Pure: time comes in as arguments; owned by the {@link ShareFetcher}'s loop.
 *
 * <p>A record is held from the moment the ShareFetch that acquired it was sent (the broker's lock cannot have started
 * earlier, so the deadline kept here is never later than the broker's) for the response's
 * {@code AcquisitionLockTimeoutMs}. Its renewal is due once half of its lock has run, leaving the other half for the
 * round trip; a confirmed renewal holds it again from when the RENEW was sent, for the ShareAcknowledge response's
 * lock. Renewals stop {@code renewForMs} after acquisition ({@code share.lock.renewal.max.ms}; 0: never renewed) and
 * never go to a broker without RENEW (ShareAcknowledge v2): such a record expires with its lock and the broker hands
 * it to another member. A record is forgotten once its final acknowledgement is taken, its lock ran out or a renewal
 * was refused; a record not held (any more) may not be acknowledged: it may be someone else's by now, or this
 * member's again under a higher delivery count.
 */
final class LockRenewals {
    /** Where one acquired offset lives. */
    record Key(SharePartition partition, long offset) {
    }

    /** A renewal due: send RENEW for {@code key} to broker {@code nodeId}. */
    record Due(int nodeId, Key key) {
    }

    private static final class Held {
        final int nodeId;
        final short deliveryCount;
        final long acquiredAtMs;
        long lockMs;
        long expiresAtMs;
        HeldLockState state = HeldLockState.HELD;

        Held(int nodeId, short deliveryCount, long acquiredAtMs, long lockMs) {
            this.nodeId = nodeId;
            this.deliveryCount = deliveryCount;
            this.acquiredAtMs = acquiredAtMs;
            this.lockMs = lockMs;
            this.expiresAtMs = acquiredAtMs + lockMs;
        }

        long renewAtMs() {
            return expiresAtMs - lockMs / 2;
        }
    }

    private final long renewForMs;
    private final Map<Key, Held> held = new HashMap<>();
    /**
     * Nothing is due ({@link #due}: an expiry, or a renewal to a broker that takes RENEW) before this: exact after a
     * scan, lowered by every change that can make something due sooner. {@link #due} is called once per plan of the
     * fetcher, which runs per burst of acknowledgements: without it every plan walked every held record.
     */
    private long earliestMs = Long.MIN_VALUE;

    /** @param renewForMs how long after acquisition a record's lock is still renewed, in ms; 0 turns renewal off */
    LockRenewals(long renewForMs) {
        this.renewForMs = renewForMs;
    }

    /**
     * Records acquired by a ShareFetch: held from {@code sentAtMs} for {@code lockMs}. An offset acquired again
     * (redelivered to this member) is held anew under its new delivery count.
     */
    void acquired(int nodeId, SharePartition p, long firstOffset, long lastOffset, short deliveryCount,
                  long sentAtMs, long lockMs) {
        for (long o = firstOffset; o <= lastOffset; o++) {
            Held h = new Held(nodeId, deliveryCount, sentAtMs, lockMs);
            held.put(new Key(p, o), h);
            lower(h);
        }
    }

    /**
     * Whether the record is still held under this delivery: its acknowledgement may go to the broker.
     *
     * @param deliveryCount the delivery the acknowledgement is for; negative for any (gaps, the consumer's own
     *                      releases of records it never emitted)
     */
    boolean isHeld(Key key, short deliveryCount, long nowMs) {
        Held h = held.get(key);
        return h != null && nowMs < h.expiresAtMs && (deliveryCount < 0 || deliveryCount == h.deliveryCount);
    }

    /** The record's final acknowledgement (accept, release, reject, gap) was taken: it is no longer renewed. */
    void settled(Key key) {
        held.remove(key);
        if (held.isEmpty()) {
            earliestMs = Long.MAX_VALUE; // nothing held, nothing ever due
        }
    }

    /** The subscriber asked for a RENEW itself: its answer extends the lock as an automatic one does. */
    void renewRequested(Key key) {
        Held h = held.get(key);
        if (h != null && h.state == HeldLockState.HELD) {
            h.state = StateTransitions.check(key, h.state, HeldLockState.RENEWING);
        }
    }

    /**
     * Forgets the records whose lock ran out and takes the renewals due now: each is RENEWING until
     * {@link #renewAnswered}.
     *
     * @param renewable whether broker {@code nodeId} takes RENEW (ShareAcknowledge v2)
     */
    List<Due> due(long nowMs, IntPredicate renewable) {
        if (nowMs < earliestMs) {
            return List.of();
        }
        List<Due> due = new ArrayList<>();
        long next = Long.MAX_VALUE;
        for (Iterator<Map.Entry<Key, Held>> it = held.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Key, Held> e = it.next();
            Held h = e.getValue();
            if (nowMs >= h.expiresAtMs) {
                it.remove();
                continue;
            }
            if (h.state == HeldLockState.HELD && renews(h) && renewable.test(h.nodeId)) {
                if (nowMs >= h.renewAtMs()) {
                    h.state = StateTransitions.check(e.getKey(), h.state, HeldLockState.RENEWING);
                    due.add(new Due(h.nodeId, e.getKey()));
                } else {
                    next = Math.min(next, h.renewAtMs());
                }
            }
            next = Math.min(next, h.expiresAtMs);
        }
        earliestMs = next;
        return due;
    }

    /**
     * When {@link #due} may have something to do next (a renewal or an expiry), never later than that; possibly
     * earlier (a wake then finds nothing and learns the exact time); {@link Long#MAX_VALUE} for never.
     */
    long nextWakeMs(IntPredicate renewable) {
        if (earliestMs == Long.MIN_VALUE) {
            due(Long.MIN_VALUE, renewable); // nothing is due at the start of time: this only learns the next time
        }
        return earliestMs;
    }

    /** Whether a broker takes RENEW may have changed (a new connection's ApiVersions): look at every record again. */
    void renewableChanged() {
        earliestMs = Long.MIN_VALUE;
    }

    /** A record acquired or held again may be due sooner than anything before it. */
    private void lower(Held h) {
        earliestMs = Math.min(earliestMs, renews(h) ? h.renewAtMs() : h.expiresAtMs);
    }

    private boolean renews(Held h) {
        return h.renewAtMs() < h.acquiredAtMs + renewForMs;
    }

    /**
     * The broker answered a request carrying RENEW for these offsets of {@code p}.
     *
     * @param sentAtMs when the request was sent: the renewed lock runs from no earlier
     * @param lockMs   the response's lock duration; 0 or less keeps the record's previous one
     * @param ok       whether the partition's acknowledgements were accepted; when not, the locks are lost
     */
    void renewAnswered(SharePartition p, List<Long> offsets, long sentAtMs, int lockMs, boolean ok) {
        for (long o : offsets) {
            Key key = new Key(p, o);
            Held h = held.get(key);
            if (h == null || h.state != HeldLockState.RENEWING) {
                continue; // settled or expired meanwhile
            }
            if (!ok) {
                held.remove(key);
                continue;
            }
            if (lockMs > 0) {
                h.lockMs = lockMs;
            }
            h.expiresAtMs = Math.max(h.expiresAtMs, sentAtMs + h.lockMs);
            h.state = StateTransitions.check(key, h.state, HeldLockState.HELD);
            lower(h);
        }
    }

    /**
     * A request carrying RENEW for these offsets of {@code p} got no answer (connection lost): the locks stand as
     * they were, and the renewals are due again at once (the fetcher's backoff paces the retry).
     */
    void renewUnanswered(SharePartition p, List<Long> offsets) {
        for (long o : offsets) {
            Key key = new Key(p, o);
            Held h = held.get(key);
            if (h != null && h.state == HeldLockState.RENEWING) {
                h.state = StateTransitions.check(key, h.state, HeldLockState.HELD);
                lower(h);
            }
        }
    }

    /** The member lost its assignment: the broker released everything it held, so nothing is held here either. */
    void forgetAll() {
        held.clear();
        earliestMs = Long.MAX_VALUE; // nothing held, nothing ever due
    }

    /** How many records are held. */
    int size() {
        return held.size();
    }

    /** The offsets acknowledged with RENEW in these batches (a type for the whole batch, or one per offset). */
    static List<Long> renewOffsets(List<AcknowledgementBatch> batches) {
        List<Long> out = new ArrayList<>();
        byte renew = AcknowledgeType.RENEW.id();
        for (AcknowledgementBatch b : batches) {
            List<Byte> types = b.acknowledgeTypes();
            for (long o = b.firstOffset(); o <= b.lastOffset(); o++) {
                byte t = types.size() == 1 ? types.get(0) : types.get((int) (o - b.firstOffset()));
                if (t == renew) {
                    out.add(o);
                }
            }
        }
        return out;
    }
}
