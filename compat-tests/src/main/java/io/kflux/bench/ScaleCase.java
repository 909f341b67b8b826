package io.kflux.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The suite's scale case: a topic of N partitions under a low, steady total produce rate, and per round one JVM
 * per contender holding N consumers of one partition each ({@link ScaleRunner}); kflux against N official
 * consumers, alternating, the first one rotating from round to round.
 */
final class ScaleCase {

    static final List<String> CLIENTS = List.of("kflux", "official");
    /** Partitions created per admin operation: a KRaft controller refuses an operation of over 10,000 records. */
    private static final int PARTITIONS_PER_STEP = 5_000;

    private ScaleCase() {
    }

    static Map<String, List<BenchmarkSuite.Result>> run(BenchmarkSuite.Runner runner, String servers,
                                                        List<String> suiteClients, Map<String, String> opts)
            throws Exception {
        int consumers = Integer.parseInt(opts.getOrDefault("--scale-consumers", "100"));
        int rate = Integer.parseInt(opts.getOrDefault("--scale-rate", "1000"));
        int rounds = Integer.parseInt(opts.getOrDefault("--scale-rounds", "5"));
        String warmup = opts.getOrDefault("--scale-warmup-seconds", "10");
        String measure = opts.getOrDefault("--scale-seconds", "30");
        List<String> clients = new ArrayList<>(CLIENTS.stream().filter(suiteClients::contains).toList());
        String topic = "suite-scale-" + consumers;
        System.out.printf("%ncase scale: %d consumers of one partition each in one JVM, %,d records/s in total,"
                + " %s s measured after %s s, %d rounds, contenders %s%n", consumers, rate, measure, warmup, rounds,
                clients);
        Map<String, List<BenchmarkSuite.Result>> results = new LinkedHashMap<>();
        if (clients.isEmpty()) {
            return results;
        }
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers))) {
            if (!admin.listTopics().names().get().contains(topic)) {
                // A KRaft controller refuses one operation of more than 10,000 records ("excessively large batch
                // operation"), and a topic's creation is a record per partition: larger topics grow in steps.
                int created = Math.min(consumers, PARTITIONS_PER_STEP);
                admin.createTopics(List.of(new NewTopic(topic, created, (short) 1))).all().get();
                while (created < consumers) {
                    created = Math.min(consumers, created + PARTITIONS_PER_STEP);
                    admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(created))).all().get();
                }
            }
        }
        try (FixedRateProducer producer =
                     new FixedRateProducer(servers, topic, consumers, rate)) {
            for (int round = 1; round <= rounds; round++) {
                List<String> order = new ArrayList<>(clients);
                Collections.rotate(order, -((round - 1) % order.size()));
                for (String client : order) {
                    BenchmarkSuite.Result r = runner.run(client, round, List.of("--client", client, "--mode", "scale",
                            "--bootstrap-servers", servers, "--topic", topic, "--consumers", Integer.toString(consumers),
                            "--warmup-seconds", warmup, "--measure-seconds", measure));
                    results.computeIfAbsent(client, k -> new ArrayList<>()).add(r);
                    System.out.printf("  scale round %d %-9s %d consumers: %d threads (%d Java), heap after GC %.0f MB,"
                                    + " RSS %.0f MB, CPU %.1f %% of a core, %d sockets, %.0f records/s received by %d"
                                    + " consumers, creation %.1f s, load %s%n", round, client, r.get("consumers"),
                            r.get("threads"), r.get("javaThreads"), r.get("heapAfterGc") / 1048576.0,
                            r.get("rss") / 1048576.0, r.get("cpuNanos") * 100.0 / r.get("nanos"), r.get("sockets"),
                            r.recordsPerSecond(), r.get("consumersWithRecords"), r.get("setupNanos") / 1e9,
                            r.fields().get("load"));
                }
            }
        }
        return results;
    }
}
