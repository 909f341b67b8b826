package io.kflux.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.share.ShareRequestPlanner.Broker;
import io.kflux.share.ShareRequestPlanner.Downstream;
import io.kflux.share.ShareRequestPlanner.Kind;
import io.kflux.share.ShareRequestPlanner.Plan;
import org.junit.jupiter.api.Test;

/**
 * {@link ShareRequestPlanner} on plain values: a broker's session and pending acknowledgements, downstream's demand,
 * buffer and confirmations awaited, and the time in; what to send out. Nothing is sent and no clock is read.
 */
class ShareRequestPlannerTest {
    static final int MAX_RECORDS = 500;
    static final int MAX_WAIT_MS = 500;
    static final long NOW = 1_000_000L;

    final ShareRequestPlanner planner = new ShareRequestPlanner(MAX_RECORDS, MAX_WAIT_MS);

    static Broker open(boolean pending, boolean waited) {
        return new Broker(ShareSessionState.OPEN, true, pending, waited, false, NOW);
    }

    static Downstream downstream(long requested, long buffered, long confirming) {
        return new Downstream(requested, buffered, confirming, 0, false);
    }

    /**
     * The explicit-accept benchmark's shape: {@code flatMap(r -> r.accept(), 1024)} has emitted its 1,024 records
     * and asks for no more until their confirmations come; 200 acquired records are still buffered. Counting only
     * what it asked for, no ShareFetch went until the buffer was empty and the subscriber waited for it; counting the
     * confirmations it awaits, the ShareFetch goes now with the acknowledgements, without waiting at the broker.
     */
    @Test
    void aSubscriberWaitingForConfirmationsGetsItsNextRecordsFetchedWithThem() {
        Plan p = planner.plan(open(true, true), downstream(0, 200, 1024), false, NOW);

        assertThat(p.kind()).isEqualTo(Kind.FETCH);
        assertThat(p.maxRecords()).isEqualTo(MAX_RECORDS - 200);
        assertThat(p.maxWaitMs()).isZero();
    }

    /**
     * A work queue's 64 slots awaiting confirmation with records still buffered: no small ShareFetch ahead (the
     * ACCEPTs would wait for the records it reads); they go by ShareAcknowledge. Once the subscriber asks for more
     * than is buffered, the ShareFetch asks for its demand and the confirmations awaited.
     */
    @Test
    void fewConfirmationsAwaitedDoNotFetchAheadButCountOnceAShareFetchGoes() {
        assertThat(planner.plan(open(true, true), downstream(0, 10, 64), false, NOW).kind())
                .isEqualTo(Kind.ACKNOWLEDGE);

        Plan p = planner.plan(open(true, true), downstream(1, 0, 64), false, NOW);
        assertThat(p.kind()).isEqualTo(Kind.FETCH);
        assertThat(p.maxRecords()).isEqualTo(65);
    }

    @Test
    void withoutConfirmationsAwaitedNothingIsFetchedAheadOfDemandAndTheAcknowledgementsGoOnTheirOwn() {
        assertThat(planner.wanted(downstream(0, 300, 0))).isNegative();

        Plan p = planner.plan(open(true, false), downstream(0, 300, 0), false, NOW);

        assertThat(p.kind()).isEqualTo(Kind.ACKNOWLEDGE);
    }

    @Test
    void acquiringAheadStaysWithinMaxPollRecordsAndCountsWhatIsBufferedAndAskedFor() {
        assertThat(planner.wanted(downstream(0, 0, 10_000))).isEqualTo(MAX_RECORDS);
        assertThat(planner.wanted(downstream(Long.MAX_VALUE, 0, 10_000))).isEqualTo(MAX_RECORDS);
        assertThat(planner.wanted(new Downstream(0, 100, 1024, 200, false))).isEqualTo(MAX_RECORDS - 300);
        assertThat(planner.wanted(downstream(3, 0, 4))).isEqualTo(7);
        assertThat(planner.wanted(downstream(0, 600, 64))).isNegative();
    }

    /** A slow subscriber that acknowledges nothing and asks for one record acquires no more than that one. */
    @Test
    void aSubscriberThatAcknowledgesNothingAcquiresOnlyWhatItAskedFor() {
        Plan p = planner.plan(open(false, false), downstream(1, 0, 0), false, NOW);

        assertThat(p.kind()).isEqualTo(Kind.FETCH);
        assertThat(p.maxRecords()).isEqualTo(1);
        assertThat(p.maxWaitMs()).isEqualTo(MAX_WAIT_MS);
    }

    @Test
    void oneRequestPerSessionAtATime() {
        for (ShareSessionState s : new ShareSessionState[] {ShareSessionState.OPENING, ShareSessionState.UPDATING,
                ShareSessionState.CLOSING, ShareSessionState.CLOSED}) {
            Plan p = planner.plan(new Broker(s, true, true, true, true, NOW), downstream(0, 0, 1024), false, NOW);
            assertThat(p.kind()).as("%s", s).isEqualTo(Kind.NONE);
            assertThat(p.wakeAtMs()).isEqualTo(Long.MAX_VALUE);
        }
    }

    /**
     * While the subscriber wants more than is buffered, acknowledgements wait for the ShareFetch that will carry
     * them, {@link ShareRequestPlanner#ACK_HOLD_MS} at most; then they go on their own.
     */
    @Test
    void acknowledgementsHeldForTheComingShareFetchGoOnTheirOwnAfterTheHold() {
        Broker b = new Broker(ShareSessionState.OPEN, true, true, true, false, NOW);
        Downstream handingOut = new Downstream(1_000, 400, 0, 0, true); // wants 100 more: below half of 500

        Plan held = planner.plan(b, handingOut, false, NOW + 10);
        Plan late = planner.plan(b, handingOut, false, NOW + ShareRequestPlanner.ACK_HOLD_MS);

        assertThat(held.kind()).isEqualTo(Kind.NONE);
        assertThat(held.wakeAtMs()).isEqualTo(NOW + ShareRequestPlanner.ACK_HOLD_MS);
        assertThat(late.kind()).isEqualTo(Kind.ACKNOWLEDGE);
    }

    @Test
    void whileHandingOutAShareFetchWaitsForHalfOfMaxPollRecords() {
        Broker b = open(false, false);

        assertThat(planner.plan(b, new Downstream(1_000, 300, 0, 0, true), false, NOW).kind()).isEqualTo(Kind.NONE);
        assertThat(planner.plan(b, new Downstream(1_000, 250, 0, 0, true), false, NOW).kind()).isEqualTo(Kind.FETCH);
    }

    @Test
    void renewGoesAtOnceByShareAcknowledge() {
        Broker b = new Broker(ShareSessionState.OPEN, true, true, false, true, NOW);

        assertThat(planner.plan(b, downstream(100, 0, 0), false, NOW).kind()).isEqualTo(Kind.ACKNOWLEDGE);
    }

    @Test
    void aShareFetchWithoutWaitedAcknowledgementsMayWaitAtTheBroker() {
        Plan p = planner.plan(open(true, false), downstream(100, 0, 0), false, NOW);

        assertThat(p.kind()).isEqualTo(Kind.FETCH);
        assertThat(p.maxWaitMs()).isEqualTo(MAX_WAIT_MS);
    }

    @Test
    void withoutASessionAcknowledgementsOpenOneFirstAndAFetchOpensWithItsPartitions() {
        Broker none = new Broker(ShareSessionState.NONE, true, true, true, false, NOW);

        assertThat(planner.plan(none, downstream(0, 10, 0), false, NOW).kind()).isEqualTo(Kind.OPEN_TO_ACKNOWLEDGE);
        Plan fetch = planner.plan(none, downstream(0, 10, 1024), false, NOW);
        assertThat(fetch.kind()).isEqualTo(Kind.OPEN);
        assertThat(fetch.maxRecords()).isEqualTo(MAX_RECORDS - 10);
        assertThat(planner.plan(new Broker(ShareSessionState.NONE, false, false, false, false, NOW),
                downstream(100, 0, 0), false, NOW)).isEqualTo(Plan.NOTHING);
    }

    @Test
    void closingClosesTheOpenSessionOpensOneForPendingAcknowledgementsAndElseHasNothingToClose() {
        Downstream wants = downstream(100, 0, 1024);

        assertThat(planner.plan(open(true, true), wants, true, NOW).kind()).isEqualTo(Kind.CLOSE);
        assertThat(planner.plan(new Broker(ShareSessionState.NONE, true, true, true, false, NOW), wants, true, NOW)
                .kind()).isEqualTo(Kind.OPEN_TO_ACKNOWLEDGE);
        assertThat(planner.plan(new Broker(ShareSessionState.NONE, true, false, false, false, NOW), wants, true, NOW)
                .kind()).isEqualTo(Kind.CLOSED_WITHOUT_SESSION);
    }
}
