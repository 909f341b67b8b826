package io.kflux.bench;

import java.util.Arrays;

/**
 * The median of a sample and its distribution-free confidence interval from order statistics: with the sample
 * sorted, {@code [x(k), x(n-k+1)]} (1-based) covers the population median with probability
 * {@code 1 - 2 P(B <= k-1)}, B ~ Binomial(n, 1/2), whatever the distribution. {@code k} is the largest for which
 * that is at least 95 %; samples under 6 cannot reach 95 %, so they get their whole range and its lower
 * {@link #confidence()} (93.75 % for 5, 87.5 % for 4).
 *
 * @param median     the sample median (mean of the middle two for an even size)
 * @param low        the interval's lower end
 * @param high       the interval's upper end
 * @param confidence the interval's coverage, 0 to 1 (0 for a sample of 1)
 */
record MedianInterval(double median, double low, double high, double confidence) {

    static final double TARGET = 0.95;

    /** @throws IllegalArgumentException on an empty sample */
    static MedianInterval of(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        double median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        int k = rank(n);
        return new MedianInterval(median, s[k - 1], s[n - k], coverage(n, k));
    }

    /** The rank k (1-based) of the interval's lower end for a sample of n: the largest with 95 % coverage, or 1. */
    static int rank(int n) {
        int k = 1;
        while (k + 1 <= (n + 1) / 2 && coverage(n, k + 1) >= TARGET) {
            k++;
        }
        return k;
    }

    /** {@code 1 - 2 P(B <= k-1)}, B ~ Binomial(n, 1/2). */
    static double coverage(int n, int k) {
        double tail = 0;
        double term = Math.pow(0.5, n); // P(B = 0)
        for (int i = 0; i < k; i++) {
            tail += term;
            term = term * (n - i) / (i + 1);
        }
        return Math.max(0, 1 - 2 * tail);
    }
}
