package io.kflux.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.AcknowledgeType;
import io.kflux.protocol.message.AcknowledgementBatch;
import java.util.List;
import java.util.UUID;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/** {@link LockRenewals} in virtual time: locks of 2,000 ms acquired at t=1,000 by a request to broker 1. */
class LockRenewalsTest {
    private static final SharePartition P = new SharePartition(UUID.randomUUID(), 0);
    private static final IntPredicate ALL = id -> true;
    private static final IntPredicate NONE = id -> false;
    private static final short FIRST = 1;

    private static LockRenewals.Key key(long offset) {
        return new LockRenewals.Key(P, offset);
    }

    @Test
    void aRenewalIsDueAtHalfTheLockAndExtendsItFromWhenItWasSent() {
        LockRenewals locks = new LockRenewals(60_000);
        locks.acquired(1, P, 10, 11, FIRST, 1_000, 2_000);
        assertThat(locks.nextWakeMs(ALL)).isEqualTo(2_000);
        assertThat(locks.due(1_999, ALL)).isEmpty();
        assertThat(locks.due(2_000, ALL)).containsExactlyInAnyOrder(new LockRenewals.Due(1, key(10)),
                new LockRenewals.Due(1, key(11)));
        assertThat(locks.due(2_100, ALL)).as("a renewal out is not taken again").isEmpty();
        assertThat(locks.nextWakeMs(ALL)).as("only the expiry is left to watch").isEqualTo(3_000);

        locks.renewAnswered(P, List.of(10L, 11L), 2_000, 2_000, true);
        assertThat(locks.isHeld(key(10), FIRST, 3_500)).as("held past the first lock").isTrue();
        assertThat(locks.nextWakeMs(ALL)).isEqualTo(3_000);
        assertThat(locks.due(3_000, ALL)).hasSize(2);
    }

    @Test
    void aLostAssignmentForgetsEveryHeldRecordAndALateRenewalAnswerRevivesNone() {
        LockRenewals locks = new LockRenewals(60_000);
        locks.acquired(1, P, 0, 4, FIRST, 1_000, 2_000);
        assertThat(locks.due(2_000, ALL)).hasSize(5); // renewals out when the member learns it lost its session
        locks.forgetAll();
        assertThat(locks.isHeld(key(0), FIRST, 2_001)).as("not this member's any more").isFalse();
        assertThat(locks.isHeld(key(4), (short) -1, 2_001)).as("not even as a gap").isFalse();
        assertThat(locks.size()).isZero();
        assertThat(locks.nextWakeMs(ALL)).isEqualTo(Long.MAX_VALUE);
        locks.renewAnswered(P, List.of(0L, 1L), 2_000, 2_000, true);
        assertThat(locks.isHeld(key(0), FIRST, 2_100)).isFalse();

        locks.acquired(1, P, 5, 5, FIRST, 3_000, 2_000); // what the new membership acquires is held as usual
        assertThat(locks.isHeld(key(5), FIRST, 3_100)).isTrue();
        assertThat(locks.nextWakeMs(ALL)).isEqualTo(4_000);
    }

    @Test
    void renewalsStopAtTheLimitAndTheRecordThenExpires() {
        LockRenewals locks = new LockRenewals(5_000);
        locks.acquired(1, P, 0, 0, FIRST, 0, 2_000);
        long now = 0;
        int renewals = 0;
        while (true) {
            long wake = locks.nextWakeMs(ALL);
            if (wake == Long.MAX_VALUE) {
                break;
            }
            now = wake;
            List<LockRenewals.Due> due = locks.due(now, ALL);
            renewals += due.size();
            if (!due.isEmpty()) {
                locks.renewAnswered(P, List.of(0L), now, 2_000, true);
            }
        }
        // renewals at 1,000 2,000 3,000 4,000 (each before 0 + 5,000); the last lock runs out at 6,000
        assertThat(renewals).isEqualTo(4);
        assertThat(now).isEqualTo(6_000);
        assertThat(locks.isHeld(key(0), FIRST, 5_999)).isFalse();
        assertThat(locks.size()).isZero();
    }

    @Test
    void noRenewalWhenOffOrWhenTheBrokerTakesNone() {
        LockRenewals off = new LockRenewals(0);
        off.acquired(1, P, 0, 0, FIRST, 0, 2_000);
        assertThat(off.nextWakeMs(ALL)).isEqualTo(2_000);
        assertThat(off.due(1_500, ALL)).isEmpty();

        LockRenewals old = new LockRenewals(60_000);
        old.acquired(1, P, 0, 0, FIRST, 0, 2_000);
        assertThat(old.nextWakeMs(NONE)).isEqualTo(2_000);
        assertThat(old.due(1_500, NONE)).isEmpty();
        assertThat(old.isHeld(key(0), FIRST, 1_999)).isTrue();
        assertThat(old.due(2_000, NONE)).isEmpty();
        assertThat(old.isHeld(key(0), FIRST, 1_999)).as("forgotten once expired").isFalse();
    }

    /** due() skips its walk while nothing can be due; what can make something due sooner is still seen. */
    @Test
    void aLaterRecordWithAShorterLockAndABrokerThatLearnsRenewAreSeen() {
        LockRenewals locks = new LockRenewals(60_000);
        locks.acquired(1, P, 0, 0, FIRST, 0, 10_000);
        assertThat(locks.due(1_000, ALL)).isEmpty();
        assertThat(locks.nextWakeMs(ALL)).isEqualTo(5_000);
        locks.acquired(1, P, 1, 1, FIRST, 1_000, 2_000);
        assertThat(locks.nextWakeMs(ALL)).isEqualTo(2_000);
        assertThat(locks.due(2_000, ALL)).containsExactly(new LockRenewals.Due(1, key(1)));

        LockRenewals old = new LockRenewals(60_000);
        old.acquired(2, P, 0, 0, FIRST, 0, 10_000);
        assertThat(old.due(6_000, NONE)).isEmpty();
        assertThat(old.nextWakeMs(NONE)).as("only the expiry, the broker takes no RENEW").isEqualTo(10_000);
        assertThat(old.due(6_500, ALL)).as("not looked at again until told").isEmpty();
        old.renewableChanged();
        assertThat(old.due(6_500, ALL)).containsExactly(new LockRenewals.Due(2, key(0)));
    }

    @Test
    void aSettledRecordIsNeitherRenewedNorHeld() {
        LockRenewals locks = new LockRenewals(60_000);
        locks.acquired(1, P, 0, 1, FIRST, 0, 2_000);
        locks.settled(key(0));
        assertThat(locks.isHeld(key(0), FIRST, 10)).isFalse();
        assertThat(locks.due(1_000, ALL)).containsExactly(new LockRenewals.Due(1, key(1)));
        locks.settled(key(1));
        locks.renewAnswered(P, List.of(1L), 1_000, 2_000, true);
        assertThat(locks.size()).isZero();
        assertThat(locks.nextWakeMs(ALL)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aRefusedRenewalLosesTheLockAndAnUnansweredOneIsRetried() {
        LockRenewals locks = new LockRenewals(60_000);
        locks.acquired(1, P, 0, 1, FIRST, 0, 2_000);
        assertThat(locks.due(1_000, ALL)).hasSize(2);
        locks.renewAnswered(P, List.of(0L), 1_000, 2_000, false);
        assertThat(locks.isHeld(key(0), FIRST, 1_100)).as("the broker refused: not ours any more").isFalse();
        locks.renewUnanswered(P, List.of(1L));
        assertThat(locks.isHeld(key(1), FIRST, 1_100)).isTrue();
        assertThat(locks.due(1_100, ALL)).containsExactly(new LockRenewals.Due(1, key(1)));
    }

    @Test
    void anOffsetAcquiredAgainIsHeldOnlyUnderItsNewDeliveryCount() {
        LockRenewals locks = new LockRenewals(0);
        locks.acquired(1, P, 5, 5, FIRST, 0, 2_000);
        locks.due(2_000, ALL);
        locks.acquired(1, P, 5, 5, (short) 2, 2_500, 2_000);
        assertThat(locks.isHeld(key(5), FIRST, 2_600)).as("the old delivery's acknowledgement").isFalse();
        assertThat(locks.isHeld(key(5), (short) 2, 2_600)).isTrue();
        assertThat(locks.isHeld(key(5), (short) -1, 2_600)).as("a gap names no delivery").isTrue();
    }

    @Test
    void aRequestedRenewalIsAnsweredLikeAnAutomaticOne() {
        LockRenewals locks = new LockRenewals(0);
        locks.acquired(1, P, 0, 0, FIRST, 0, 2_000);
        locks.renewRequested(key(0));
        locks.renewAnswered(P, List.of(0L), 1_500, 3_000, true);
        assertThat(locks.isHeld(key(0), FIRST, 4_499)).isTrue();
        assertThat(locks.isHeld(key(0), FIRST, 4_500)).isFalse();
    }

    /** A range settled out of order and with holes: each offset is held until settled, and only once. */
    @Test
    void aRangeSettledOutOfOrderHoldsEachOffsetUntilItsOwnSettlement() {
        LockRenewals locks = new LockRenewals(0);
        locks.acquired(1, P, 100, 104, FIRST, 0, 2_000);
        assertThat(locks.size()).isEqualTo(5);
        locks.settled(key(103));
        locks.settled(key(100));
        assertThat(locks.isHeld(key(103), FIRST, 10)).isFalse();
        assertThat(locks.isHeld(key(100), FIRST, 10)).isFalse();
        assertThat(locks.isHeld(key(101), FIRST, 10)).isTrue();
        assertThat(locks.isHeld(key(105), (short) -1, 10)).as("past the range").isFalse();
        assertThat(locks.isHeld(key(99), (short) -1, 10)).as("before the range").isFalse();
        locks.settled(key(103)); // twice: nothing more happens
        assertThat(locks.size()).isEqualTo(3);
        locks.settled(key(104));
        locks.settled(key(102));
        locks.settled(key(101));
        assertThat(locks.size()).isZero();
        assertThat(locks.nextWakeMs(ALL)).isEqualTo(Long.MAX_VALUE);
    }

    /** A partly settled range expires as a whole: what was still held is forgotten at its lock's end. */
    @Test
    void aPartlySettledRangeExpiresWithItsLock() {
        LockRenewals locks = new LockRenewals(0);
        locks.acquired(1, P, 0, 9, FIRST, 1_000, 2_000);
        locks.acquired(1, P, 10, 19, FIRST, 2_000, 2_000);
        for (long o = 0; o < 5; o++) {
            locks.settled(key(o));
        }
        assertThat(locks.nextWakeMs(ALL)).isEqualTo(3_000);
        assertThat(locks.isHeld(key(5), FIRST, 2_999)).isTrue();
        assertThat(locks.isHeld(key(5), FIRST, 3_000)).as("expired, even before due() looked").isFalse();
        assertThat(locks.due(3_000, ALL)).isEmpty();
        assertThat(locks.size()).as("the second range only").isEqualTo(10);
        assertThat(locks.nextWakeMs(ALL)).isEqualTo(4_000);
        assertThat(locks.isHeld(key(15), FIRST, 3_500)).isTrue();
    }

    /** Offsets acquired again leave their older range; the rest of that range stays held under its delivery. */
    @Test
    void offsetsAcquiredAgainLeaveTheirOlderRangeAndTheRestStays() {
        LockRenewals locks = new LockRenewals(0);
        locks.acquired(1, P, 0, 9, FIRST, 0, 10_000);
        locks.acquired(1, P, 5, 14, (short) 2, 100, 10_000);
        assertThat(locks.size()).isEqualTo(15);
        assertThat(locks.isHeld(key(4), FIRST, 200)).isTrue();
        assertThat(locks.isHeld(key(5), FIRST, 200)).as("the old delivery of a re-acquired offset").isFalse();
        assertThat(locks.isHeld(key(5), (short) 2, 200)).isTrue();
        locks.settled(key(5));
        assertThat(locks.isHeld(key(5), (short) -1, 200)).as("settled once: held nowhere").isFalse();
        assertThat(locks.size()).isEqualTo(14);
    }

    /** A RENEW asked for one record of a range takes it out of the range; the others keep the range's lock. */
    @Test
    void aRequestedRenewalOfOneRecordLeavesTheRestOfItsRangeAlone() {
        LockRenewals locks = new LockRenewals(0);
        locks.acquired(1, P, 0, 2, FIRST, 0, 2_000);
        locks.renewRequested(key(1));
        locks.renewAnswered(P, List.of(1L), 1_500, 2_000, true);
        assertThat(locks.size()).isEqualTo(3);
        assertThat(locks.isHeld(key(1), FIRST, 3_000)).isTrue();
        assertThat(locks.isHeld(key(0), FIRST, 2_000)).isFalse();
        assertThat(locks.due(2_000, ALL)).isEmpty();
        assertThat(locks.size()).as("the range's two expired, the renewed one held").isEqualTo(1);
        locks.settled(key(1));
        assertThat(locks.size()).isZero();
    }

    /** A range's renewal turns each record it still holds into a RENEW of its own; settled ones are not renewed. */
    @Test
    void aDueRangeRenewsOnlyTheRecordsItStillHolds() {
        LockRenewals locks = new LockRenewals(60_000);
        locks.acquired(1, P, 0, 3, FIRST, 0, 2_000);
        locks.settled(key(1));
        locks.settled(key(2));
        assertThat(locks.due(1_000, ALL)).containsExactly(new LockRenewals.Due(1, key(0)), new LockRenewals.Due(1, key(3)));
        locks.renewAnswered(P, List.of(0L, 3L), 1_000, 2_000, true);
        assertThat(locks.isHeld(key(3), FIRST, 2_500)).isTrue();
        assertThat(locks.size()).isEqualTo(2);
    }

    @Test
    void renewOffsetsReadsBothBatchShapes() {
        byte renew = AcknowledgeType.RENEW.id();
        byte accept = AcknowledgeType.ACCEPT.id();
        assertThat(LockRenewals.renewOffsets(List.of(new AcknowledgementBatch(3, 5, List.of(renew)),
                new AcknowledgementBatch(7, 9, List.of(accept, renew, accept)),
                new AcknowledgementBatch(10, 10, List.of(accept))))).containsExactly(3L, 4L, 5L, 8L);
    }
}
