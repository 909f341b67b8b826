package io.kflux.bench;

import io.kflux.bench.BenchmarkSuite.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a forked JVM's wall time went, from the suite's clock around the process and the phases its result line
 * gives: JVM start (its age when the harness began), warm-up, the pause before the measured consumer (a
 * {@code System.gc()} and 200 ms), set-up (consumer creation to first record), the measured window, closing the
 * consumer, and the rest (verification, printing, JVM exit, the suite reading the output). Collected over a run and
 * printed as one table at its end, so that the plan's model ({@link SuitePlan}) can be checked against it.
 */
final class JvmTimings {

    private static final String[] PHASES = {"start", "warm-up", "pause", "set-up", "window", "close", "rest"};

    /** Summed phases (s) and JVM counts, by step label then contender. */
    private final Map<String, Map<String, double[]>> sums = new LinkedHashMap<>();

    /** The phases of one drain or e2e JVM in s, in {@link #PHASES} order; e2e and scale JVMs have start and rest. */
    static double[] phases(Result r) {
        double wall = r.get("wallNanos") / 1e9;
        double start = r.fields().containsKey("jvmStartMillis") ? r.get("jvmStartMillis") / 1e3 : 0;
        double harness = r.fields().containsKey("harnessNanos") ? r.get("harnessNanos") / 1e9 : wall - start;
        double[] p = new double[PHASES.length];
        p[0] = start;
        if (r.fields().containsKey("closeNanos")) {
            p[1] = r.get("warmupNanos") / 1e9;
            p[2] = r.get("pauseNanos") / 1e9;
            p[3] = r.get("setupNanos") / 1e9;
            p[4] = r.get("nanos") / 1e9;
            p[5] = r.get("closeNanos") / 1e9;
        } else {
            p[4] = harness; // e2e and scale: the warm-up and measured seconds the suite asked for, and set-up
        }
        double inside = p[1] + p[2] + p[3] + p[4] + p[5];
        p[6] = wall - start - inside;
        return p;
    }

    /** The one-line split of a JVM's wall time, for the per-run output. */
    static String line(Result r) {
        double[] p = phases(r);
        StringBuilder b = new StringBuilder(String.format("JVM %.1f s:", r.get("wallNanos") / 1e9));
        for (int i = 0; i < PHASES.length; i++) {
            if (p[i] != 0) {
                b.append(String.format(" %s %.2f", PHASES[i], p[i]));
            }
        }
        return b.toString();
    }

    void add(String step, Result r) {
        double[] p = phases(r);
        double[] sum = sums.computeIfAbsent(step, k -> new LinkedHashMap<>())
                .computeIfAbsent(r.client(), k -> new double[PHASES.length + 2]);
        for (int i = 0; i < PHASES.length; i++) {
            sum[i] += p[i];
        }
        sum[PHASES.length] += r.get("wallNanos") / 1e9;
        sum[PHASES.length + 1]++;
    }

    /** Prints the mean split per JVM of each step and contender, and each one's total. */
    void print() {
        if (sums.isEmpty()) {
            return;
        }
        System.out.println();
        System.out.println("Where the time went (mean seconds per JVM; total over the JVMs of the row):");
        System.out.println();
        List<String> head = new ArrayList<>(List.of("step", "contender", "JVMs", "wall"));
        head.addAll(List.of(PHASES));
        head.add("total");
        System.out.println("| " + String.join(" | ", head) + " |");
        System.out.println("|---".repeat(head.size()) + "|");
        double all = 0;
        for (Map.Entry<String, Map<String, double[]>> step : sums.entrySet()) {
            for (Map.Entry<String, double[]> e : step.getValue().entrySet()) {
                double[] s = e.getValue();
                double n = s[PHASES.length + 1];
                StringBuilder row = new StringBuilder(String.format("| %s | %s | %.0f | %.1f", step.getKey(),
                        e.getKey(), n, s[PHASES.length] / n));
                for (int i = 0; i < PHASES.length; i++) {
                    row.append(String.format(" | %.2f", s[i] / n));
                }
                row.append(String.format(" | %s |", SuitePlan.minutes(s[PHASES.length])));
                all += s[PHASES.length];
                System.out.println(row);
            }
        }
        System.out.printf("%nforked JVMs in all: %s%n", SuitePlan.minutes(all));
    }
}
