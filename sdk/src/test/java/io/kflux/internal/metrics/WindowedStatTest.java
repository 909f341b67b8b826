package io.kflux.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class WindowedStatTest {
    private static final long S = 1_000_000_000L;
    private static final long T0 = 1_000 * S;

    @Test
    void avgMaxAndTotalsOverTheLiveWindows() {
        WindowedStat stat = new WindowedStat(T0);
        assertThat(stat.avg(T0)).isNaN();
        assertThat(stat.max(T0)).isNaN();
        stat.record(10, T0 + S);
        stat.record(30, T0 + 2 * S);
        assertThat(stat.avg(T0 + 3 * S)).isEqualTo(20.0);
        assertThat(stat.max(T0 + 3 * S)).isEqualTo(30.0);
        // a second window: both still count
        stat.record(2, T0 + 31 * S);
        assertThat(stat.avg(T0 + 32 * S)).isEqualTo(14.0);
        assertThat(stat.max(T0 + 32 * S)).isEqualTo(30.0);
        assertThat(stat.totalCount()).isEqualTo(3);
        assertThat(stat.totalSum()).isEqualTo(42.0);
    }

    @Test
    void minOverTheLiveWindows() {
        WindowedStat stat = new WindowedStat(T0);
        assertThat(stat.min(T0)).isNaN();
        stat.record(7, T0 + S);
        stat.record(3, T0 + 2 * S);
        stat.record(9, T0 + 31 * S);
        assertThat(stat.min(T0 + 32 * S)).isEqualTo(3.0);
        // the first window (with 3) expires at T0 + 60 s
        assertThat(stat.min(T0 + 61 * S)).isEqualTo(9.0);
        assertThat(stat.min(T0 + 95 * S)).isNaN();
    }

    @Test
    void windowsOlderThanTwoWindowLengthsAreForgottenButTotalsStay() {
        WindowedStat stat = new WindowedStat(T0);
        stat.record(100, T0 + S);
        stat.record(1, T0 + 31 * S);
        // the first window (started at T0) expires at T0 + 60 s; the second (T0 + 31 s) at T0 + 91 s
        assertThat(stat.max(T0 + 61 * S)).isEqualTo(1.0);
        assertThat(stat.avg(T0 + 95 * S)).isNaN();
        assertThat(stat.totalCount()).isEqualTo(2);
        assertThat(stat.totalSum()).isEqualTo(101.0);
    }

    @Test
    void rateCountsPerSecondOverAtLeastOneWindow() {
        WindowedStat stat = new WindowedStat(T0);
        for (int i = 0; i < 60; i++) {
            stat.record(5, T0 + i * S / 2); // 2 per second for 30 s
        }
        assertThat(stat.rate(T0 + 30 * S, false)).isCloseTo(2.0, within(0.1));
        assertThat(stat.rate(T0 + 30 * S, true)).isCloseTo(10.0, within(0.5));
        // one recording just after creation: spread over a whole window, not over the few nanos elapsed
        WindowedStat fresh = new WindowedStat(T0);
        fresh.record(1, T0 + 1);
        assertThat(fresh.rate(T0 + 2, false)).isCloseTo(1.0 / 30, within(1e-9));
    }
}
