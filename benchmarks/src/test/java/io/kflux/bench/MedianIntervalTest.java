package io.kflux.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Order-statistics confidence intervals of the median, against binomial tail values worked out by hand. */
class MedianIntervalTest {

    @Test
    void fifteenRoundsGiveTheFourthAndTwelfthValuesAt96Point5Percent() {
        double[] values = new double[15];
        for (int i = 0; i < 15; i++) {
            values[i] = 15 - i; // unsorted on purpose: 15, 14, ..., 1
        }
        MedianInterval mi = MedianInterval.of(values);
        assertThat(mi.median()).isEqualTo(8);
        assertThat(mi.low()).isEqualTo(4);
        assertThat(mi.high()).isEqualTo(12);
        // 1 - 2 * (1 + 15 + 105 + 455) / 2^15
        assertThat(mi.confidence()).isCloseTo(1 - 2 * 576 / 32768.0, within(1e-12));
    }

    @Test
    void samplesTooSmallForNinetyFivePercentGetTheirRangeAndItsCoverage() {
        MedianInterval five = MedianInterval.of(new double[] {3, 1, 5, 2, 4});
        assertThat(five.low()).isEqualTo(1);
        assertThat(five.high()).isEqualTo(5);
        assertThat(five.confidence()).isCloseTo(0.9375, within(1e-12));
        MedianInterval two = MedianInterval.of(new double[] {2, 4});
        assertThat(two.median()).isEqualTo(3);
        assertThat(two.confidence()).isCloseTo(0.5, within(1e-12));
    }

    @Test
    void everyRankChosenCoversAtLeastNinetyFivePercentFromSixValuesOn() {
        for (int n = 6; n <= 100; n++) {
            int k = MedianInterval.rank(n);
            assertThat(MedianInterval.coverage(n, k)).as("n=%d k=%d", n, k).isGreaterThanOrEqualTo(0.95);
            assertThat(MedianInterval.coverage(n, k + 1)).as("n=%d k+1", n).isLessThan(0.95);
        }
    }
}
