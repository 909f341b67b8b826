package io.kflux.bench;

import io.kflux.bench.runner.JvmCounters;
import io.kflux.bench.runner.ThreadCensus;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Processing beyond the partition (issue #27): kflux's {@code process(KEY, maxInFlight 500)}, Confluent Parallel
 * Consumer 0.5.3.3 (its reactor module, and its core module's pool of 500 threads; {@code KEY}, concurrency 500) and
 * the official client with a key-striped pool of 500 threads, side by side on one Kafka 4.4 broker, each in JVMs of
 * its own ({@link ProcessingRunner}). One topic of {@code --records} records (8 partitions, {@code --keys} keys
 * {@code key-<n>}, the default partitioner, 100 B values); each record's handler takes {@code --work-ms}.
 *
 * <p>Per contender, in a consumer group of its own each: {@code --rounds} <b>clean runs</b> (one JVM processes the
 * topic: records/s, CPU per record, threads, how many handlers ran at a time and how long each took), the contenders
 * taking turns round by round; then {@code --kills} <b>kill runs</b> each: a JVM that logs each processed record is
 * killed with SIGKILL when a share of the records was processed (from 30 % to 70 %, spread over the kills, so that
 * the kills fall at varied points of the commit interval), and a second JVM of the same contender in the same group
 * processes the rest; the records processed more than once are counted from both logs, and every record must be in
 * them. Every run checks that each key's records completed in offset order.
 *
 * <p>Run: {@code mvn -q -pl benchmarks -am test-compile exec:exec@bench -Dbench.main=io.kflux.bench.ProcessingBenchmark
 * "-Dbench.args=--records 100000"}; the pom passes the 4.4 broker's classpath file as
 * {@code kflux.bench.shareBrokerClasspath}.
 */
public final class ProcessingBenchmark {

    static final int PARTITIONS = 8;
    /**
     * A contender that is kflux with the sdk classes of {@code -Dkflux.bench.baseClasses} first on its classpath: a
     * before/after comparison of a change in one run.
     */
    static final String BASE = "kflux-base";
    private static final String TOPIC = "processing";

    private ProcessingBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>(Map.of("--records", "400000", "--keys", "1000",
                "--work-ms", "5", "--concurrency", "500", "--commit-ms", "1000",
                "--contenders", "kflux,parallel-consumer,parallel-consumer-core,official", "--rounds", "2",
                "--kills", "3"));
        opts.put("--child-jvm-args", ""); // e.g. an async-profiler agent or a JFR recording per contender JVM
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!opts.containsKey(args[i])) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; known: " + opts.keySet());
            }
            opts.put(args[i], args[i + 1]);
        }
        int records = Integer.parseInt(opts.get("--records"));
        String file = System.getProperty("kflux.bench.shareBrokerClasspath");
        if (file == null || !Files.isRegularFile(Path.of(file))) {
            throw new IllegalStateException("-Dkflux.bench.shareBrokerClasspath must name brokers/kafka-4.4's"
                    + " target/broker.classpath (exec:exec@bench passes it): " + file);
        }
        System.out.printf("processing benchmark: %s, cpus %d, load average at start %.2f%n", opts,
                Runtime.getRuntime().availableProcessors(), JvmCounters.loadAverage());
        Path dir = Files.createTempDirectory("kflux-processing-bench");
        int rounds = Integer.parseInt(opts.get("--rounds"));
        int killCount = Integer.parseInt(opts.get("--kills"));
        String[] contenders = opts.get("--contenders").split(",");
        Map<String, List<Map<String, String>>> clean = new LinkedHashMap<>();
        Map<String, List<long[]>> kills = new LinkedHashMap<>();
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.builder()
                .classpath(Files.readString(Path.of(file), StandardCharsets.UTF_8).trim()).start()) {
            fill(kafka, records, Integer.parseInt(opts.get("--keys")));
            // rounds alternate the contenders so that a change of the machine's load falls on each of them
            for (int round = 0; round < rounds; round++) {
                for (String contender : contenders) {
                    Map<String, String> r;
                    try {
                        r = ForkedJvm.run(command(opts, contender, kafka, "clean" + round, "-", "-"), contender);
                    } catch (IllegalStateException e) {
                        // one contender failing leaves the others' figures: said here and in the table
                        System.out.printf("%-22s clean %d FAILED: %s%n", contender, round, e.getMessage());
                        continue;
                    }
                    if (!r.get("processedAgain").equals("0")) {
                        System.out.printf("%-22s clean %d FAILED: %s records processed twice without a failure%n",
                                contender, round, r.get("processedAgain"));
                        continue;
                    }
                    clean.computeIfAbsent(contender, c -> new ArrayList<>()).add(r);
                    System.out.printf("%-22s clean %d: %,9.0f records/s  %,9.0f ns CPU/record (JIT %,.0f, GC %,.0f)"
                                    + "  threads %s (peak %s)  window %.1f s  handlers running %s over %s partitions,"
                                    + " %s us each (max %s)  load %s%n", contender, round, d(r, "recordsPerSec"),
                            d(r, "cpuNsPerRecord"), d(r, "jitNsPerRecord"), d(r, "gcNsPerRecord"), r.get("threads"),
                            r.get("peakThreads"), d(r, "windowNanos") / 1e9, r.get("meanRunning"),
                            r.get("meanPartitionsRunning"), r.get("meanHandlerUs"), r.get("maxHandlerUs"),
                            r.get("load"));
                    System.out.printf("%-22s clean %d: threads at the window's end: %s%n", contender, round,
                            ThreadCensus.summary(ThreadCensus.decode(r.get("threadCensus"))));
                }
            }
            // kills at varied points of the topic, so that they fall at varied points of the commit interval
            for (int k = 0; k < killCount; k++) {
                double at = killCount == 1 ? 0.5 : 0.3 + 0.4 * k / (killCount - 1);
                for (String contender : contenders) {
                    if (contender.equals(BASE)) {
                        continue; // a before/after comparison of records/s and CPU
                    }
                    long[] kill;
                    try {
                        kill = killRun(opts, contender, kafka, dir, records, k, at);
                    } catch (IllegalStateException e) {
                        System.out.printf("%-22s kill %d FAILED: %s%n", contender, k, e.getMessage());
                        continue;
                    }
                    kills.computeIfAbsent(contender, c -> new ArrayList<>()).add(kill);
                    System.out.printf("%-22s kill %d: kill -9 after %,d records processed: %,d processed again"
                            + "  load %.2f%n", contender, k, kill[0], kill[1], JvmCounters.loadAverage());
                }
            }
        }
        System.out.println();
        System.out.println("| contender | records/s | ns CPU/record (of it JIT) | Java threads (end / peak) |"
                + " of them the client's (not the JVM's or the benchmark's) | handlers running (partitions) |"
                + " handler time, us | processed again after kill -9: mean (min-max) | the same in seconds of the"
                + " contender's work (at its mean clean records/s) |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (String contender : contenders) {
            List<Map<String, String>> rs = clean.getOrDefault(contender, List.of());
            List<long[]> ks = kills.getOrDefault(contender, List.of());
            double perSec = rs.stream().mapToDouble(r -> d(r, "recordsPerSec")).average().orElse(Double.NaN);
            System.out.printf("| %s | %s | %s (%s) | %s | %s | %s (%s) | %s | %s | %s |%n", contender,
                    range(rs, "recordsPerSec"), range(rs, "cpuNsPerRecord"), range(rs, "jitNsPerRecord"),
                    String.join(", ", rs.stream().map(r -> r.get("threads") + " / " + r.get("peakThreads")).toList()),
                    String.join(", ", rs.stream().map(r -> String.valueOf(
                            ThreadCensus.client(ThreadCensus.decode(r.get("threadCensus"))))).toList()),
                    range(rs, "meanRunning"), range(rs, "meanPartitionsRunning"), range(rs, "meanHandlerUs"),
                    ks.isEmpty() ? "" : String.format("%,.0f (%,d-%,d) of %d kills",
                            ks.stream().mapToLong(x -> x[1]).average().orElse(0),
                            ks.stream().mapToLong(x -> x[1]).min().orElse(0),
                            ks.stream().mapToLong(x -> x[1]).max().orElse(0), ks.size()),
                    ks.isEmpty() || rs.isEmpty() ? "" : String.format("%.2f (%.2f-%.2f)",
                            ks.stream().mapToLong(x -> x[1]).average().orElse(0) / perSec,
                            ks.stream().mapToLong(x -> x[1]).min().orElse(0) / perSec,
                            ks.stream().mapToLong(x -> x[1]).max().orElse(0) / perSec));
        }
        System.out.printf("load average (1 min) at the clean runs' ends: %s%n", clean.values().stream()
                .flatMap(List::stream).map(r -> r.get("load")).toList());
    }

    /** {@code mean (min-max)} of a result field over the runs, or the one value. */
    private static String range(List<Map<String, String>> runs, String field) {
        double[] v = runs.stream().mapToDouble(r -> d(r, field)).toArray();
        if (v.length == 0) {
            return "";
        }
        String f = v[0] < 100 ? "%.1f" : "%,.0f";
        double mean = java.util.Arrays.stream(v).average().orElse(0);
        if (v.length == 1) {
            return String.format(f, mean);
        }
        return String.format(f + " (" + f + "-" + f + ")", mean, java.util.Arrays.stream(v).min().orElse(0),
                java.util.Arrays.stream(v).max().orElse(0));
    }

    /**
     * @return records the killed JVM processed, and records processed more than once over both JVMs
     * @throws IllegalStateException when a record of the topic is in neither log
     */
    private static long[] killRun(Map<String, String> opts, String contender, EmbeddedKafkaCluster kafka, Path dir,
                                  int records, int k, double at) throws Exception {
        Path first = dir.resolve(contender + "-" + k + "-killed.log");
        Path second = dir.resolve(contender + "-" + k + "-after.log");
        Files.deleteIfExists(first);
        Files.deleteIfExists(second);
        String run = "kill" + k;
        Map<String, String> ended = ForkedJvm.runUntilKilled(command(opts, contender, kafka, run, first.toString(),
                "-"), contender + " (to kill)", progress -> Long.parseLong(progress.trim()) >= (long) (records * at));
        if (!ended.isEmpty()) {
            throw new IllegalStateException(contender + " processed the topic before it could be killed");
        }
        ForkedJvm.run(command(opts, contender, kafka, run, second.toString(), first.toString()),
                contender + " (after kill)");
        List<long[]> before = ProcessingTally.read(first);
        Set<Long> seen = new HashSet<>();
        long again = 0;
        for (Path log : List.of(first, second)) {
            for (long[] po : ProcessingTally.read(log)) {
                if (!seen.add(po[0] << 40 | po[1])) {
                    again++;
                }
            }
        }
        if (seen.size() != records) {
            throw new IllegalStateException(contender + ": " + (records - seen.size())
                    + " records processed by neither JVM");
        }
        return new long[] {before.size(), again};
    }

    private static List<String> command(Map<String, String> opts, String contender, EmbeddedKafkaCluster kafka,
                                        String run, String log, String seed) {
        List<String> command = ShareBenchmark.javaCommand(ProcessingRunner.class, List.of(contender,
                kafka.bootstrapServers(), TOPIC, "processing-" + contender + "-" + run, opts.get("--records"),
                opts.get("--keys"), opts.get("--work-ms"), opts.get("--concurrency"), opts.get("--commit-ms"), log,
                seed), opts.get("--child-jvm-args"));
        return ShareBenchmark.withBaseClasses(command, contender);
    }

    /** Record i has key {@code key-<i % keys>}; the default partitioner spreads the keys over the 8 partitions. */
    private static void fill(EmbeddedKafkaCluster kafka, int count, int keys) throws IOException {
        kafka.createTopic(TOPIC, PARTITIONS, 1);
        long start = System.nanoTime();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(ShareBenchmark.fillProps(kafka,
                "org.apache.kafka.common.serialization.StringSerializer"))) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, key(i % keys), ShareBenchmark.value(i)));
            }
            producer.flush();
        }
        System.out.printf("filled %s: %,d records in %.1f s%n", TOPIC, count, (System.nanoTime() - start) / 1e9);
    }

    static String key(int n) {
        return "key-" + n;
    }

    private static double d(Map<String, String> r, String key) {
        return Double.parseDouble(r.get(key));
    }
}
