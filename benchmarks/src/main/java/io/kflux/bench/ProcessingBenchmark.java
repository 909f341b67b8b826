package io.kflux.bench;

import io.kflux.bench.runner.JvmCounters;
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
 * Consumer 0.5.3.3 (reactor module, {@code KEY}, concurrency 500) and the official client with a key-striped pool of
 * 500 threads, side by side on one Kafka 4.4 broker, each in JVMs of its own ({@link ProcessingRunner}). One topic of
 * {@code --records} records (8 partitions, {@code --keys} keys {@code key-<n>}, the default partitioner, 100 B
 * values); each record's handler takes {@code --work-ms}.
 *
 * <p>Per contender, in a consumer group of its own each: a <b>clean run</b> (one JVM processes the topic: records/s,
 * CPU per record, threads), then a <b>kill run</b>: a JVM that logs each processed record is killed with SIGKILL when
 * half the records were processed, and a second JVM of the same contender in the same group processes the rest; the
 * records processed more than once are counted from both logs, and every record must be in them. Every run checks
 * that each key's records completed in offset order.
 *
 * <p>Run: {@code mvn -q -pl benchmarks -am test-compile exec:exec@bench -Dbench.main=io.kflux.bench.ProcessingBenchmark
 * "-Dbench.args=--records 100000"}; the pom passes the 4.4 broker's classpath file as
 * {@code kflux.bench.shareBrokerClasspath}.
 */
public final class ProcessingBenchmark {

    static final int PARTITIONS = 8;
    private static final String TOPIC = "processing";

    private ProcessingBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>(Map.of("--records", "400000", "--keys", "1000",
                "--work-ms", "5", "--concurrency", "500", "--commit-ms", "1000",
                "--contenders", "kflux,parallel-consumer,official", "--kill", "true"));
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
        Map<String, Map<String, String>> clean = new LinkedHashMap<>();
        Map<String, long[]> kills = new LinkedHashMap<>();
        List<Double> loads = new ArrayList<>();
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.builder()
                .classpath(Files.readString(Path.of(file), StandardCharsets.UTF_8).trim()).start()) {
            fill(kafka, records, Integer.parseInt(opts.get("--keys")));
            for (String contender : opts.get("--contenders").split(",")) {
                Map<String, String> r = ForkedJvm.run(command(opts, contender, kafka, "clean", "-", "-"), contender);
                if (!r.get("processedAgain").equals("0")) {
                    throw new IllegalStateException(contender + ": " + r.get("processedAgain")
                            + " records processed twice without a failure");
                }
                clean.put(contender, r);
                loads.add(Double.parseDouble(r.get("load")));
                System.out.printf("%-18s clean: %,9.0f records/s  %,9.0f ns CPU/record  threads %s (peak %s)"
                                + "  window %.1f s  load %s%n", contender, d(r, "recordsPerSec"),
                        d(r, "cpuNsPerRecord"), r.get("threads"), r.get("peakThreads"), d(r, "windowNanos") / 1e9,
                        r.get("load"));
                if (Boolean.parseBoolean(opts.get("--kill"))) {
                    long[] k = killRun(opts, contender, kafka, dir, records);
                    kills.put(contender, k);
                    System.out.printf("%-18s kill -9 after %,d records processed: %,d processed again%n",
                            contender, k[0], k[1]);
                }
            }
        }
        System.out.println();
        System.out.println("| contender | records/s | ns CPU/record | Java threads (end of window / peak) |"
                + " records processed before kill -9 | processed again after it |");
        System.out.println("|---|---|---|---|---|---|");
        for (Map.Entry<String, Map<String, String>> e : clean.entrySet()) {
            Map<String, String> r = e.getValue();
            long[] k = kills.get(e.getKey());
            System.out.printf("| %s | %,.0f | %,.0f | %s / %s | %s | %s |%n", e.getKey(), d(r, "recordsPerSec"),
                    d(r, "cpuNsPerRecord"), r.get("threads"), r.get("peakThreads"),
                    k == null ? "" : String.format("%,d", k[0]), k == null ? "" : String.format("%,d", k[1]));
        }
        System.out.printf("load average (1 min) at the clean runs' ends: %s%n", loads);
    }

    /**
     * @return records the killed JVM processed, and records processed more than once over both JVMs
     * @throws IllegalStateException when a record of the topic is in neither log
     */
    private static long[] killRun(Map<String, String> opts, String contender, EmbeddedKafkaCluster kafka, Path dir,
                                  int records) throws Exception {
        Path first = dir.resolve(contender + "-killed.log");
        Path second = dir.resolve(contender + "-after.log");
        Files.deleteIfExists(first);
        Files.deleteIfExists(second);
        Map<String, String> ended = ForkedJvm.runUntilKilled(command(opts, contender, kafka, "kill", first.toString(),
                "-"), contender + " (to kill)", progress -> Long.parseLong(progress.trim()) >= records / 2);
        if (!ended.isEmpty()) {
            throw new IllegalStateException(contender + " processed the topic before it could be killed");
        }
        ForkedJvm.run(command(opts, contender, kafka, "kill", second.toString(), first.toString()),
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
        return ShareBenchmark.javaCommand(ProcessingRunner.class, List.of(contender, kafka.bootstrapServers(), TOPIC,
                "processing-" + contender + "-" + run, opts.get("--records"), opts.get("--keys"),
                opts.get("--work-ms"), opts.get("--concurrency"), opts.get("--commit-ms"), log, seed),
                opts.get("--child-jvm-args"));
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
