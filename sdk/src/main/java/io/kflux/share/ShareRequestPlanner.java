package io.kflux.share;

/**
 * What the share fetcher sends to one broker next, and when it must plan again: from the broker's session state,
 * its acknowledgements not sent yet, what downstream wants and holds, and the time passed in. No I/O and no clock of
 * its own, so its rules are unit-tested on plain values ({@code ShareRequestPlannerTest}); {@link ShareFetcher}
 * builds and sends the request it names.
 *
 * <p>The rules:
 * <ul>
 *   <li>One request per share session at a time (KIP-932: each request carries the epoch after the last answered
 *       one, so the next cannot be numbered before the answer): nothing while one is out.</li>
 *   <li><b>How many records to acquire</b> ({@link #wanted}): what downstream asked for and was not handed yet,
 *       <em>plus the acknowledgements someone waits for that the broker has not confirmed yet</em>, up to
 *       {@code max.poll.records}, less what is buffered and what the requests out may acquire. A subscriber with
 *       bounded concurrency ({@code flatMap(r -> r.accept(), n)}) asks for its next record only when an
 *       acknowledgement's {@code Mono} completed; counting only what it asked for left the next ShareFetch unsent
 *       until the buffer was empty, so the subscriber waited a whole ShareFetch round trip after every fetched
 *       batch. Counted this way, the ShareFetch goes while the last records are still handed out, carrying the
 *       acknowledgements, and its records are at hand when the confirmations free the subscriber's slots. Bounded
 *       all the same: never more than {@code max.poll.records} ahead, and only for acknowledgements the subscriber
 *       made (a subscriber that stops acknowledging stops acquiring).</li>
 *   <li>While records are being handed out to a subscriber that wants more than them, a ShareFetch waits until half
 *       of {@code max.poll.records} is wanted (not one small ShareFetch per burst of acknowledgements).</li>
 *   <li>Acknowledgements ride on the next ShareFetch. They go by ShareAcknowledge of their own when no ShareFetch is
 *       due and the sink is not about to want more ({@link #ACK_HOLD_MS} at most), or at once when they renew locks
 *       (RENEW goes by ShareAcknowledge with {@code IsRenewAck}, KIP-1222).</li>
 *   <li>A ShareFetch carrying acknowledgements someone waits for does not wait at the broker ({@code MaxWaitMs} 0):
 *       their confirmations come back at once instead of after {@code fetch.max.wait.ms}.</li>
 *   <li>Closing: the open session is closed (epoch -1) with the last acknowledgements; acknowledgements without a
 *       session open one first (they only go within a session); else there is nothing to close.</li>
 * </ul>
 */
final class ShareRequestPlanner {
    /**
     * How long acknowledgements may wait for the ShareFetch that will carry them while the sink hands out records
     * (ms): long enough for a batch to be handed out, far below an acquisition lock (30 s by default).
     */
    static final long ACK_HOLD_MS = 100;

    /** What to send. */
    enum Kind {
        /** Nothing now. */
        NONE,
        /** A ShareFetch that opens a session (epoch 0, no acknowledgements) listing the partitions to fetch. */
        OPEN,
        /** A ShareFetch that opens a session for the acknowledgements pending (they only go within one): no records. */
        OPEN_TO_ACKNOWLEDGE,
        /** A ShareFetch of the open session, carrying the pending acknowledgements. */
        FETCH,
        /** A ShareAcknowledge of the open session with the pending acknowledgements. */
        ACKNOWLEDGE,
        /** The ShareAcknowledge that closes the open session (epoch -1) with the pending acknowledgements. */
        CLOSE,
        /** No session to close: it counts as closed at once. */
        CLOSED_WITHOUT_SESSION
    }

    /**
     * One broker as the fetcher knows it when planning.
     *
     * @param session          its share session's state
     * @param partitions       whether assigned partitions are led by it (something to fetch)
     * @param pending          acknowledgements for it are not sent yet
     * @param pendingWaited    someone waits for one of them
     * @param pendingRenew     one of them is a RENEW
     * @param pendingSinceMs   when the oldest of them was taken (the fetcher's clock, ms)
     */
    record Broker(ShareSessionState session, boolean partitions, boolean pending, boolean pendingWaited,
                  boolean pendingRenew, long pendingSinceMs) {
    }

    /**
     * Downstream, over every broker.
     *
     * @param requested       records the subscriber asked for and was not handed yet (Long.MAX_VALUE: unbounded)
     * @param buffered        records acquired and not handed out yet
     * @param confirming      acknowledgements someone waits for, taken and not answered by a broker yet
     * @param inFlightRecords records the ShareFetches out may acquire
     * @param handingOut      buffered records are being handed out to a subscriber that wants more than them
     */
    record Downstream(long requested, long buffered, long confirming, long inFlightRecords, boolean handingOut) {
    }

    /**
     * @param kind       what to send
     * @param maxRecords the ShareFetch's {@code MaxRecords} (and {@code BatchSize}); 0 for other kinds
     * @param maxWaitMs  the ShareFetch's {@code MaxWaitMs}; 0 for other kinds
     * @param wakeAtMs   when to plan again for this broker if nothing else does (Long.MAX_VALUE: no need)
     */
    record Plan(Kind kind, int maxRecords, int maxWaitMs, long wakeAtMs) {
        static final Plan NOTHING = new Plan(Kind.NONE, 0, 0, Long.MAX_VALUE);

        static Plan of(Kind kind) {
            return new Plan(kind, 0, 0, Long.MAX_VALUE);
        }
    }

    private final int maxRecords;
    private final int maxWaitMs;

    /**
     * @param maxRecords {@code max.poll.records}: the most records acquired ahead
     * @param maxWaitMs  {@code fetch.max.wait.ms}
     */
    ShareRequestPlanner(int maxRecords, int maxWaitMs) {
        this.maxRecords = maxRecords;
        this.maxWaitMs = maxWaitMs;
    }

    /**
     * How many more records to acquire now (may be 0 or negative: none).
     */
    long wanted(Downstream d) {
        long asked = d.requested() > Long.MAX_VALUE - d.confirming() ? Long.MAX_VALUE : d.requested() + d.confirming();
        return Math.min(asked, maxRecords) - d.buffered() - d.inFlightRecords();
    }

    /**
     * The next request to one broker.
     *
     * @param closing the consumer is closing: no more fetches, flush and close the session
     * @param nowMs   the fetcher's clock (ms)
     */
    Plan plan(Broker b, Downstream d, boolean closing, long nowMs) {
        ShareSessionState s = b.session();
        if (s != ShareSessionState.NONE && s != ShareSessionState.OPEN) {
            return Plan.NOTHING; // a request is out (or the session closed): its answer plans again
        }
        if (closing) {
            if (s == ShareSessionState.OPEN) {
                return Plan.of(Kind.CLOSE);
            }
            return b.pending() ? openForAcknowledgements() : Plan.of(Kind.CLOSED_WITHOUT_SESSION);
        }
        long want = wanted(d);
        long asked = Math.min(d.requested(), maxRecords) - d.buffered() - d.inFlightRecords();
        // the confirmations awaited fetch ahead only by half of max.poll.records at least: a few of them (a work
        // queue's 64 slots) sent a small ShareFetch as soon as the buffer was down to them, and the ACCEPTs riding
        // on it waited for the records it read (the queue case lost a third of its records/s)
        boolean fetch = want > 0 && b.partitions()
                && (want >= Math.max(1, maxRecords / 2) || (!d.handingOut() && asked > 0));
        int records = (int) Math.max(1, Math.min(want, maxRecords));
        if (s == ShareSessionState.NONE) {
            if (fetch) {
                return new Plan(Kind.OPEN, records, maxWaitMs, Long.MAX_VALUE);
            }
            return b.pending() ? openForAcknowledgements() : Plan.NOTHING;
        }
        boolean hold = d.handingOut() && nowMs - b.pendingSinceMs() < ACK_HOLD_MS;
        if (b.pendingRenew() || (!fetch && b.pending() && !hold)) {
            return Plan.of(Kind.ACKNOWLEDGE);
        }
        if (fetch) {
            return new Plan(Kind.FETCH, records, b.pendingWaited() ? 0 : maxWaitMs, Long.MAX_VALUE);
        }
        // held for a ShareFetch: not for ever
        return b.pending() ? new Plan(Kind.NONE, 0, 0, b.pendingSinceMs() + ACK_HOLD_MS) : Plan.NOTHING;
    }

    /** A session opened to carry acknowledgements: one record asked for (the least a ShareFetch may), no wait. */
    private static Plan openForAcknowledgements() {
        return new Plan(Kind.OPEN_TO_ACKNOWLEDGE, 1, 0, Long.MAX_VALUE);
    }
}
