package io.kflux.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import io.kflux.bench.runner.BrokerView;
import io.kflux.bench.runner.JvmCounters;
import io.kflux.test.broker.EmbeddedKafkaCluster;

/**
 * Share groups (KIP-932, issue #26): kflux's {@code KafkaShareConsumer} beside the official {@code KafkaShareConsumer}
 * (kafka-clients on this classpath) on a Kafka 4.4 broker, each contender in a JVM of its own per case and round
 * ({@link ShareRunner}), the first contender rotating from round to round, each drain in a share group of its own
 * that starts at offset 0.
 *
 * <ul>
 *   <li><b>throughput</b>: one consumer drains {@code --records} records x 100 B (8 partitions) with an explicit
 *       ACCEPT of every record, after an unmeasured warm-up drain of {@code --warmup-records} from another topic in
 *       another group.</li>
 *   <li><b>queue</b>: {@code --queue-records} records, each taking {@code --work-ms} (5) of simulated work before its
 *       ACCEPT, {@code --concurrency} (64) at a time: kflux with one consumer and {@code flatMap(.., 64)} over a timer
 *       (non-blocking), the official client with 64 threads, each polling its own consumer and sleeping the work.
 *       Its ceiling is concurrency / work (12,800 records/s).</li>
 * </ul>
 * Every drain is verified (each offset of each partition exactly once; the sum of the records' CRC32C equal for every
 * contender and round). Prints per run records/s, process CPU per record and threads, and the medians with their
 * intervals and the median per-round kflux/official ratios.
 *
 * {@code --minutes M} stops starting rounds (after at least 3) when the next one would end past M minutes.
 * {@code --warmup-rounds W} (1 by default) runs W rounds of the throughput case first and does not count them: the
 * broker JVM is started cold for each run and its share path warms over the first drains.
 *
 * <p>Run: {@code mvn -q -pl benchmarks -am test-compile exec:exec@bench -Dbench.main=io.kflux.bench.ShareBenchmark
 * "-Dbench.args=--rounds 5"}; the pom passes the 4.4 broker's classpath file as {@code kflux.bench.shareBrokerClasspath}.
 */
public final class ShareBenchmark {

    static final int PARTITIONS = 8;
    static final int VALUE_SIZE = 100;

    private ShareBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>(Map.of("--rounds", "5", "--records", "2000000",
                "--warmup-records", "300000", "--queue-records", "150000", "--work-ms", "5", "--concurrency", "64",
                "--cases", "throughput,queue", "--clients", "kflux,official", "--minutes", "0", "--warmup-rounds", "1"));
        opts.put("--child-jvm-args", ""); // e.g. -XX:StartFlightRecording=filename=/tmp/jfr/ (a recording per JVM)
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!opts.containsKey(args[i])) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; known: " + opts.keySet());
            }
            opts.put(args[i], args[i + 1]);
        }
        int rounds = Integer.parseInt(opts.get("--rounds"));
        // unmeasured rounds of the throughput case first: the broker JVM starts cold for every run, and its share
        // path took 4-5 drains to warm (its CPU per record 2,092 ns in the run's first drain, 565-711 from round 1;
        // session 21), which the first contender of round 0 paid alone
        int warmupRounds = Integer.parseInt(opts.get("--warmup-rounds"));
        List<String> cases = List.of(opts.get("--cases").split(","));
        List<String> clients = List.of(opts.get("--clients").split(","));
        String file = System.getProperty("kflux.bench.shareBrokerClasspath");
        if (file == null || !Files.isRegularFile(Path.of(file))) {
            throw new IllegalStateException("-Dkflux.bench.shareBrokerClasspath must name brokers/kafka-4.4's"
                    + " target/broker.classpath (exec:exec@bench passes it): " + file);
        }
        System.out.printf("share benchmark: %s, cpus %d, load average at start %.2f%n", opts,
                Runtime.getRuntime().availableProcessors(), JvmCounters.loadAverage());
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.builder()
                .classpath(Files.readString(Path.of(file), StandardCharsets.UTF_8).trim()).start()) {
            String servers = kafka.bootstrapServers();
            // the broker JVMs, for each contender's reading of their request times (BrokerView)
            String childJvmArgs = opts.get("--child-jvm-args") + " -Dkflux.bench.brokerPids=" + BrokerView.childPids();
            fill(kafka, "share-warm", Integer.parseInt(opts.get("--warmup-records")));
            fill(kafka, "share-throughput", Integer.parseInt(opts.get("--records")));
            fill(kafka, "share-queue", Integer.parseInt(opts.get("--queue-records")));
            Map<String, Map<String, List<Map<String, String>>>> results = new LinkedHashMap<>();
            List<Double> loads = new ArrayList<>();
            double budgetNanos = Double.parseDouble(opts.get("--minutes")) * 60e9;
            long roundsStart = System.nanoTime();
            for (int round = -warmupRounds; round < rounds; round++) {
                if (round == 0) {
                    roundsStart = System.nanoTime();
                }
                long elapsed = System.nanoTime() - roundsStart;
                if (budgetNanos > 0 && round >= 3 && elapsed + elapsed / round > budgetNanos) {
                    System.out.printf("stopping after %d rounds: another would pass --minutes %s%n", round,
                            opts.get("--minutes"));
                    break;
                }
                for (String c : cases) {
                    if (round < 0 && !c.equals("throughput")) {
                        continue; // the queue case has no warm-up: the work, not the JIT, should be its limit
                    }
                    for (int k = 0; k < clients.size(); k++) {
                        String client = clients.get(Math.floorMod(k + round, clients.size()));
                        if (c.equals("queue") && client.startsWith("kflux-c")) {
                            continue; // the queue case's concurrency is the case's (--concurrency), not a variant's
                        }
                        if (c.equals("throughput") && client.startsWith("kflux-split")) {
                            continue; // it splits the work's slots from the confirmations': the throughput case has no work
                        }
                        List<String> childArgs = List.of(client, c, servers, "r" + round,
                                c.equals("queue") ? opts.get("--queue-records") : opts.get("--records"),
                                opts.get("--warmup-records"), opts.get("--work-ms"), opts.get("--concurrency"));
                        Map<String, String> r = fork(childArgs, childJvmArgs);
                        if (round < 0) {
                            System.out.printf("warm-up round %d %-10s %-8s %,10.0f records/s (not counted)  broker CPU %s"
                                    + " ns/record%n", round, c, client, d(r, "recordsPerSec"),
                                    r.get("brokerCpuNsPerRecord"));
                            continue;
                        }
                        loads.add(Double.parseDouble(r.get("load")));
                        results.computeIfAbsent(c, x -> new LinkedHashMap<>()).computeIfAbsent(client,
                                x -> new ArrayList<>()).add(r);
                        System.out.printf("round %d %-10s %-8s %,10.0f records/s  %,7.0f ns CPU/record  %3s threads"
                                        + " (peak %s, OS %s)  window %.1f s  set-up %.1f s  load %s  crc %s"
                                        + "  ShareFetches %s (%.0f records each)  ack p50/p99 %s/%s us (n %s)  poll p50/p99 %s/%s us"
                                + "  work mean/p50/p99 %s/%s/%s us  broker ShareFetch %s x %s ms, ShareAcknowledge %s x %s ms"
                                + "  broker CPU %s ns/record, ShareFetch queue/local/remote/response queue/send %s/%s/%s/%s/%s ms%n",
                                round, c,
                                client, d(r, "recordsPerSec"), d(r, "cpuNsPerRecord"), r.get("threads"),
                                r.get("peakThreads"), r.get("osThreads"), d(r, "windowNanos") / 1e9, d(r, "setupNanos") / 1e9,
                                r.get("load"), r.get("crc"), r.get("fetches"),
                                d(r, "fetchedRecords") / Math.max(1, d(r, "fetches")), r.get("ackP50Us"),
                                r.get("ackP99Us"), r.get("ackN"), r.get("pollP50Us"), r.get("pollP99Us"),
                                r.get("workMeanUs"), r.get("workP50Us"), r.get("workP99Us"), r.get("brokerShareFetches"), r.get("brokerShareFetchMs"), r.get("brokerShareAcks"),
                                r.get("brokerShareAckMs"), r.get("brokerCpuNsPerRecord"),
                                r.get("brokerShareFetchRequestQueueMs"), r.get("brokerShareFetchLocalMs"),
                                r.get("brokerShareFetchRemoteMs"), r.get("brokerShareFetchResponseQueueMs"),
                                r.get("brokerShareFetchResponseSendMs"));
                    }
                }
            }
            summarize(results, clients);
            System.out.printf("load average (1 min) over the runs: min %.2f, median %.2f, max %.2f%n",
                    loads.stream().mapToDouble(x -> x).min().orElse(0),
                    MedianInterval.of(loads.stream().mapToDouble(x -> x).toArray()).median(),
                    loads.stream().mapToDouble(x -> x).max().orElse(0));
        }
    }

    private static void summarize(Map<String, Map<String, List<Map<String, String>>>> results, List<String> clients) {
        System.out.println();
        System.out.println("| case | contender | records/s | ns CPU/record | Java threads (end of window / peak) | OS threads |"
                + " records/s ratio to official | ns CPU/record ratio |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (Map.Entry<String, Map<String, List<Map<String, String>>>> c : results.entrySet()) {
            String crc = null;
            for (List<Map<String, String>> runs : c.getValue().values()) {
                for (Map<String, String> r : runs) {
                    if (crc != null && !crc.equals(r.get("crc"))) {
                        throw new IllegalStateException(c.getKey() + ": checksums differ: " + crc + " and "
                                + r.get("crc"));
                    }
                    crc = r.get("crc");
                }
            }
            List<Map<String, String>> official = c.getValue().get("official");
            for (String client : clients) {
                List<Map<String, String>> runs = c.getValue().get(client);
                if (runs == null) {
                    continue; // not run in this case
                }
                String ratios = "";
                if (official != null && !client.equals("official")) {
                    ratios = " | " + interval(ratio(runs, official, "recordsPerSec"), "%.2f") + " | "
                            + interval(ratio(runs, official, "cpuNsPerRecord"), "%.2f");
                } else {
                    ratios = " | | ";
                }
                System.out.printf("| %s | %s | %s | %s | %s / %s | %s%s |%n", c.getKey(), client,
                        interval(values(runs, "recordsPerSec"), "%,.0f"), interval(values(runs, "cpuNsPerRecord"),
                                "%,.0f"),
                        interval(values(runs, "threads"), "%.0f"), interval(values(runs, "peakThreads"), "%.0f"),
                        interval(values(runs, "osThreads"), "%.0f"), ratios);
            }
        }
    }

    private static double[] values(List<Map<String, String>> runs, String key) {
        return runs.stream().mapToDouble(r -> d(r, key)).toArray();
    }

    private static double[] ratio(List<Map<String, String>> runs, List<Map<String, String>> official, String key) {
        int n = Math.min(runs.size(), official.size());
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = d(runs.get(i), key) / d(official.get(i), key);
        }
        return out;
    }

    private static String interval(double[] values, String format) {
        MedianInterval m = MedianInterval.of(values);
        return String.format(format + " (" + format + "-" + format + ")", m.median(), m.low(), m.high());
    }

    private static double d(Map<String, String> r, String key) {
        return Double.parseDouble(r.get(key));
    }

    /** Fills a topic once: {@code count} values of 100 B, partition {@code i % 8}, no keys. */
    private static void fill(EmbeddedKafkaCluster kafka, String topic, int count) {
        kafka.createTopic(topic, PARTITIONS, 1);
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(fillProps(kafka,
                "org.apache.kafka.common.serialization.ByteArraySerializer"))) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, value(i)));
            }
            producer.flush();
        }
        System.out.printf("filled %s: %,d records in %.1f s%n", topic, count, (System.nanoTime() - start) / 1e9);
    }

    /** The producer that fills a benchmark's topic once: acks=1, linger 20 ms, 256 KB batches, byte[] values. */
    static Properties fillProps(EmbeddedKafkaCluster kafka, String keySerializer) {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("acks", "1");
        p.put("linger.ms", "20");
        p.put("batch.size", Integer.toString(256 * 1024));
        p.put("key.serializer", keySerializer);
        p.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        return p;
    }

    /** Record i's value: its number, then text-like filler, 100 B. */
    static byte[] value(int i) {
        byte[] v = new byte[VALUE_SIZE];
        String head = "job-" + i + " ";
        for (int k = 0; k < v.length; k++) {
            v[k] = k < head.length() ? (byte) head.charAt(k) : (byte) ('a' + (i + k) % 26);
        }
        return v;
    }

    /** A new share group starts at the log end; the benchmark's groups start at offset 0. */
    static void earliest(String servers, String... groups) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers))) {
            Map<ConfigResource, java.util.Collection<AlterConfigOp>> ops = new LinkedHashMap<>();
            for (String g : groups) {
                ops.put(new ConfigResource(ConfigResource.Type.GROUP, g), List.of(new AlterConfigOp(
                        new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)));
            }
            admin.incrementalAlterConfigs(ops).all().get();
        }
    }

    private static Map<String, String> fork(List<String> childArgs, String childJvmArgs)
            throws IOException, InterruptedException {
        return ForkedJvm.run(withOfficialVersion(withBaseClasses(javaCommand(ShareRunner.class, childArgs,
                childJvmArgs), childArgs.get(0)), childArgs.get(0)), childArgs.get(0));
    }

    /**
     * A contender named {@code official-<version>} (e.g. {@code official-4.4.0}) is the official contender on that
     * kafka-clients release: its jar from the local Maven repository in place of the one this module builds with
     * (4.1.1, whose {@code KafkaShareConsumer} was a preview), so the share consumer of the releases that made share
     * groups production-ready (4.2+) is measured too. Other contenders' commands are returned as they are.
     */
    static List<String> withOfficialVersion(List<String> command, String contender) {
        if (!contender.startsWith("official-")) {
            return command;
        }
        String version = contender.substring("official-".length());
        List<String> out = new ArrayList<>(command);
        int cp = out.indexOf("-cp") + 1;
        List<String> entries = new ArrayList<>(List.of(out.get(cp).split(java.io.File.pathSeparator)));
        boolean replaced = false;
        for (int i = 0; i < entries.size(); i++) {
            Path jar = Path.of(entries.get(i));
            String name = jar.getFileName().toString();
            if (name.startsWith("kafka-clients-") && name.endsWith(".jar") && jar.getParent() != null
                    && jar.getParent().getParent() != null
                    && jar.getParent().getParent().getFileName().toString().equals("kafka-clients")) {
                Path other = jar.getParent().getParent().resolve(version).resolve("kafka-clients-" + version + ".jar");
                if (!java.nio.file.Files.isRegularFile(other)) {
                    throw new IllegalArgumentException(contender + ": no " + other + " (resolve it first, e.g. mvn "
                            + "dependency:get -Dartifact=org.apache.kafka:kafka-clients:" + version + ")");
                }
                entries.set(i, other.toString());
                replaced = true;
            }
        }
        if (!replaced) {
            throw new IllegalStateException(contender + ": no kafka-clients jar on the classpath to replace");
        }
        out.set(cp, String.join(java.io.File.pathSeparator, entries));
        return out;
    }

    /** The suffix of a contender that runs kflux as built elsewhere: see {@link #withBaseClasses}. */
    static final String BASE_SUFFIX = "-base";

    /**
     * A contender named {@code <name>-base} runs with the sdk classes of {@code -Dkflux.bench.baseClasses} (e.g. the
     * commit before a change, compiled in a worktree) first on its classpath, so a change is measured before and after
     * in one run; other contenders' commands are returned as they are.
     */
    static List<String> withBaseClasses(List<String> command, String contender) {
        if (!contender.endsWith(BASE_SUFFIX)) {
            return command;
        }
        String base = System.getProperty("kflux.bench.baseClasses");
        if (base == null) {
            throw new IllegalArgumentException(contender + " needs -Dkflux.bench.baseClasses=<an sdk's classes dir>");
        }
        List<String> withBase = new ArrayList<>(command);
        int cp = withBase.indexOf("-cp") + 1;
        withBase.set(cp, base + java.io.File.pathSeparator + withBase.get(cp));
        return withBase;
    }

    /** A contender JVM on this JVM's classpath and logging configuration: 1 GB heap, G1. */
    static List<String> javaCommand(Class<?> main, List<String> args) {
        return javaCommand(main, args, "");
    }

    /** As {@link #javaCommand(Class, List)}, with extra JVM options (blank for none), e.g. a JFR recording. */
    static List<String> javaCommand(Class<?> main, List<String> args, String childJvmArgs) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xms1g", "-Xmx1g", "-XX:+UseG1GC", "-cp", System.getProperty("java.class.path")));
        if (!childJvmArgs.isBlank()) {
            command.addAll(List.of(childJvmArgs.trim().split("\\s+")));
        }
        String logging = System.getProperty("log4j2.configurationFile");
        if (logging != null) {
            command.add("-Dlog4j2.configurationFile=" + logging);
        }
        command.add(main.getName());
        command.addAll(args);
        return command;
    }
}
