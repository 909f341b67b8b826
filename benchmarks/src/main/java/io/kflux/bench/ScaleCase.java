package io.kflux.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The suite's scale case: N partitions under a low, steady total produce rate, in topics of
 * {@code --scale-topic-partitions} (100) partitions each, and per round one JVM per contender holding N consumers of
 * one partition each ({@link ScaleRunner}); kflux against N official consumers, alternating, the first one rotating
 * from round to round. Topics of bounded size keep each consumer's metadata small: with one topic of N partitions,
 * each of the N consumers would ask for N partitions' metadata, N&sup2; in all, which at N = 10,000 a broker sharing
 * two cores with the consumers did not answer within a minute.
 */
final class ScaleCase {

    static final List<String> CLIENTS = List.of("kflux", "official");
    /** Partitions created per admin operation at most: a KRaft controller refuses one of over 10,000 records. */
    private static final int PARTITIONS_PER_STEP = 5_000;
    /**
     * The producer's {@code linger.ms}. With 0 it sent a Produce request whenever its sender thread was free: 0.40-0.75
     * requests per consumer and second in one run, more in the windows of the client that left it more CPU, and the
     * broker's CPU for them counted as that client's. With 50 ms its requests are a steady ~20/s for every contender.
     */
    static final int PRODUCER_LINGER_MS = 50;

    private ScaleCase() {
    }

    /** @param brokerPids the embedded brokers' pids, comma-separated ("" with an external cluster: no broker view) */
    static Map<String, List<BenchmarkSuite.Result>> run(BenchmarkSuite.Runner runner, String servers,
                                                        String brokerPids, List<String> suiteClients, Map<String, String> opts)
            throws Exception {
        int consumers = Integer.parseInt(opts.getOrDefault("--scale-consumers", "100"));
        int rate = Integer.parseInt(opts.getOrDefault("--scale-rate", "1000"));
        int rounds = Integer.parseInt(opts.getOrDefault("--scale-rounds", "5"));
        int warmupRounds = warmupRounds(opts);
        String warmup = opts.getOrDefault("--scale-warmup-seconds", "10");
        String measure = opts.getOrDefault("--scale-seconds", "30");
        List<String> clients = new ArrayList<>(CLIENTS.stream().filter(suiteClients::contains).toList());
        int perTopic = Math.min(consumers, Integer.parseInt(opts.getOrDefault("--scale-topic-partitions", "100")));
        String prefix = "suite-scale-" + consumers + "-by-" + perTopic;
        List<String> topics = topics(prefix, consumers, perTopic);
        System.out.printf("%ncase scale: %d consumers of one partition each in one JVM (%d topics of %d partitions),"
                + " %,d records/s in total, %s s measured after %s s, %d rounds, contenders %s%n", consumers,
                topics.size(), perTopic, rate, measure, warmup, rounds, clients);
        Map<String, List<BenchmarkSuite.Result>> results = new LinkedHashMap<>();
        if (clients.isEmpty()) {
            return results;
        }
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers))) {
            Set<String> existing = admin.listTopics().names().get();
            // A KRaft controller refuses one operation of more than 10,000 records ("excessively large batch
            // operation"), and a topic's creation is a record per partition: topics are created in steps.
            List<NewTopic> step = new ArrayList<>();
            int stepPartitions = 0;
            for (int t = 0; t < topics.size(); t++) {
                int partitions = Math.min(perTopic, consumers - t * perTopic);
                if (!existing.contains(topics.get(t))) {
                    step.add(new NewTopic(topics.get(t), partitions, (short) 1));
                    stepPartitions += partitions;
                }
                if (!step.isEmpty() && (stepPartitions + perTopic > PARTITIONS_PER_STEP || t == topics.size() - 1)) {
                    admin.createTopics(step).all().get();
                    step.clear();
                    stepPartitions = 0;
                }
            }
        }
        try (FixedRateProducer producer =
                     new FixedRateProducer(servers, topics, perTopic, consumers, rate, PRODUCER_LINGER_MS)) {
            // the producer falls behind while the broker settles the new partitions, then catches up in a burst
            System.out.printf("  the producer was on schedule (less than 1 s behind) after %.1f s%n",
                    producer.awaitOnSchedule(1_000, 180_000) / 1e3);
            // Unmeasured first: the run's first JVM met a broker and producer still settling (the producer fell up to
            // 22-33 s behind and caught up in that JVM's window), and it was always the same contender (session 22).
            for (int round = 1 - warmupRounds; round <= rounds; round++) {
                List<String> order = new ArrayList<>(clients);
                Collections.rotate(order, -(Math.max(round - 1, 0) % order.size()));
                if (round < 1) {
                    order = order.subList(0, 1);
                }
                for (String client : order) {
                    BenchmarkSuite.Result r = runner.run(client, round, List.of("--client", client, "--mode", "scale",
                            "--bootstrap-servers", servers, "--topic-prefix", prefix,
                            "--topic-partitions", Integer.toString(perTopic), "--consumers", Integer.toString(consumers),
                            "--warmup-seconds", warmup, "--measure-seconds", measure,
                            "--consumer-props", opts.getOrDefault("--scale-consumer-props", ""),
                            "--starts-per-second", opts.getOrDefault("--scale-starts-per-second", "0"),
                            "--broker-pids", brokerPids));
                    if (round < 1) {
                        System.out.printf("  scale warm-up round %s (not counted): CPU %.1f %% of a core, %.0f records/s,"
                                + " producer at most %.1f s behind its schedule so far%n", client,
                                r.get("cpuNanos") * 100.0 / r.get("nanos"), r.recordsPerSecond(),
                                producer.maxLagMicros.get() / 1e6);
                        continue;
                    }
                    results.computeIfAbsent(client, k -> new ArrayList<>()).add(r);
                    System.out.printf("  scale round %d %-9s %d consumers: %d threads (%d Java), heap after GC %.0f MB,"
                                    + " RSS %.0f MB, CPU %.1f %% of a core, %d sockets, %.0f records/s received by %d"
                                    + " consumers, creation %.1f s, load %s%n", round, client, r.get("consumers"),
                            r.get("threads"), r.get("javaThreads"), r.get("heapAfterGc") / 1048576.0,
                            r.get("rss") / 1048576.0, r.get("cpuNanos") * 100.0 / r.get("nanos"), r.get("sockets"),
                            r.recordsPerSecond(), r.get("consumersWithRecords"), r.get("setupNanos") / 1e9,
                            r.fields().get("load"));
                    System.out.printf("    brokers: CPU %.1f %% of a core (of it JIT %.1f; the window began %.1f s"
                                    + " after the warm-up and every consumer's first record, when their JIT was quiet); requests per consumer per second (all clients"
                                    + " of the brokers, the suite's producer too): %s; a consumer's Fetch answered in"
                                    + " %.1f ms on average; %d incremental fetch sessions cached; CPU ms by broker"
                                    + " thread: %s%n", brokerCpuPercent(r),
                            r.get("brokerJitNanos") * 100.0 / r.get("brokerNanos"), r.get("brokerQuietMillis") / 1e3,
                            r.fields().get("brokerRequests"),
                            r.get("fetchMeanMicros") / 1000.0, r.get("fetchSessions"), r.fields().get("brokerThreads"));
                    System.out.printf("    first record: every consumer %.1f s, the median one %.1f s after creation"
                                    + " began (-1: not every one; waited %.1f s after the warm-up for them); in the"
                                    + " window the brokers accepted %d connections and evicted %d fetch sessions%n",
                            r.get("firstRecordAllNanos") / 1e9, r.get("firstRecordMedianNanos") / 1e9,
                            r.get("firstRecordsWaitMillis") / 1e3, r.get("brokerConnections"),
                            r.get("brokerSessionEvictions"));
                    System.out.printf("    the brokers' request threads on consumers' Fetches (LocalTimeMs): %.0f ms"
                            + " per second of the window%n", r.get("fetchLocalMicros") / 1e3 / (r.get("brokerNanos") / 1e9));
                    System.out.printf("    until then (creation to every consumer's first record): brokers' CPU %.1f s,"
                                    + " requests per consumer by API: %s%n", r.get("startBrokerCpuNanos") / 1e9,
                            r.fields().get("startRequests"));
                    // what a consumer can receive depends on the producer keeping up: say how far behind it fell
                    System.out.printf("    producer: %,d records sent so far, at most %.1f s behind its schedule%n",
                            producer.sent.get(), producer.maxLagMicros.get() / 1e6);
                }
            }
        }
        return results;
    }

    /** {@code --scale-warmup-rounds}: unmeasured JVMs of the first contender before the counted rounds (default 1). */
    static int warmupRounds(Map<String, String> opts) {
        return Integer.parseInt(opts.getOrDefault("--scale-warmup-rounds", "1"));
    }

    /** The brokers' CPU over the window, % of one core (NaN without a broker view). */
    static double brokerCpuPercent(BenchmarkSuite.Result r) {
        long nanos = r.get("brokerNanos");
        return nanos <= 0 ? Double.NaN : r.get("brokerCpuNanos") * 100.0 / nanos;
    }

    /** The case's topics: consumer {@code i} reads partition {@code i % perTopic} of topic {@code i / perTopic}. */
    static List<String> topics(String prefix, int consumers, int perTopic) {
        List<String> topics = new ArrayList<>();
        for (int t = 0; t * perTopic < consumers; t++) {
            topics.add(prefix + "-" + t);
        }
        return topics;
    }
}
