package io.kflux.bench.runner;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The JVM counters every benchmark reports: heap bytes allocated per thread, process CPU time and CPU by thread
 * group, GC time, load average, and for the scale case threads, RSS, sockets and heap after GC. JDK only; the
 * per-thread-group CPU, RSS, thread and socket counts come from Linux's {@code /proc/self} (empty or -1 elsewhere).
 */
public final class JvmCounters {
    private JvmCounters() {
    }

    private static com.sun.management.ThreadMXBean threads() {
        return (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    }

    /** Time spent in collections (pauses and concurrent cycles) so far, all collectors, in ms. */
    public static long gcMillis() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionTime).filter(t -> t > 0).sum();
    }

    /** The system load average of the last minute (-1 where the OS does not tell). */
    public static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** Heap bytes allocated so far by each live thread, by thread id. */
    public static Map<Long, Long> allocatedByThread() {
        long[] ids = threads().getAllThreadIds();
        long[] allocated = threads().getThreadAllocatedBytes(ids);
        Map<Long, Long> byThread = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (allocated[i] >= 0) {
                byThread.put(ids[i], allocated[i]);
            }
        }
        return byThread;
    }

    /**
     * Heap bytes allocated since {@code before} (from {@link #allocatedByThread()}), summed over live threads: what a
     * thread that ended in between allocated is not counted, so read it before the client under test is closed.
     */
    public static long allocatedSince(Map<Long, Long> before) {
        long total = 0;
        for (Map.Entry<Long, Long> now : allocatedByThread().entrySet()) {
            total += now.getValue() - before.getOrDefault(now.getKey(), 0L);
        }
        return total;
    }

    /**
     * CPU time of the whole process (user + sys, every thread incl. JIT compilers and GC, ended threads too), in
     * ns, from {@code OperatingSystemMXBean.getProcessCpuTime}.
     */
    public static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Linux's USER_HZ, the unit of {@code /proc/<pid>/task/<tid>/stat}'s times: 100 on every common kernel. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    /**
     * CPU time (user + sys) of the live threads so far by group, in ns: {@code jit} (C1/C2 compiler threads),
     * {@code gc} (GC workers, G1 concurrent threads, VM thread) and {@code other} (the client's and the harness's
     * threads), read from {@code /proc/self/task/<tid>/stat} in 10 ms ticks. A thread that ended is missing, so
     * subtract {@code jit} and {@code gc} from {@link #processCpuNanos()} for the client's share. Empty without
     * {@code /proc}.
     */
    public static Map<String, Long> cpuByThreadGroup() {
        Map<String, Long> groups = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException ended) {
                    continue;
                }
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                String name = stat.substring(open + 1, close);
                // after ") ": state is field 3, utime field 14, stime field 15
                String[] fields = stat.substring(close + 2).split(" ");
                long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                groups.merge(group(name), ticks * NANOS_PER_TICK, Long::sum);
            }
        } catch (IOException | RuntimeException noProc) {
            return Map.of();
        }
        return groups;
    }

    private static String group(String threadName) {
        if (threadName.startsWith("C1 Compiler") || threadName.startsWith("C2 Compiler")) {
            return "jit";
        }
        if (threadName.startsWith("GC Thread") || threadName.startsWith("G1 ") || threadName.startsWith("VM Thread")
                || threadName.startsWith("GC ")) {
            return "gc";
        }
        return "other";
    }

    /** {@code now - before}, key by key, for counters such as {@link #cpuByThreadGroup()}. */
    public static Map<String, Long> since(Map<String, Long> before, Map<String, Long> now) {
        Map<String, Long> delta = new TreeMap<>();
        now.forEach((k, v) -> delta.put(k, v - before.getOrDefault(k, 0L)));
        return delta;
    }

    /** A field of {@code /proc/self/status} in its unit ({@code kB} for sizes), or -1 without {@code /proc}. */
    private static long status(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException noProc) {
            return -1;
        }
        return -1;
    }

    /** Resident set size of the process in bytes (-1 without {@code /proc}). */
    public static long rssBytes() {
        long kb = status("VmRSS");
        return kb < 0 ? -1 : kb * 1024;
    }

    /** Threads of the process, the JVM's own (GC, JIT, VM) included (-1 without {@code /proc}). */
    public static long osThreads() {
        return status("Threads");
    }

    /** Open sockets of the process (TCP connections and listeners alike; -1 without {@code /proc}). */
    public static long sockets() {
        long count = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    if (Files.readSymbolicLink(fd).toString().startsWith("socket:")) {
                        count++;
                    }
                } catch (IOException closed) {
                    // closed between listing and reading
                }
            }
        } catch (IOException | RuntimeException noProc) {
            return -1;
        }
        return count;
    }

    /** Heap in use right after two full collections, in bytes: what the live objects hold. */
    public static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** {@code --option value} pairs as a map. */
    public static Map<String, String> parseArgs(String[] args) {
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 == args.length) {
                throw new IllegalArgumentException("expected --option value pairs, got " + String.join(" ", args));
            }
            opts.put(args[i], args[i + 1]);
        }
        return opts;
    }
}
