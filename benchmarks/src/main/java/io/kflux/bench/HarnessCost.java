package io.kflux.bench;

import io.kflux.bench.runner.Tally;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * What the suite's per-record verification costs on its own, without any client: {@link Tally#add} (CRC32C of key and
 * value, one clock read, the offset checks) called in a loop on one thread, its CPU time per call printed for 8
 * rounds of 8 M calls (the first rounds include the JIT). Every drain contender pays this per record, so it is the
 * part of their CPU figures no client can take out (issue #28: how far a 0.5x ratio is). Run it pinned, as the
 * contenders are: {@code taskset -c 0 java -cp benchmarks/target/classes io.kflux.bench.HarnessCost <key bytes>}
 * ({@code -1}: a null key as case 1; {@code 16} as 4-keys); values are 100 bytes, as the suite's.
 */
public final class HarnessCost {
    private static final int PARTITIONS = 8;
    private static final long OFFSETS = 1_000_000L;
    private static final int ROUNDS = 8;

    private HarnessCost() {
    }

    public static void main(String[] args) {
        int keyBytes = args.length > 0 ? Integer.parseInt(args[0]) : -1;
        byte[] key = keyBytes < 0 ? null : new byte[keyBytes];
        byte[] value = new byte[100];
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int round = 0; round < ROUNDS; round++) {
            Tally tally = new Tally("harness", PARTITIONS, OFFSETS, 1, 0, false, false);
            long cpuBefore = threads.getCurrentThreadCpuTime();
            for (long offset = 0; offset < OFFSETS; offset++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    tally.add(p, offset, key, value);
                }
            }
            long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
            System.out.printf("round %d: %.1f ns of CPU per Tally.add (key %d bytes, value %d bytes)%n", round,
                    (double) cpu / (PARTITIONS * OFFSETS), keyBytes, value.length);
        }
    }
}
