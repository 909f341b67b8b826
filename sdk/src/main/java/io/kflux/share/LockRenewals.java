package io.kflux.share;

import io.kflux.AcknowledgeType;
import io.kflux.protocol.message.AcknowledgementBatch;
import io.kflux.util.StateTransitions;
import java.util.ArrayList;
import java.util.BitSet;
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
 *
 * <p>Kept per acquired range, not per record: a ShareFetch acquires ranges of offsets with one delivery count and one
 * lock, so each range is one entry with a bit per offset settled (a {@code HashMap} entry per held record was a visible
 * share of the explicit-accept benchmark's CPU). A record leaves its range for an entry of its own only when its lock
 * diverges from the range's: a renewal is due or asked for (then it lives in {@link #renewing}). Offsets acquired again
 * leave their older range, so an offset is in at most one place.
 */
final class LockRenewals {
    /** Where one acquired offset lives. */
    record Key(SharePartition partition, long offset) {
    }

    /** A renewal due: send RENEW for {@code key} to broker {@code nodeId}. */
    record Due(int nodeId, Key key) {
    }

    /** A record whose lock is its own (renewed, or a renewal out): the slow path, rare. */
    private static final class Held {
        final int nodeId;
        final short deliveryCount;
        final long acquiredAtMs;
        long lockMs;
        long expiresAtMs;
        HeldLockState state = HeldLockState.HELD;

        Held(int nodeId, short deliveryCount, long acquiredAtMs, long lockMs, long expiresAtMs) {
            this.nodeId = nodeId;
            this.deliveryCount = deliveryCount;
            this.acquiredAtMs = acquiredAtMs;
            this.lockMs = lockMs;
            this.expiresAtMs = expiresAtMs;
        }

        long renewAtMs() {
            return expiresAtMs - lockMs / 2;
        }
    }

    /**
     * Offsets {@code first..last} acquired by one ShareFetch under one lock; a set bit ({@code gone}, from
     * {@code first}) is an offset no longer held here (settled, acquired again, or moved to {@link #renewing}).
     */
    private static final class Range {
        final int nodeId;
        final short deliveryCount;
        final long first;
        final long last;
        final long acquiredAtMs;
        final long lockMs;
        final long expiresAtMs;
        final BitSet gone = new BitSet();
        long remaining;

        Range(int nodeId, short deliveryCount, long first, long last, long acquiredAtMs, long lockMs) {
            this.nodeId = nodeId;
            this.deliveryCount = deliveryCount;
            this.first = first;
            this.last = last;
            this.acquiredAtMs = acquiredAtMs;
            this.lockMs = lockMs;
            this.expiresAtMs = acquiredAtMs + lockMs;
            this.remaining = last - first + 1;
        }

        boolean holds(long offset) {
            return offset >= first && offset <= last && !gone.get((int) (offset - first));
        }

        /** Takes {@code offset} (held here) out of the range. */
        void remove(long offset) {
            gone.set((int) (offset - first));
            remaining--;
        }

        long renewAtMs() {
            return expiresAtMs - lockMs / 2;
        }
    }

    private final long renewForMs;
    /** Each partition's ranges, oldest first. */
    private final Map<SharePartition, ArrayList<Range>> ranges = new HashMap<>();
    /** Records out of their range: a renewal due, out or confirmed. */
    private final Map<Key, Held> renewing = new HashMap<>();
    private int heldCount;
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
        ArrayList<Range> list = ranges.computeIfAbsent(p, k -> new ArrayList<>());
        for (Iterator<Range> it = list.iterator(); it.hasNext(); ) { // an offset is held in one place only
            Range r = it.next();
            for (long o = Math.max(r.first, firstOffset); o <= Math.min(r.last, lastOffset); o++) {
                if (r.holds(o)) {
                    r.remove(o);
                    heldCount--;
                }
            }
            if (r.remaining == 0) {
                it.remove();
            }
        }
        if (!renewing.isEmpty()) {
            for (long o = firstOffset; o <= lastOffset; o++) {
                if (renewing.remove(new Key(p, o)) != null) {
                    heldCount--;
                }
            }
        }
        Range r = new Range(nodeId, deliveryCount, firstOffset, lastOffset, sentAtMs, lockMs);
        list.add(r);
        heldCount += (int) r.remaining;
        earliestMs = Math.min(earliestMs, renews(r.renewAtMs(), r.acquiredAtMs) ? r.renewAtMs() : r.expiresAtMs);
    }

    /**
     * Whether the record is still held under this delivery: its acknowledgement may go to the broker.
     *
     * @param deliveryCount the delivery the acknowledgement is for; negative for any (gaps, the consumer's own
     *                      releases of records it never emitted)
     */
    boolean isHeld(SharePartition p, long offset, short deliveryCount, long nowMs) {
        Range r = range(p, offset);
        if (r != null) {
            return nowMs < r.expiresAtMs && (deliveryCount < 0 || deliveryCount == r.deliveryCount);
        }
        Held h = renewing.isEmpty() ? null : renewing.get(new Key(p, offset));
        return h != null && nowMs < h.expiresAtMs && (deliveryCount < 0 || deliveryCount == h.deliveryCount);
    }

    /** As {@link #isHeld(SharePartition, long, short, long)}. */
    boolean isHeld(Key key, short deliveryCount, long nowMs) {
        return isHeld(key.partition(), key.offset(), deliveryCount, nowMs);
    }

    /**
     * The range holding {@code offset} of {@code p}; null when none does. Ranges never share a held offset, so the
     * walk goes oldest first: acknowledgements mostly come in the order records were acquired.
     */
    private Range range(SharePartition p, long offset) {
        ArrayList<Range> list = ranges.get(p);
        if (list == null) {
            return null;
        }
        for (int i = 0; i < list.size(); i++) {
            Range r = list.get(i);
            if (r.holds(offset)) {
                return r;
            }
        }
        return null;
    }

    /** The record's final acknowledgement (accept, release, reject, gap) was taken: it is no longer renewed. */
    void settled(SharePartition p, long offset) {
        ArrayList<Range> list = ranges.get(p);
        if (list != null) {
            for (int i = 0; i < list.size(); i++) {
                Range r = list.get(i);
                if (r.holds(offset)) {
                    r.remove(offset);
                    heldCount--;
                    if (r.remaining == 0) {
                        list.remove(i);
                        if (list.isEmpty()) {
                            ranges.remove(p);
                        }
                    }
                    settledLast();
                    return;
                }
            }
        }
        if (!renewing.isEmpty() && renewing.remove(new Key(p, offset)) != null) {
            heldCount--;
        }
        settledLast();
    }

    /** As {@link #settled(SharePartition, long)}. */
    void settled(Key key) {
        settled(key.partition(), key.offset());
    }

    private void settledLast() {
        if (heldCount == 0) {
            earliestMs = Long.MAX_VALUE; // nothing held, nothing ever due
        }
    }

    /** The subscriber asked for a RENEW itself: its answer extends the lock as an automatic one does. */
    void renewRequested(Key key) {
        Held h = takeOut(key);
        if (h != null && h.state == HeldLockState.HELD) {
            h.state = StateTransitions.check(key, h.state, HeldLockState.RENEWING);
        }
    }

    /** The record's own entry, taking it out of its range first if it is still in one; null when not held. */
    private Held takeOut(Key key) {
        Held h = renewing.get(key);
        if (h != null) {
            return h;
        }
        Range r = range(key.partition(), key.offset());
        if (r == null) {
            return null;
        }
        r.remove(key.offset());
        h = new Held(r.nodeId, r.deliveryCount, r.acquiredAtMs, r.lockMs, r.expiresAtMs);
        renewing.put(key, h);
        if (r.remaining == 0) {
            ArrayList<Range> list = ranges.get(key.partition());
            list.remove(r);
            if (list.isEmpty()) {
                ranges.remove(key.partition());
            }
        }
        return h;
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
        for (Iterator<Map.Entry<SharePartition, ArrayList<Range>>> pit = ranges.entrySet().iterator();
             pit.hasNext(); ) {
            Map.Entry<SharePartition, ArrayList<Range>> pe = pit.next();
            for (Iterator<Range> it = pe.getValue().iterator(); it.hasNext(); ) {
                Range r = it.next();
                if (nowMs >= r.expiresAtMs) {
                    heldCount -= (int) r.remaining;
                    it.remove();
                    continue;
                }
                boolean renews = renews(r.renewAtMs(), r.acquiredAtMs) && renewable.test(r.nodeId);
                if (renews && nowMs >= r.renewAtMs()) { // each record of the range goes its own way from here
                    for (long o = r.first; o <= r.last; o++) {
                        if (r.holds(o)) {
                            Key key = new Key(pe.getKey(), o);
                            Held h = new Held(r.nodeId, r.deliveryCount, r.acquiredAtMs, r.lockMs, r.expiresAtMs);
                            h.state = StateTransitions.check(key, h.state, HeldLockState.RENEWING);
                            renewing.put(key, h);
                            due.add(new Due(r.nodeId, key));
                        }
                    }
                    it.remove();
                    next = Math.min(next, r.expiresAtMs);
                    continue;
                }
                if (renews) {
                    next = Math.min(next, r.renewAtMs());
                }
                next = Math.min(next, r.expiresAtMs);
            }
            if (pe.getValue().isEmpty()) {
                pit.remove();
            }
        }
        for (Iterator<Map.Entry<Key, Held>> it = renewing.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Key, Held> e = it.next();
            Held h = e.getValue();
            if (nowMs >= h.expiresAtMs) {
                it.remove();
                heldCount--;
                continue;
            }
            if (h.state == HeldLockState.HELD && renews(h.renewAtMs(), h.acquiredAtMs) && renewable.test(h.nodeId)) {
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

    /** A record held again may be due sooner than anything before it. */
    private void lower(Held h) {
        earliestMs = Math.min(earliestMs, renews(h.renewAtMs(), h.acquiredAtMs) ? h.renewAtMs() : h.expiresAtMs);
    }

    private boolean renews(long renewAtMs, long acquiredAtMs) {
        return renewAtMs < acquiredAtMs + renewForMs;
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
            Held h = renewing.get(key);
            if (h == null || h.state != HeldLockState.RENEWING) {
                continue; // settled or expired meanwhile
            }
            if (!ok) {
                renewing.remove(key);
                heldCount--;
                settledLast();
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
            Held h = renewing.get(key);
            if (h != null && h.state == HeldLockState.RENEWING) {
                h.state = StateTransitions.check(key, h.state, HeldLockState.HELD);
                lower(h);
            }
        }
    }

    /** The member lost its assignment: the broker released everything it held, so nothing is held here either. */
    void forgetAll() {
        ranges.clear();
        renewing.clear();
        heldCount = 0;
        earliestMs = Long.MAX_VALUE; // nothing held, nothing ever due
    }

    /** How many records are held. */
    int size() {
        return heldCount;
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
