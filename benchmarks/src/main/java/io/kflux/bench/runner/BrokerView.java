package io.kflux.bench.runner;

import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * What the embedded brokers do for a contender, read from their own side: their process CPU time and the requests
 * they were sent, by API ({@code kafka.network:type=RequestMetrics,name=RequestsPerSec,request=*}, summed over
 * versions and over the broker JVMs). The broker JVMs are forked by the suite without a JMX port, so this attaches
 * to each by its pid (the JDK's attach API, same user) and starts its local management agent. Fetches are also
 * split by how long the broker held them ({@code TotalTimeMs} of {@code FetchConsumer}: a window's mean, from the
 * histogram's count and mean before and after), which tells long polls from immediate answers, and the bytes they
 * sent in Fetch answers ({@code BytesOutPerSec}). JDK only (attach API, JMX): it runs in every contender JVM.
 */
public final class BrokerView implements AutoCloseable {

    /** One reading: cumulative counts, so that two readings give a window's rates. */
    public record Snapshot(long nanos, long cpuNanos, Map<String, Long> requests, long fetchCount,
                           double fetchTimeMsSum, long bytesOut, Map<String, Long> threadCpuNanos,
                           long fetchSessions, long connectionsCreated, long sessionEvictions,
                           double fetchLocalMsSum) {

        /**
         * The time the brokers' request threads spent on consumers' Fetches between {@code before} and this reading,
         * ms ({@code LocalTimeMs} of {@code FetchConsumer}: from the requests' count and mean, as
         * {@link #fetchMeanMsSince}); the long poll's wait is not in it, the answer's send is not either.
         */
        public double fetchLocalMsSince(Snapshot before) {
            return fetchLocalMsSum - before.fetchLocalMsSum;
        }

        /** Connections the brokers accepted between {@code before} and this reading (every listener). */
        public long connectionsCreatedSince(Snapshot before) {
            return connectionsCreated - before.connectionsCreated;
        }

        /** Incremental fetch sessions the brokers evicted from their cache between {@code before} and this reading. */
        public long sessionEvictionsSince(Snapshot before) {
            return sessionEvictions - before.sessionEvictions;
        }

        /**
         * The brokers' CPU between {@code before} and this reading by thread name (digits dropped, spaces as
         * {@code _}; Linux truncates names to 15 characters), the {@code top} largest, as {@code name:ms;name:ms}.
         */
        public String threadCpuSince(Snapshot before, int top) {
            Map<String, Long> delta = new TreeMap<>();
            threadCpuNanos.forEach((name, n) -> delta.put(name, n - before.threadCpuNanos.getOrDefault(name, 0L)));
            StringBuilder b = new StringBuilder();
            delta.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                    .forEach(e -> b.append(b.length() == 0 ? "" : ";").append(e.getKey()).append(':')
                            .append(e.getValue() / 1_000_000));
            return b.length() == 0 ? "-" : b.toString();
        }

        /** The brokers' JIT compiler threads' CPU between {@code before} and this reading, ns. */
        public long jitNanosSince(Snapshot before) {
            long n = 0;
            for (Map.Entry<String, Long> e : threadCpuNanos.entrySet()) {
                if (e.getKey().startsWith("C_CompilerThre")) { // C1/C2 CompilerThread, digits dropped
                    n += e.getValue() - before.threadCpuNanos.getOrDefault(e.getKey(), 0L);
                }
            }
            return n;
        }

        /** Requests of {@code api} between {@code before} and this reading. */
        public long requestsSince(Snapshot before, String api) {
            return requests.getOrDefault(api, 0L) - before.requests.getOrDefault(api, 0L);
        }

        /** Requests per second of each API between {@code before} and this reading, over {@code divisor} (e.g. consumers). */
        public Map<String, Double> ratesSince(Snapshot before, double divisor) {
            double seconds = (nanos - before.nanos) / 1e9;
            Map<String, Double> rates = new TreeMap<>();
            requests.forEach((api, n) -> {
                long d = n - before.requests.getOrDefault(api, 0L);
                if (d > 0) {
                    rates.put(api, d / seconds / divisor);
                }
            });
            return rates;
        }

        /** Requests of each API between {@code before} and this reading, over {@code divisor} (e.g. consumers). */
        public Map<String, Double> countsSince(Snapshot before, double divisor) {
            Map<String, Double> counts = new TreeMap<>();
            requests.forEach((api, n) -> {
                long d = n - before.requests.getOrDefault(api, 0L);
                if (d > 0) {
                    counts.put(api, d / divisor);
                }
            });
            return counts;
        }

        /** Mean time the brokers took to answer a consumer's Fetch between {@code before} and this reading, ms. */
        public double fetchMeanMsSince(Snapshot before) {
            long n = fetchCount - before.fetchCount;
            return n == 0 ? Double.NaN : (fetchTimeMsSum - before.fetchTimeMsSum) / n;
        }
    }

    private final List<Long> pids;
    private final List<JMXConnector> connectors = new ArrayList<>();
    private final List<MBeanServerConnection> servers = new ArrayList<>();

    /** Attaches to the broker JVMs {@code pids} (none: every reading is empty). */
    public BrokerView(List<Long> pids) throws IOException {
        this.pids = List.copyOf(pids);
        for (long pid : pids) {
            try {
                VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
                String address;
                try {
                    address = vm.startLocalManagementAgent();
                } finally {
                    vm.detach();
                }
                JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL(address));
                connectors.add(c);
                servers.add(c.getMBeanServerConnection());
            } catch (com.sun.tools.attach.AttachNotSupportedException e) {
                throw new IOException("cannot attach to broker JVM " + pid, e);
            }
        }
    }

    /** The broker JVMs' process CPU time so far (every thread), ns. */
    public long cpuNanos() {
        long cpu = 0;
        for (long pid : pids) {
            cpu += ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration()).map(d -> d.toNanos()).orElse(0L);
        }
        return cpu;
    }

    /** The pids a {@code --broker-pids 1,2} option names (empty when absent). */
    public static List<Long> pids(String option) {
        if (option == null || option.isBlank()) {
            return List.of();
        }
        return java.util.Arrays.stream(option.split(",")).map(Long::parseLong).toList();
    }

    /** The suite's children right after the embedded cluster started: its broker JVMs. */
    public static String childPids() {
        return String.join(",", ProcessHandle.current().children().map(p -> Long.toString(p.pid())).toList());
    }

    public Snapshot read() throws IOException {
        long cpu = cpuNanos();
        Map<String, Long> requests = new TreeMap<>();
        long fetchCount = 0;
        double fetchSum = 0;
        long bytesOut = 0;
        long sessions = 0;
        long connections = 0;
        long evictions = 0;
        double fetchLocal = 0;
        try {
            for (MBeanServerConnection s : servers) {
                for (ObjectName n : s.queryNames(new ObjectName(
                        "kafka.network:type=RequestMetrics,name=RequestsPerSec,*"), null)) {
                    long count = ((Number) s.getAttribute(n, "Count")).longValue();
                    requests.merge(n.getKeyProperty("request"), count, Long::sum);
                }
                ObjectName fetchTime = new ObjectName(
                        "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=FetchConsumer");
                ObjectName out = new ObjectName("kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec");
                if (s.isRegistered(out)) {
                    bytesOut += ((Number) s.getAttribute(out, "Count")).longValue();
                }
                ObjectName cached = new ObjectName(
                        "kafka.server:type=FetchSessionCache,name=NumIncrementalFetchSessions");
                if (s.isRegistered(cached)) {
                    sessions += ((Number) s.getAttribute(cached, "Value")).longValue();
                }
                ObjectName evicted = new ObjectName(
                        "kafka.server:type=FetchSessionCache,name=IncrementalFetchSessionEvictionsPerSec");
                if (s.isRegistered(evicted)) {
                    evictions += ((Number) s.getAttribute(evicted, "Count")).longValue();
                }
                // one per listener and network thread; reconnects show as creations beyond the clients' sockets
                for (ObjectName n : s.queryNames(new ObjectName("kafka.server:type=socket-server-metrics,*"), null)) {
                    if (n.getKeyProperty("networkProcessor") != null) {
                        try {
                            connections += ((Number) s.getAttribute(n, "connection-creation-total")).longValue();
                        } catch (javax.management.AttributeNotFoundException olderBroker) {
                            // not every broker version has it: no count
                        }
                    }
                }
                ObjectName local = new ObjectName(
                        "kafka.network:type=RequestMetrics,name=LocalTimeMs,request=FetchConsumer");
                if (s.isRegistered(local)) {
                    fetchLocal += ((Number) s.getAttribute(local, "Count")).longValue()
                            * ((Number) s.getAttribute(local, "Mean")).doubleValue();
                }
                if (s.isRegistered(fetchTime)) {
                    long count = ((Number) s.getAttribute(fetchTime, "Count")).longValue();
                    fetchCount += count;
                    fetchSum += count * ((Number) s.getAttribute(fetchTime, "Mean")).doubleValue();
                }
            }
        } catch (javax.management.JMException e) {
            throw new IOException("cannot read the brokers' request metrics", e);
        }
        Map<String, Long> threads = new TreeMap<>();
        for (long pid : pids) {
            threadCpu(pid, threads);
        }
        return new Snapshot(System.nanoTime(), cpu, requests, fetchCount, fetchSum, bytesOut, threads, sessions,
                connections, evictions, fetchLocal);
    }

    /**
     * {@code {count, total ms}} of the requests of {@code request} (e.g. {@code ShareFetch}) the brokers answered so
     * far, by {@code TotalTimeMs} (received to answer sent, the broker's view of a round trip): two readings give a
     * window's mean. Zeros where the brokers have no such metric yet.
     */
    public double[] totalTimeMs(String request) throws IOException {
        return requestTimeMs("TotalTimeMs", request);
    }

    /**
     * As {@link #totalTimeMs} for one part of a request's time ({@code RequestQueueTimeMs}, {@code LocalTimeMs},
     * {@code RemoteTimeMs}: held in purgatory, e.g. a long poll or a share-group state write, {@code ResponseQueueTimeMs},
     * {@code ResponseSendTimeMs}).
     */
    public double[] requestTimeMs(String metric, String request) throws IOException {
        double[] out = new double[2];
        try {
            ObjectName n = new ObjectName("kafka.network:type=RequestMetrics,name=" + metric + ",request=" + request);
            for (MBeanServerConnection s : servers) {
                if (s.isRegistered(n)) {
                    long count = ((Number) s.getAttribute(n, "Count")).longValue();
                    out[0] += count;
                    out[1] += count * ((Number) s.getAttribute(n, "Mean")).doubleValue();
                }
            }
        } catch (javax.management.JMException e) {
            throw new IOException("cannot read the brokers' request metrics", e);
        }
        return out;
    }

    /** Adds {@code pid}'s threads' CPU (user + sys, 10 ms ticks from {@code /proc}) by name; nothing without it. */
    private static void threadCpu(long pid, Map<String, Long> byName) {
        try (java.nio.file.DirectoryStream<java.nio.file.Path> tasks =
                     java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/proc/" + pid + "/task"))) {
            for (java.nio.file.Path task : tasks) {
                String stat;
                try {
                    stat = java.nio.file.Files.readString(task.resolve("stat"));
                } catch (IOException ended) {
                    continue;
                }
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                String name = stat.substring(open + 1, close).replaceAll("[0-9]+", "").replace(' ', '_');
                String[] fields = stat.substring(close + 2).split(" ");
                long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                byName.merge(name, ticks * 10_000_000L, Long::sum);
            }
        } catch (IOException | RuntimeException noProc) {
            // no /proc: no split by thread
        }
    }

    /**
     * Waits until the brokers' JIT has settled: until their compiler threads used less than 2 % of a core over
     * {@code stepMillis}, at most {@code maxMillis}. A broker that just started, or met a new kind of load, compiles
     * for tens of seconds (7 s of CPU in a 20 s window of the scale case when the first contender ran right after
     * the broker started, against 0.2 s for the next one): measured, that is the order of the contenders, not what
     * they cost the broker. Returns how long it waited, ms.
     */
    public long awaitQuietJit(long stepMillis, long maxMillis) throws IOException, InterruptedException {
        long start = System.nanoTime();
        Snapshot before = read();
        while ((System.nanoTime() - start) / 1_000_000 < maxMillis) {
            Thread.sleep(stepMillis);
            Snapshot now = read();
            if (now.jitNanosSince(before) < stepMillis * 1_000_000L / 50) {
                break;
            }
            before = now;
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** {@code api=rate;api=rate} with 3 decimals, for a result line (no spaces, no '='-free parsing needed). */
    public static String format(Map<String, Double> rates) {
        StringBuilder b = new StringBuilder();
        rates.forEach((api, r) -> b.append(b.length() == 0 ? "" : ";").append(api).append(':')
                .append(String.format(java.util.Locale.ROOT, "%.3f", r)));
        return b.length() == 0 ? "-" : b.toString();
    }

    @Override
    public void close() throws IOException {
        for (JMXConnector c : connectors) {
            c.close();
        }
    }
}
