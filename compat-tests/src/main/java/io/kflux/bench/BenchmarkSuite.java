package io.kflux.bench;

import static io.kflux.bench.runner.JvmCounters.parseArgs;

import io.kflux.bench.runner.DrainHarness;
import io.kflux.examples.broker.EmbeddedKafkaCluster;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Issue #5's suite: every case drained by every contender on one broker and the same pre-filled topics, each
 * contender in a JVM of its own with the same flags (reactor-kafka cannot share kafka-clients 4.x's classpath,
 * so the others are forked too, for equal footing), contenders alternating within a round and the first one
 * rotating from round to round. Each forked JVM drains {@code --warmup} times unmeasured, then once measured
 * (see {@link DrainHarness}).
 *
 * <pre>
 * --cases 1,2-lz4,2-zstd,3,e2e   1: 5M x 100 B, 8 partitions, none; 2-lz4 / 2-zstd: 500k x 1 KB, 8 partitions;
 *                                3: 200 partitions x 10k x 100 B, none; e2e: latency at a fixed produce rate
 * --clients kflux,official,reactor-kafka,raw   (raw has no e2e figure: it decodes no record)
 * --rounds N                     measured drains per contender and case (default 5); medians over them
 * --warmup N                     unmeasured drains in each forked JVM before the measured one (default 3)
 * --scale F                      multiply record counts by F, for a quick check of the suite itself (default 1)
 * --jvm-args a,b,...             flags of every contender JVM, comma- or space-separated
 *                                (default -Xms1g,-Xmx1g,-XX:+UseG1GC)
 * --e2e-rate N                   records/s produced during e2e (default 20000)
 * --e2e-seconds N                measured seconds per e2e run (default 20), after --e2e-warmup-seconds (5)
 * --bootstrap-servers h:p        use this cluster instead of starting a 1-node embedded broker
 * </pre>
 *
 * <p>The reactor-kafka contender runs from the {@code bench-reactor-kafka} module's build directory, named by
 * the system property {@code kflux.bench.reactorKafkaDir} (the {@code exec@bench} execution sets it).
 */
public final class BenchmarkSuite {

    private static final List<String> ALL_CASES = List.of("1", "2-lz4", "2-zstd", "3", "e2e");
    private static final List<String> ALL_CLIENTS = List.of("kflux", "official", "reactor-kafka", "raw");
    private static final String E2E_TOPIC = "suite-e2e";
    private static final int E2E_PARTITIONS = 8;
    private static final int E2E_VALUE_SIZE = 100;

    record Case(String name, String description, int partitions, long records, int valueSize, String compression) {
        static Case of(String name, double scale) {
            Case c = switch (name) {
                case "1" -> new Case("1", "5M x 100 B, 8 partitions, none", 8, 5_000_000, 100, "none");
                case "2-lz4" -> new Case("2-lz4", "500k x 1 KB, 8 partitions, lz4", 8, 500_000, 1024, "lz4");
                case "2-zstd" -> new Case("2-zstd", "500k x 1 KB, 8 partitions, zstd", 8, 500_000, 1024, "zstd");
                case "3" -> new Case("3", "200 partitions x 10k x 100 B, none", 200, 2_000_000, 100, "none");
                default -> throw new IllegalArgumentException("unknown case " + name + " (one of " + ALL_CASES + ")");
            };
            long records = Math.max(c.partitions(), Math.round(c.records() * scale) / c.partitions() * c.partitions());
            return new Case(c.name(), c.description(), c.partitions(), records, c.valueSize(), c.compression());
        }

        String topic() {
            return "suite-" + name + "-" + records;
        }
    }

    /** One forked drain's figures, as its result line gave them. */
    record Result(String client, int round, Map<String, String> fields) {
        long get(String key) {
            return Long.parseLong(fields.get(key));
        }

        double recordsPerSecond() {
            return get("records") * 1e9 / get("nanos");
        }

        double megabytesPerSecond() {
            return get("bytes") * 1e3 / get("nanos");
        }

        double allocatedPerRecord() {
            return (double) get("allocated") / get("records");
        }
    }

    private BenchmarkSuite() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = parseArgs(args);
        double scale = Double.parseDouble(opts.getOrDefault("--scale", "1"));
        List<String> cases = Arrays.asList(opts.getOrDefault("--cases", String.join(",", ALL_CASES)).split(","));
        List<String> clients = Arrays.asList(opts.getOrDefault("--clients", String.join(",", ALL_CLIENTS)).split(","));
        for (String c : clients) {
            if (!ALL_CLIENTS.contains(c)) {
                throw new IllegalArgumentException("unknown client " + c + " (one of " + ALL_CLIENTS + ")");
            }
        }
        int rounds = Integer.parseInt(opts.getOrDefault("--rounds", "5"));
        int warmup = Integer.parseInt(opts.getOrDefault("--warmup", "3"));
        List<String> jvmArgs = List.of(opts.getOrDefault("--jvm-args", "-Xms1g -Xmx1g -XX:+UseG1GC").trim().split("[\\s,]+"));
        Runner runner = new Runner(jvmArgs);
        System.out.printf("suite: cases %s, clients %s, %d rounds, %d warm-up drains per JVM, JVM flags %s, %d cores,"
                        + " %s%n", cases, clients, rounds, warmup, jvmArgs, Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));

        EmbeddedKafkaCluster kafka = null;
        String servers = opts.get("--bootstrap-servers");
        Map<Case, Map<String, List<Result>>> drains = new LinkedHashMap<>();
        Map<String, List<Result>> latencies = new LinkedHashMap<>();
        try {
            if (servers == null) {
                System.out.println("starting a 1-node embedded Kafka broker...");
                kafka = EmbeddedKafkaCluster.startCluster(1);
                servers = kafka.bootstrapServers();
            }
            for (String name : cases) {
                if (name.equals("e2e")) {
                    List<String> followers = clients.stream().filter(c -> !c.equals("raw")).toList();
                    latencies = runLatency(runner, servers, followers, rounds, opts);
                    continue;
                }
                Case c = Case.of(name, scale);
                drains.put(c, runCase(runner, servers, c, clients, rounds, warmup));
            }
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
        printTables(drains, latencies, clients);
    }

    // ---------------------------------------------------------------- throughput

    private static Map<String, List<Result>> runCase(Runner runner, String servers, Case c, List<String> clients,
                                                     int rounds, int warmup) throws Exception {
        System.out.printf("%ncase %s: %s, %,d records, topic %s%n", c.name(), c.description(), c.records(), c.topic());
        String topicId = fillOnce(servers, c);
        Map<String, List<Result>> results = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            for (String client : rotate(clients, round - 1)) {
                List<String> args = new ArrayList<>(List.of("--client", client, "--mode", "drain",
                        "--bootstrap-servers", servers, "--topic", c.topic(), "--topic-id", topicId,
                        "--partitions", Integer.toString(c.partitions()), "--records", Long.toString(c.records()),
                        "--value-size", Integer.toString(c.valueSize()), "--warmup", Integer.toString(warmup)));
                Result r = runner.run(client, round, args);
                results.computeIfAbsent(client, k -> new ArrayList<>()).add(r);
                System.out.printf("  case %s round %d %-13s %5.2f M records/s %7.1f MB/s %,7.0f B/record,"
                                + " max gap %4d ms before record %,d, GC %d ms, warm-up %.1f s, load %s%n",
                        c.name(), round, client, r.recordsPerSecond() / 1e6, r.megabytesPerSecond(),
                        r.allocatedPerRecord(), r.get("maxGapNanos") / 1_000_000, r.get("maxGapAt") + 1,
                        r.get("gcMillis"), r.get("warmupNanos") / 1e9, r.fields().get("load"));
            }
        }
        return results;
    }

    private static List<String> rotate(List<String> clients, int by) {
        List<String> order = new ArrayList<>(clients);
        Collections.rotate(order, -(by % order.size()));
        return order;
    }

    /** Creates and fills the case's topic with the official producer, unless it already holds the case; its id. */
    private static String fillOnce(String servers, Case c) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers))) {
            if (!admin.listTopics().names().get().contains(c.topic())) {
                admin.createTopics(List.of(new NewTopic(c.topic(), c.partitions(), (short) 1))).all().get();
                fill(servers, c);
            }
            TopicDescription description = admin.describeTopics(List.of(c.topic())).allTopicNames().get()
                    .get(c.topic());
            Map<org.apache.kafka.common.TopicPartition, OffsetSpec> query = new HashMap<>();
            for (int p = 0; p < description.partitions().size(); p++) {
                query.put(new org.apache.kafka.common.TopicPartition(c.topic(), p), OffsetSpec.latest());
            }
            long existing = 0;
            for (var info : admin.listOffsets(query).all().get().values()) {
                existing += info.offset();
            }
            if (description.partitions().size() != c.partitions() || existing != c.records()) {
                throw new IllegalStateException("topic " + c.topic() + " has " + description.partitions().size()
                        + " partitions and " + existing + " records; delete it");
            }
            Uuid id = description.topicId();
            return new java.util.UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString();
        }
    }

    private static void fill(String servers, Case c) {
        long start = System.nanoTime();
        Properties props = producerProps(servers);
        props.put("linger.ms", "20");
        props.put("batch.size", Integer.toString(256 * 1024));
        props.put("compression.type", c.compression());
        byte[][] values = ConsumeBenchmark.payloads(c.valueSize());
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer =
                     new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = 0; i < c.records() && failure.get() == null; i++) {
                producer.send(new ProducerRecord<>(c.topic(), (int) (i % c.partitions()), null,
                        values[(int) (i % values.length)]), (metadata, error) -> {
                            if (error != null) {
                                failure.compareAndSet(null, error);
                            }
                        });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("filling " + c.topic() + " failed", failure.get());
        }
        System.out.printf("  filled %s in %.1f s%n", c.topic(), (System.nanoTime() - start) / 1e9);
    }

    private static Properties producerProps(String servers) {
        Properties props = new Properties();
        props.put("bootstrap.servers", servers);
        props.put("acks", "1");
        props.put("enable.idempotence", "false");
        return props;
    }

    // ---------------------------------------------------------------- end-to-end latency

    private static Map<String, List<Result>> runLatency(Runner runner, String servers, List<String> clients,
                                                        int rounds, Map<String, String> opts) throws Exception {
        int rate = Integer.parseInt(opts.getOrDefault("--e2e-rate", "20000"));
        long measureMs = Long.parseLong(opts.getOrDefault("--e2e-seconds", "20")) * 1000;
        long warmupMs = Long.parseLong(opts.getOrDefault("--e2e-warmup-seconds", "5")) * 1000;
        System.out.printf("%ncase e2e: %,d records/s of %d B into %d partitions, %d s measured after %d s warm-up"
                + " per run%n", rate, E2E_VALUE_SIZE, E2E_PARTITIONS, measureMs / 1000, warmupMs / 1000);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers))) {
            if (!admin.listTopics().names().get().contains(E2E_TOPIC)) {
                admin.createTopics(List.of(new NewTopic(E2E_TOPIC, E2E_PARTITIONS, (short) 1))).all().get();
            }
        }
        Map<String, List<Result>> results = new LinkedHashMap<>();
        try (FixedRateProducer producer = new FixedRateProducer(servers, rate)) {
            Thread.sleep(2000);
            for (int round = 1; round <= rounds; round++) {
                for (String client : rotate(clients, round - 1)) {
                    long sentBefore = producer.sent.get();
                    Result r = runner.run(client, round, List.of("--client", client, "--mode", "e2e",
                            "--bootstrap-servers", servers, "--topic", E2E_TOPIC,
                            "--partitions", Integer.toString(E2E_PARTITIONS),
                            "--e2e-warmup-ms", Long.toString(warmupMs), "--e2e-measure-ms", Long.toString(measureMs)));
                    results.computeIfAbsent(client, k -> new ArrayList<>()).add(r);
                    System.out.printf("  e2e round %d %-13s %,d records: p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms,"
                                    + " max %.1f ms (producer sent %,d, late by up to %d ms; load %s)%n",
                            round, client, r.get("records"), r.get("p50Micros") / 1e3, r.get("p99Micros") / 1e3,
                            r.get("p999Micros") / 1e3, r.get("maxMicros") / 1e3, producer.sent.get() - sentBefore,
                            producer.maxLagMicros.getAndSet(0) / 1000, r.fields().get("load"));
                }
            }
        }
        return results;
    }

    /**
     * Sends {@code rate} records/s, a tick's worth every millisecond (linger.ms 0, acks 1), each value starting
     * with its send time in epoch microseconds; behind schedule it catches up, and reports by how much.
     */
    static final class FixedRateProducer implements AutoCloseable {
        final AtomicLong sent = new AtomicLong();
        final AtomicLong maxLagMicros = new AtomicLong();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicReference<Exception> failure = new AtomicReference<>();
        private final Thread thread;

        FixedRateProducer(String servers, int rate) {
            Properties props = producerProps(servers);
            props.put("linger.ms", "0");
            byte[][] payloads = ConsumeBenchmark.payloads(E2E_VALUE_SIZE);
            thread = new Thread(() -> {
                try (KafkaProducer<byte[], byte[]> producer =
                             new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
                    long start = System.nanoTime();
                    long n = 0;
                    while (running.get()) {
                        long due = start + n * 1_000_000_000L / rate;
                        long now = System.nanoTime();
                        if (due > now) {
                            LockSupport.parkNanos(due - now);
                            continue;
                        }
                        maxLagMicros.accumulateAndGet((now - due) / 1000, Math::max);
                        byte[] value = payloads[(int) (n % payloads.length)].clone();
                        long micros = DrainHarness.nowMicros();
                        for (int i = 7; i >= 0; i--) {
                            value[i] = (byte) micros;
                            micros >>>= 8;
                        }
                        producer.send(new ProducerRecord<>(E2E_TOPIC, (int) (n % E2E_PARTITIONS), null, value),
                                (metadata, error) -> {
                                    if (error != null) {
                                        failure.compareAndSet(null, error);
                                    }
                                });
                        n++;
                        sent.incrementAndGet();
                    }
                }
            }, "bench-fixed-rate-producer");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() {
            running.set(false);
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (failure.get() != null) {
                throw new IllegalStateException("the fixed-rate producer failed", failure.get());
            }
        }
    }

    // ---------------------------------------------------------------- forked contenders

    /** Forks one contender JVM and reads its result line. */
    static final class Runner {
        private final List<String> jvmArgs;
        private final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        private String reactorKafkaClasspath;

        Runner(List<String> jvmArgs) {
            this.jvmArgs = jvmArgs;
        }

        Result run(String client, int round, List<String> args) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>();
            command.add(java);
            command.addAll(jvmArgs);
            command.add("-cp");
            if (client.equals("reactor-kafka")) {
                command.add(reactorKafkaClasspath());
                command.add("io.kflux.bench.runner.ReactorKafkaRunner");
            } else {
                command.add(System.getProperty("java.class.path"));
                command.add(DrainRunner.class.getName());
            }
            command.addAll(args);
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String resultLine = null;
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith(DrainHarness.RESULT_PREFIX)) {
                        resultLine = line.substring(DrainHarness.RESULT_PREFIX.length());
                    } else {
                        System.out.println("    [" + client + "] " + line);
                    }
                }
            }
            if (!process.waitFor(15, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(client + " did not end");
            }
            if (process.exitValue() != 0 || resultLine == null) {
                throw new IllegalStateException(client + " failed (exit " + process.exitValue() + ")");
            }
            Map<String, String> fields = new LinkedHashMap<>();
            for (String pair : resultLine.trim().split(" ")) {
                int eq = pair.indexOf('=');
                fields.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
            return new Result(client, round, fields);
        }

        private String reactorKafkaClasspath() throws IOException {
            if (reactorKafkaClasspath == null) {
                String dir = System.getProperty("kflux.bench.reactorKafkaDir");
                if (dir == null) {
                    throw new IllegalStateException("set -Dkflux.bench.reactorKafkaDir to bench-reactor-kafka's"
                            + " build directory (exec:exec@bench does)");
                }
                Path classpathFile = Path.of(dir, "runtime-classpath.txt");
                if (!Files.exists(classpathFile)) {
                    throw new IllegalStateException(classpathFile + " is missing: build bench-reactor-kafka first");
                }
                reactorKafkaClasspath = Path.of(dir, "classes") + File.pathSeparator
                        + Files.readString(classpathFile).trim();
            }
            return reactorKafkaClasspath;
        }
    }

    // ---------------------------------------------------------------- output

    private static void printTables(Map<Case, Map<String, List<Result>>> drains, Map<String, List<Result>> latencies,
                                    List<String> clients) {
        if (!drains.isEmpty()) {
            System.out.println();
            System.out.println("| case | contender | records/s | MB/s | B allocated/record | worst gap | GC ms"
                    + " | kflux/contender records/s, median of per-round ratios (range) |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            for (Map.Entry<Case, Map<String, List<Result>>> e : drains.entrySet()) {
                Map<String, List<Result>> byClient = e.getValue();
                for (String client : clients) {
                    List<Result> rs = byClient.get(client);
                    if (rs == null) {
                        continue;
                    }
                    System.out.printf("| %s | %s | %s | %.1f | %,.0f | %d ms | %.0f | %s |%n", e.getKey().name(),
                            client, millions(median(rs, Result::recordsPerSecond)),
                            median(rs, Result::megabytesPerSecond), median(rs, Result::allocatedPerRecord),
                            rs.stream().mapToLong(r -> r.get("maxGapNanos")).max().orElse(0) / 1_000_000,
                            median(rs, r -> r.get("gcMillis")), ratio(byClient.get("kflux"), rs, client));
                }
            }
        }
        if (!latencies.isEmpty()) {
            System.out.println();
            System.out.println("| e2e contender | p50 ms | p99 ms | p99.9 ms | max ms (worst round) | records per run |");
            System.out.println("|---|---|---|---|---|---|");
            for (String client : clients) {
                List<Result> rs = latencies.get(client);
                if (rs == null) {
                    continue;
                }
                System.out.printf("| %s | %.2f | %.2f | %.2f | %.1f | %,.0f |%n", client,
                        median(rs, r -> r.get("p50Micros")) / 1e3, median(rs, r -> r.get("p99Micros")) / 1e3,
                        median(rs, r -> r.get("p999Micros")) / 1e3,
                        rs.stream().mapToLong(r -> r.get("maxMicros")).max().orElse(0) / 1e3,
                        median(rs, r -> r.get("records")));
            }
        }
    }

    private static String ratio(List<Result> kflux, List<Result> other, String client) {
        if (kflux == null || client.equals("kflux")) {
            return "";
        }
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < Math.min(kflux.size(), other.size()); i++) {
            ratios.add(kflux.get(i).recordsPerSecond() / other.get(i).recordsPerSecond());
        }
        return String.format("%.2f (%.2f-%.2f)", median(ratios, d -> d), Collections.min(ratios),
                Collections.max(ratios));
    }

    private static String millions(double perSecond) {
        return perSecond >= 1e6 ? String.format("%.2f M", perSecond / 1e6) : String.format("%.0f k", perSecond / 1e3);
    }

    private static <T> double median(List<T> items, ToDoubleFunction<T> value) {
        double[] sorted = items.stream().mapToDouble(value).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

}
