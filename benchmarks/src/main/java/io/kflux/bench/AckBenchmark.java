package io.kflux.bench;

import io.kflux.commit.AckTracker;
import java.util.Random;

/**
 * Cost of {@code ConsumerRecord.acknowledge()} bookkeeping: one {@link AckTracker} acknowledging
 * {@code n} offsets (1,000,000 by default) in order, in reverse order (the worst case for the
 * interval map: nothing joins the prefix until the very last acknowledgement), and in a shuffled
 * order (parallel processing). Prints ns per acknowledgement for each, after warm-up rounds, and
 * checks that every run ends with the whole range committable and nothing pending.
 *
 * <p>Run: {@code mvn -o -pl benchmarks exec:exec@bench -Dbench.main=io.kflux.bench.AckBenchmark
 * -Dbench.args="1000000 5"} (records, measured rounds).
 */
public final class AckBenchmark {

    private AckBenchmark() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        long[] inOrder = new long[n];
        long[] reverse = new long[n];
        for (int i = 0; i < n; i++) {
            inOrder[i] = i;
            reverse[i] = n - 1 - i;
        }
        long[] shuffled = inOrder.clone();
        shuffle(shuffled, new Random(42));

        System.out.printf("AckTracker: %,d acknowledgements per run, %d warm-up + %d measured rounds (best shown)%n",
                n, 3, rounds);
        report("in order", inOrder, rounds);
        report("shuffled", shuffled, rounds);
        report("reverse ", reverse, rounds);
    }

    private static void report(String name, long[] order, int rounds) {
        for (int i = 0; i < 3; i++) {
            run(order);
        }
        long best = Long.MAX_VALUE;
        int maxPending = 0;
        for (int i = 0; i < rounds; i++) {
            long[] result = run(order);
            best = Math.min(best, result[0]);
            maxPending = (int) Math.max(maxPending, result[1]);
        }
        System.out.printf("  %s: %7.1f ns/ack  (%,.0f acks/s; at most %,d bit chunks or skipped ranges held)%n", name,
                (double) best / order.length, order.length * 1e9 / best, maxPending);
    }

    /** @return {elapsed nanos, most intervals pending at a sample point} */
    private static long[] run(long[] order) {
        AckTracker tracker = new AckTracker(0);
        int sampleEvery = Math.max(1, order.length / 64);
        long maxPending = 0;
        long start = System.nanoTime();
        for (int i = 0; i < order.length; i++) {
            tracker.acknowledge(order[i]);
            if (i % sampleEvery == 0) {
                maxPending = Math.max(maxPending, tracker.pendingIntervals()); // O(1): TreeMap.size()
            }
        }
        long elapsed = System.nanoTime() - start;
        if (tracker.committable() != order.length || tracker.pendingIntervals() != 0) {
            throw new AssertionError("wrong result: committable " + tracker.committable() + ", pending "
                    + tracker.pendingIntervals());
        }
        return new long[] {elapsed, maxPending};
    }

    private static void shuffle(long[] a, Random random) {
        for (int i = a.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}
