package io.kflux.share;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BurstHoldTest {
    @Test
    void outsideABurstEveryHandOverIsTakenAtOnce() {
        BurstHold hold = new BurstHold();
        assertThat(hold.holds()).isFalse();
        assertThat(hold.state()).isEqualTo(BurstHold.State.OPEN);
    }

    @Test
    void aBurstHoldsHandOversAndItsEndSaysSomethingWaits() {
        BurstHold hold = new BurstHold();
        assertThat(hold.hold()).isTrue();
        assertThat(hold.holds()).isTrue();
        assertThat(hold.holds()).isTrue();
        assertThat(hold.state()).isEqualTo(BurstHold.State.HELD_WITH_HAND_OVERS);
        assertThat(hold.release()).isTrue();
        assertThat(hold.holds()).isFalse();
    }

    @Test
    void aBurstWithoutHandOversLeavesNothingToTake() {
        BurstHold hold = new BurstHold();
        assertThat(hold.hold()).isTrue();
        assertThat(hold.release()).isFalse();
        assertThat(hold.state()).isEqualTo(BurstHold.State.OPEN);
    }

    @Test
    void aSecondBurstWhileOneHoldsDoesNotHoldAndTheFirstsEndTakesAll() {
        BurstHold hold = new BurstHold();
        assertThat(hold.hold()).isTrue();
        assertThat(hold.hold()).isFalse();
        assertThat(hold.holds()).isTrue();
        assertThat(hold.release()).isTrue();
    }

    /**
     * Hand-overs from other threads racing a burst's end: each is either held (and the end reports it) or taken by
     * its own caller; none is left with nobody to take it.
     */
    @Test
    void noHandOverIsLostWhenItRacesTheEndOfABurst() throws InterruptedException {
        for (int round = 0; round < 2_000; round++) {
            BurstHold hold = new BurstHold();
            assertThat(hold.hold()).isTrue();
            AtomicInteger takenByCaller = new AtomicInteger();
            AtomicInteger held = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            Thread other = new Thread(() -> {
                await(go);
                for (int i = 0; i < 3; i++) {
                    if (hold.holds()) {
                        held.incrementAndGet();
                    } else {
                        takenByCaller.incrementAndGet();
                    }
                }
            });
            other.start();
            go.countDown();
            boolean endTakes = hold.release();
            other.join();
            assertThat(held.get() + takenByCaller.get()).isEqualTo(3);
            assertThat(endTakes).isEqualTo(held.get() > 0);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
