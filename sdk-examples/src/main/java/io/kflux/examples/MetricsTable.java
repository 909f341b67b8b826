package io.kflux.examples;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The operator's view of a running consumer group, from the kflux meters in one registry (the names
 * {@code KafkaClientMetrics} gives the official consumer's): per member ({@code client.id}) the records per second
 * since the last table, from {@code kafka.consumer.fetch.manager.records.consumed.total}, and per partition the lag,
 * from {@code kafka.consumer.fetch.manager.records.lag}. {@link #render()} returns one plain text table.
 */
final class MetricsTable {
    private static final String CONSUMED = "kafka.consumer.fetch.manager.records.consumed.total";
    private static final String LAG = "kafka.consumer.fetch.manager.records.lag";

    private final MeterRegistry registry;
    private final Map<String, Double> consumedBefore = new HashMap<>();
    private long before = System.nanoTime();

    MetricsTable(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The table now; records/s count from the previous call. */
    String render() {
        long now = System.nanoTime();
        double seconds = Math.max(1e-3, (now - before) / 1e9);
        before = now;
        Map<String, Double> consumed = new TreeMap<>();
        for (FunctionCounter c : registry.find(CONSUMED).functionCounters()) {
            consumed.merge(c.getId().getTag("client.id"), c.count(), Double::sum); // summed over topics
        }
        Map<String, Map<String, Double>> lag = new TreeMap<>();
        for (Gauge g : registry.find(LAG).gauges()) {
            String partition = g.getId().getTag("topic") + "-" + g.getId().getTag("partition");
            lag.computeIfAbsent(g.getId().getTag("client.id"), k -> new TreeMap<>(MetricsTable::byPartition))
                    .put(partition, g.value());
        }
        StringBuilder out = new StringBuilder(String.format("%-16s %12s  %-20s %10s%n", "client.id", "records/s",
                "partition", "lag"));
        Map<String, Double> previous = new HashMap<>(consumedBefore);
        consumedBefore.clear();
        consumedBefore.putAll(consumed);
        java.util.Set<String> clients = new java.util.TreeSet<>(consumed.keySet());
        clients.addAll(lag.keySet());
        for (String client : clients) {
            double total = consumed.getOrDefault(client, 0.0);
            double rate = (total - previous.getOrDefault(client, total)) / seconds;
            Map<String, Double> partitions = lag.getOrDefault(client, Map.of());
            if (partitions.isEmpty()) {
                out.append(String.format("%-16s %12.0f  %-20s %10s%n", client, rate, "(none)", ""));
            }
            boolean first = true;
            for (Map.Entry<String, Double> p : partitions.entrySet()) {
                String lagText = Double.isNaN(p.getValue()) ? "?" : String.format("%,.0f", p.getValue());
                out.append(String.format("%-16s %12s  %-20s %10s%n", first ? client : "",
                        first ? String.format("%,.0f", rate) : "", p.getKey(), lagText));
                first = false;
            }
        }
        return out.toString();
    }

    /** "topic-3" before "topic-10". */
    private static int byPartition(String a, String b) {
        int da = a.lastIndexOf('-');
        int db = b.lastIndexOf('-');
        int byTopic = a.substring(0, da).compareTo(b.substring(0, db));
        return byTopic != 0 ? byTopic
                : Integer.compare(Integer.parseInt(a.substring(da + 1)), Integer.parseInt(b.substring(db + 1)));
    }
}
