package io.kflux.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The one-core run's CPU affinity, by Linux's {@code taskset}: a contender JVM is started under
 * {@code taskset -c <cpu>} (so it sees one CPU from its first instruction), the broker's JVM and the suite's own
 * (producer, admin) are moved with {@code taskset -a -p} (every existing thread; new threads inherit it).
 */
final class CpuPinning {

    private CpuPinning() {
    }

    /** The prefix that starts a command on {@code cpus} (a taskset list such as {@code 0} or {@code 0-1}). */
    static List<String> prefix(String cpus) {
        return List.of("taskset", "-c", cpus);
    }

    /**
     * The CPUs this JVM could use when the class was loaded (before any pinning: once pinned, the JVM sees only
     * the CPU it was pinned to), as a taskset list.
     */
    private static final String ALL_CPUS = "0-" + (Runtime.getRuntime().availableProcessors() - 1);

    /** Every CPU the suite had before it pinned anything, as a taskset list. */
    static String allCpus() {
        return ALL_CPUS;
    }

    /**
     * Moves every thread of this JVM and of every process it started so far (the embedded broker) to {@code cpus}.
     *
     * @throws IllegalStateException when taskset fails or is missing
     */
    static void pinSelfAndChildren(String cpus) throws IOException, InterruptedException {
        List<Long> pids = new ArrayList<>();
        pids.add(ProcessHandle.current().pid());
        ProcessHandle.current().descendants().forEach(p -> pids.add(p.pid()));
        for (long pid : pids) {
            Process taskset = new ProcessBuilder("taskset", "-a", "-p", "-c", cpus, Long.toString(pid))
                    .redirectErrorStream(true).start();
            String out = new String(taskset.getInputStream().readAllBytes());
            if (taskset.waitFor() != 0) {
                throw new IllegalStateException("taskset -a -p -c " + cpus + " " + pid + " failed: " + out);
            }
        }
        System.out.printf("pinned the suite and the broker (pids %s) to CPU %s%n", pids, cpus);
    }
}
