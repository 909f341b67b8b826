package io.kflux.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The longest record-free interval within a window, with gaps clipped at the window's ends. */
class RecordGapsTest {

    private static final long MS = 1_000_000;

    @Test
    void theLongestGapInsideTheWindowIsFound() {
        RecordGaps gaps = new RecordGaps(0);
        for (long t : new long[] {10, 12, 15, 40, 42, 44}) {
            gaps.record(t * MS);
        }
        assertThat(gaps.longestSilence(11 * MS, 44 * MS)).isEqualTo(25 * MS); // 15 -> 40
        assertThat(gaps.longestSilence(41 * MS, 44 * MS)).isEqualTo(2 * MS);
    }

    @Test
    void aGapCrossingAWindowEdgeCountsOnlyItsPartInside() {
        RecordGaps gaps = new RecordGaps(0);
        for (long t : new long[] {10, 11, 50, 51}) {
            gaps.record(t * MS);
        }
        assertThat(gaps.longestSilence(30 * MS, 51 * MS)).isEqualTo(20 * MS); // 30 -> 50 of the gap 11 -> 50
        assertThat(gaps.longestSilence(5 * MS, 20 * MS)).isEqualTo(9 * MS); // 11 -> 20
    }

    @Test
    void aSilenceStillOpenAtTheWindowsEndCountsUpToIt() {
        RecordGaps gaps = new RecordGaps(0);
        gaps.record(10 * MS);
        gaps.record(11 * MS);
        assertThat(gaps.longestSilence(10 * MS, 100 * MS)).isEqualTo(89 * MS);
        assertThat(gaps.longestSilence(20 * MS, 30 * MS)).isEqualTo(10 * MS); // no record at all in the window
    }

    @Test
    void theTimeBeforeTheFirstRecordIsASilence() {
        RecordGaps gaps = new RecordGaps(0);
        gaps.record(30 * MS);
        gaps.record(31 * MS);
        assertThat(gaps.longestSilence(0, 31 * MS)).isEqualTo(30 * MS);
    }

    @Test
    void recordsCloserThanTheResolutionLeaveNoGap() {
        RecordGaps gaps = new RecordGaps(0);
        for (long t = 0; t <= 10 * MS; t += RecordGaps.RESOLUTION_NANOS / 2) {
            gaps.record(t);
        }
        assertThat(gaps.longestSilence(0, 10 * MS)).isLessThan(RecordGaps.RESOLUTION_NANOS);
    }

    @Test
    void manyGapsAreAllKept() {
        RecordGaps gaps = new RecordGaps(0);
        for (long t = 1; t <= 1_000; t++) {
            gaps.record(t * MS);
        }
        gaps.record(1_007 * MS);
        gaps.record(1_008 * MS);
        assertThat(gaps.longestSilence(0, 1_008 * MS)).isEqualTo(7 * MS);
        assertThat(gaps.longestSilence(0, 1_000 * MS)).isEqualTo(MS);
    }
}
