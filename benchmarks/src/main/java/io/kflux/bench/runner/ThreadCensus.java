package io.kflux.bench.runner;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The live Java threads of a benchmark JVM counted by name, and whose they are: the JVM's own, the benchmark's own,
 * or the client's (every other one), so that a client's thread count can be given with and without the first two.
 * A name is counted with its digits dropped ({@code kflux-emit-3} as {@code kflux-emit-}) and kafka-clients' tail
 * ({@code " | <client or group id>"}) cut, so threads of one pool count under one name.
 */
public final class ThreadCensus {

    /** Whose a thread is. */
    public enum Owner { JVM, BENCHMARK, CLIENT }

    /** The JDK's own Java threads (those JMX lists; the compiler threads are hidden from it). */
    private static final Set<String> JVM = Set.of("Reference Handler", "Finalizer", "Signal Dispatcher",
            "Common-Cleaner", "Notification Thread", "Attach Listener", "process reaper", "DestroyJavaVM",
            "Service Thread", "Monitor Deflation Thread", "Sweeper thread");
    /** The name of the processing handlers' timer thread (digits dropped: {@code bench-delay-1} is counted so). */
    public static final String HANDLER_TIMER_NAME = "bench-delay";
    /**
     * The benchmark runners' own: the main thread, the processing probe's sampler, the profiler's trigger, the
     * processing handlers' timer.
     */
    private static final Set<String> BENCHMARK = Set.of("main", "probe-sampler", "tally-quarter",
            HANDLER_TIMER_NAME + "-");

    private ThreadCensus() {
    }

    /** The live threads by name, digits dropped, sorted by name. */
    public static Map<String, Long> byName() {
        return Thread.getAllStackTraces().keySet().stream().collect(Collectors.groupingBy(t -> name(t.getName()),
                TreeMap::new, Collectors.counting()));
    }

    static String name(String threadName) {
        int bar = threadName.indexOf(" | ");
        return (bar < 0 ? threadName : threadName.substring(0, bar)).replaceAll("[0-9]+", "");
    }

    /** Whose the threads of a name of {@link #byName()} are. */
    public static Owner owner(String name) {
        return JVM.contains(name) ? Owner.JVM : BENCHMARK.contains(name) ? Owner.BENCHMARK : Owner.CLIENT;
    }

    /**
     * {@code name:count,...} with no space (a result line's value): spaces in names become {@code +}, commas
     * {@code ;}.
     */
    public static String encode(Map<String, Long> byName) {
        return byName.entrySet().stream()
                .map(e -> e.getKey().replace(' ', '+').replace(',', ';') + ":" + e.getValue())
                .collect(Collectors.joining(","));
    }

    /** The inverse of {@link #encode}, names with their spaces back (commas stay {@code ;}). */
    public static Map<String, Long> decode(String encoded) {
        Map<String, Long> byName = new TreeMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return byName;
        }
        for (String entry : encoded.split(",")) {
            int colon = entry.lastIndexOf(':');
            byName.put(entry.substring(0, colon).replace('+', ' '), Long.parseLong(entry.substring(colon + 1)));
        }
        return byName;
    }

    /** The threads of each owner, and of the client by name: {@code JVM 5, benchmark 2, client 11 (a: 3, b: 8)}. */
    public static String summary(Map<String, Long> byName) {
        Map<Owner, Long> byOwner = byName.entrySet().stream().collect(Collectors.groupingBy(e -> owner(e.getKey()),
                () -> new java.util.EnumMap<>(Owner.class), Collectors.summingLong(Map.Entry::getValue)));
        String client = byName.entrySet().stream().filter(e -> owner(e.getKey()) == Owner.CLIENT)
                .map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining(", "));
        return String.format("JVM %d, benchmark %d, client %d (%s)", byOwner.getOrDefault(Owner.JVM, 0L),
                byOwner.getOrDefault(Owner.BENCHMARK, 0L), byOwner.getOrDefault(Owner.CLIENT, 0L), client);
    }

    /** The client's threads: every thread but the JVM's and the benchmark's own. */
    public static long client(Map<String, Long> byName) {
        return byName.entrySet().stream().filter(e -> owner(e.getKey()) == Owner.CLIENT)
                .mapToLong(Map.Entry::getValue).sum();
    }
}
