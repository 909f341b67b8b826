package io.kflux.util;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void doublesFromTheInitialDelayWithJitterUpToTheMaximum() {
        Backoff backoff = new Backoff(50, 1_000);
        for (int round = 0; round < 200; round++) {
            assertThat(backoff.delayMs(1)).isBetween(40L, 60L);
            assertThat(backoff.delayMs(2)).isBetween(80L, 120L);
            assertThat(backoff.delayMs(4)).isBetween(320L, 480L);
            assertThat(backoff.delayMs(5)).isBetween(640L, 960L);
            assertThat(backoff.delayMs(6)).isBetween(800L, 1_000L);
            assertThat(backoff.delayMs(60)).isBetween(800L, 1_000L);
        }
    }

    @Test
    void zeroMeansNoBackoffAndEqualBoundsMeanAFixedJitteredDelay() {
        assertThat(new Backoff(0, 0).delayMs(5)).isZero();
        Backoff fixed = new Backoff(100, 100);
        for (int i = 1; i < 20; i++) {
            assertThat(fixed.delayMs(i)).isBetween(80L, 100L);
        }
    }
}
