package io.kflux.bench.runner;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/** The JVM counters every benchmark reports: heap bytes allocated per thread, GC time, load average. JDK only. */
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
