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
                           double fetchTimeMsSum, long bytesOut) {

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
        long cpu = 0;
        for (long pid : pids) {
            cpu += ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration()).map(d -> d.toNanos()).orElse(0L);
        }
        Map<String, Long> requests = new TreeMap<>();
        long fetchCount = 0;
        double fetchSum = 0;
        long bytesOut = 0;
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
                if (s.isRegistered(fetchTime)) {
                    long count = ((Number) s.getAttribute(fetchTime, "Count")).longValue();
                    fetchCount += count;
                    fetchSum += count * ((Number) s.getAttribute(fetchTime, "Mean")).doubleValue();
                }
            }
        } catch (javax.management.JMException e) {
            throw new IOException("cannot read the brokers' request metrics", e);
        }
        return new Snapshot(System.nanoTime(), cpu, requests, fetchCount, fetchSum, bytesOut);
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
