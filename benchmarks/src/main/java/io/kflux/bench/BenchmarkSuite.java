package io.kflux.bench;

import static io.kflux.bench.runner.JvmCounters.parseArgs;

import io.kflux.bench.runner.DrainHarness;
import io.kflux.bench.runner.BrokerView;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Issue #5's suite, extended by #17: every case drained by every contender on one broker and the same pre-filled
 * topics, each contender in a JVM of its own with the same flags (reactor-kafka cannot share kafka-clients 4.x's
 * classpath, so the others are forked too, for equal footing), contenders alternating within a round and the first
 * one rotating from round to round. Each forked JVM warms up unmeasured ({@code --warmup} one-pass drains), then
 * drains once measured over a window of at least
 * {@code --window-seconds} of steady consumption (repeated passes over the topic, see {@link DrainHarness}); every
 * drain is verified per partition (offsets, count, checksum of key and value bytes), and the checksums must be
 * equal across contenders, or the suite stops. It runs the drain cases with a spare core
 * and again with the contender pinned to one core and the broker to another ({@code --cpu-modes}), then the e2e
 * latency case and the scale case, and prints every table in Markdown at the end. It prints its plan with an
 * estimated duration first ({@link SuitePlan}: without {@code --clients} each case has the contenders its figures
 * are for) and where each JVM's time went ({@link JvmTimings}).
 *
 * <pre>
 * --cases 1,2-lz4,2-zstd,3,4-keys,e2e,scale
 *                                1: 5M x 100 B, 8 partitions, none; 2-lz4 / 2-zstd: 500k x 1 KB, 8 partitions;
 *                                3: 200 partitions x 10k x 100 B, none; 4-keys: 2M x 100 B with 16 B keys and
 *                                3 headers, 8 partitions, none; e2e: latency at a fixed produce rate;
 *                                scale: N consumers of one partition each in one JVM
 * --clients kflux,official,official-kip848,reactor-kafka,raw
 *                                the contenders of every case and mode; without it each case has its own
 *                                (SuitePlan): kflux, official and official-kip848 on 1 and 2-lz4 in both modes,
 *                                with a spare core also raw on 1 and reactor-kafka on 2-lz4; kflux and official
 *                                on 4-keys, 2-zstd, 3 and scale; all but raw on e2e
 *                                (raw has no e2e figure: it decodes no record; the scale case has kflux and
 *                                official only); kflux-metrics, not run unless named, is kflux with a Micrometer
 *                                SimpleMeterRegistry attached: --clients kflux,kflux-metrics measures what
 *                                publishing the meters costs (issue #16: at most 3% on case 1); kflux-batches,
 *                                likewise only when named, is kflux's receiveBatches() (issue #28)
 * --rounds N                     measured drains per contender, case and CPU mode (default 15)
 * --warmup N                     unmeasured one-pass drains in each forked JVM, a new consumer each (default 3)
 * --warmup-seconds S             instead: one-pass drains until S seconds have passed, at least one (not enough
 *                                at 3 s: see BENCHMARKS.md)
 * --window-seconds S             least length of the measured window (default 10)
 * --scale F                      multiply record counts by F, for a quick check of the suite itself (default 1)
 * --jvm-args a,b,...             flags of every contender JVM, comma- or space-separated, naming the collector
 *                                (default -Xms1g,-Xmx1g,-XX:+UseG1GC)
 * --cpu-modes spare,one-core     spare: no pinning; one-core: each contender JVM on --contender-cpu (default 0),
 *                                the broker and the suite on --broker-cpu (default 1)
 * --one-core-cases 1,2-lz4       the drain cases also run in the one-core mode (default 1,2-lz4)
 * --e2e-rate N                   records/s produced during e2e (default 20000)
 * --e2e-seconds N                measured seconds per e2e run (default 20), after --e2e-warmup-seconds (5)
 * --e2e-rounds N                 runs per contender of the e2e case (default 6)
 * --e2e-lead-seconds N           seconds the producer runs alone before the first e2e run (default 20): the
 *                                broker's JIT settles on small produce and fetch requests
 * --scale-consumers N            consumers (and partitions) of the scale case (default 100)
 * --scale-rate N                 records/s produced in total during the scale case (default 1000)
 * --scale-seconds S              measured seconds per scale run (default 30), after --scale-warmup-seconds (10)
 * --scale-rounds N               runs per contender of the scale case (default 5)
 * --scale-warmup-rounds N        unmeasured JVMs of the first contender before them (default 1): the run's first JVM
 *                                meets a broker and a producer still settling
 * --scale-jvm-args a,b,...       flags of the scale case's JVMs (default -Xms256m,-Xmx4g,-XX:+UseG1GC)
 * --scale-topic-partitions N     partitions per topic of the scale case (default 100): each consumer asks for its
 *                                topic's metadata, so one topic of N partitions would cost N&sup2; in all
 * --scale-consumer-props k=v,... settings of both clients' scale consumers (default none). For 10,000 consumers on
 *                                one machine: connections.max.idle.ms=10000 closes each consumer's unused bootstrap
 *                                connection during the warm-up (a limit of 20,000 open files does not hold two per
 *                                consumer), fetch.max.wait.ms=5000 cuts the empty Fetches the brokers answer
 * --scale-starts-per-second N    consumers each scale JVM starts per second (default 0: all at once); the
 *                                "creation" column then includes the pacing
 * --brokers N                    nodes of the embedded cluster (default 1); each is a JVM of its own, which spreads
 *                                the scale case's partitions and connections over N processes' open-file limits
 * --bootstrap-servers h:p        use this cluster instead of starting an embedded one (no one-core mode)
 * </pre>
 *
 * <p>The reactor-kafka contender runs on this module's classes and the reactor-kafka jars its build copies
 * ({@link ReactorKafkaClasspath}), in the build directory the system property {@code kflux.bench.reactorKafkaDir}
 * names (the {@code exec@bench} execution sets it).
 */
public final class BenchmarkSuite {

    private static final List<String> ALL_CASES = List.of("1", "2-lz4", "2-zstd", "3", "4-keys", "bound", "e2e",
            "scale");
    /**
     * Without {@code --cases}: what issue #17's tables and targets need. 2-zstd and 3 (200 partitions), from the
     * issue #5 suite, are left to {@code --cases}: about 20 minutes that would take the default run past what a
     * 3-hour working session can give it beside CI.
     */
    private static final List<String> DEFAULT_CASES = List.of("1", "2-lz4", "4-keys", "e2e", "scale");
    private static final List<String> ALL_CLIENTS = List.of("kflux", "official", "official-kip848", "reactor-kafka",
            "raw");
    /** Contenders run only when {@code --clients} names them. */
    private static final List<String> KNOWN_CLIENTS = List.of("kflux", "kflux-metrics", "kflux-batches", "official",
            "official-kip848", "reactor-kafka", "raw");
    private static final List<String> CPU_MODES = List.of("spare", "one-core");
    /**
     * One-pass warm-up drains per contender JVM unless {@code --warmup-seconds} is given: a 3 s floor (one cold pass
     * of case 1) left the official client's window with 380 ns/record of JIT against 25 after 3 passes (BENCHMARKS.md).
     */
    private static final String DEFAULT_WARMUP_DRAINS = "3";
    private static final String E2E_TOPIC = "suite-e2e";
    private static final int E2E_PARTITIONS = 8;
    static final int HEADERS = 3;

    /**
     * A drain case; {@code workNanos} is busy CPU the subscriber spends per record (the same for every contender):
     * above 0 the consumer, not the broker, is the limit (case {@code bound}, issue #32).
     */
    record Case(String name, String description, int partitions, long records, int valueSize, String compression,
                int keySize, long workNanos) {
        static Case of(String name, double scale) {
            Case c = switch (name) {
                case "1" -> new Case("1", "5M x 100 B, 8 partitions, none", 8, 5_000_000, 100, "none", 0, 0);
                case "2-lz4" -> new Case("2-lz4", "500k x 1 KB, 8 partitions, lz4", 8, 500_000, 1024, "lz4", 0, 0);
                case "2-zstd" -> new Case("2-zstd", "500k x 1 KB, 8 partitions, zstd", 8, 500_000, 1024, "zstd", 0, 0);
                case "3" -> new Case("3", "200 partitions x 10k x 100 B, none", 200, 2_000_000, 100, "none", 0, 0);
                case "4-keys" -> new Case("4-keys", "2M x 100 B, 16 B keys, 3 headers, 8 partitions, none", 8,
                        2_000_000, 100, "none", 16, 0);
                case "bound" -> new Case("bound", "2M x 100 B, 8 partitions, none; 0.5 us of work per record in the"
                        + " subscriber", 8, 2_000_000, 100, "none", 0, 500);
                default -> throw new IllegalArgumentException("unknown case " + name + " (one of " + ALL_CASES + ")");
            };
            long records = Math.max(c.partitions(), Math.round(c.records() * scale) / c.partitions() * c.partitions());
            return new Case(c.name(), c.description(), c.partitions(), records, c.valueSize(), c.compression(),
                    c.keySize(), c.workNanos());
        }

        String topic() {
            return "suite-" + name + "-" + records;
        }
    }

    /** One forked run's figures, as its result line gave them. */
    record Result(String client, int round, Map<String, String> fields) {
        long get(String key) {
            return Long.parseLong(fields.get(key));
        }

        double recordsPerSecond() {
            return get("records") * 1e9 / get("nanos");
        }

        /** Records over the window without its stalls (gaps of {@code Tally.STALL_NANOS} or more). */
        double steadyRecordsPerSecond() {
            return get("records") * 1e9 / (get("nanos") - get("stallNanos"));
        }

        double megabytesPerSecond() {
            return get("bytes") * 1e3 / get("nanos");
        }

        double allocatedPerRecord() {
            return (double) get("allocated") / get("records");
        }

        double cpuNanosPerRecord() {
            return (double) get("cpuNanos") / get("records");
        }

        /** CPU of a thread group ({@code cpuJit}, {@code cpuGc}) per record, NaN where it was not read. */
        double groupNanosPerRecord(String key) {
            long v = get(key);
            return v < 0 ? Double.NaN : (double) v / get("records");
        }
    }

    /** The suite's settings, from its command line. */
    record Settings(List<String> cases, List<String> clients, int rounds, int warmup, double warmupSeconds,
                    double windowSeconds, List<String> cpuModes, List<String> oneCoreCases, String contenderCpu,
                    String brokerCpu, Map<String, String> opts) {
    }

    private BenchmarkSuite() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = parseArgs(args);
        double scale = Double.parseDouble(opts.getOrDefault("--scale", "1"));
        Settings s = new Settings(list(opts, "--cases", String.join(",", DEFAULT_CASES), ALL_CASES),
                list(opts, "--clients", String.join(",", ALL_CLIENTS), KNOWN_CLIENTS),
                Integer.parseInt(opts.getOrDefault("--rounds", "15")),
                Integer.parseInt(opts.getOrDefault("--warmup", opts.containsKey("--warmup-seconds") ? "0"
                        : DEFAULT_WARMUP_DRAINS)),
                Double.parseDouble(opts.getOrDefault("--warmup-seconds", "0")),
                Double.parseDouble(opts.getOrDefault("--window-seconds", "10")),
                list(opts, "--cpu-modes", String.join(",", CPU_MODES), CPU_MODES),
                list(opts, "--one-core-cases", "1,2-lz4", ALL_CASES),
                opts.getOrDefault("--contender-cpu", "0"), opts.getOrDefault("--broker-cpu", "1"), opts);
        List<String> jvmArgs = jvmArgs(opts, "--jvm-args", "-Xms1g -Xmx1g -XX:+UseG1GC");
        System.out.printf("suite: cases %s, clients %s, CPU modes %s (one-core cases %s), %d rounds, warm-up %s"
                        + " per JVM, windows of %.0f s or more, JVM flags %s, %d cores, %s%n", s.cases(),
                s.clients(), s.cpuModes(), s.oneCoreCases(), s.rounds(), s.warmup() > 0 ? s.warmup()
                        + " one-pass drains" : s.warmupSeconds() + " s", s.windowSeconds(), jvmArgs,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        SuitePlan plan = new SuitePlan(s, opts.containsKey("--clients"), scale);
        plan.print(!opts.containsKey("--bootstrap-servers"));
        JvmTimings timings = new JvmTimings();

        EmbeddedKafkaCluster kafka = null;
        String brokerPids = "";
        String servers = opts.get("--bootstrap-servers");
        if (servers != null && s.cpuModes().contains("one-core")) {
            throw new IllegalArgumentException("the one-core mode pins the embedded broker; with"
                    + " --bootstrap-servers pass --cpu-modes spare");
        }
        SuiteTables tables = new SuiteTables(plan.allClients());
        String allCpus = CpuPinning.allCpus(); // read before anything is pinned
        try {
            if (servers == null) {
                int brokers = Integer.parseInt(opts.getOrDefault("--brokers", "1"));
                System.out.printf("starting a %d-node embedded Kafka cluster...%n", brokers);
                kafka = EmbeddedKafkaCluster.startCluster(brokers);
                servers = kafka.bootstrapServers();
                brokerPids = BrokerView.childPids(); // before any contender JVM: the brokers alone
            }
            for (String mode : s.cpuModes()) {
                boolean oneCore = mode.equals("one-core");
                if (kafka != null) {
                    CpuPinning.pinSelfAndChildren(oneCore ? s.brokerCpu() : allCpus);
                }
                Runner runner = new Runner(jvmArgs, oneCore ? s.contenderCpu() : null);
                for (SuitePlan.Step step : plan.drains(mode)) {
                    Case c = Case.of(step.caseName(), scale);
                    long started = System.nanoTime();
                    tables.addDrains(mode, c, runCase(runner, servers, brokerPids, c, s, step, timings));
                    plan.progress("case " + c.name() + " (" + mode + ")", started, plan.stepSeconds(step));
                }
            }
            if (kafka != null) {
                CpuPinning.pinSelfAndChildren(allCpus);
            }
            Runner runner = new Runner(jvmArgs, null);
            if (!plan.e2eClients().isEmpty()) {
                long started = System.nanoTime();
                tables.addLatencies(runLatency(runner, servers, plan, opts, timings));
                plan.progress("case e2e", started, plan.e2eSeconds());
            }
            if (s.cases().contains("scale")) {
                Runner scaleRunner = new Runner(jvmArgs(opts, "--scale-jvm-args", "-Xms256m -Xmx4g -XX:+UseG1GC"),
                        null);
                long started = System.nanoTime();
                Map<String, List<Result>> byClient = ScaleCase.run(scaleRunner, servers, brokerPids, s.clients(), opts);
                byClient.values().forEach(rs -> rs.forEach(r -> timings.add("scale", r)));
                tables.addScale(byClient);
                plan.progress("case scale", started, plan.scaleSeconds());
            }
        } finally {
            if (kafka != null) {
                kafka.close();
            }
            // also when a later step failed: an hour of drains is not thrown away with it
            tables.print();
            timings.print();
        }
        System.out.printf("%nsuite elapsed: %s%n", SuitePlan.minutes(plan.elapsedSeconds()));
    }

    private static List<String> list(Map<String, String> opts, String option, String defaults, List<String> allowed) {
        List<String> values = Arrays.asList(opts.getOrDefault(option, defaults).split(","));
        for (String v : values) {
            if (!allowed.contains(v)) {
                throw new IllegalArgumentException("unknown " + option + " value " + v + " (one of " + allowed + ")");
            }
        }
        return values;
    }

    /** JVM flags, which must name the collector: a JVM that sees one CPU would otherwise pick Serial GC alone. */
    private static List<String> jvmArgs(Map<String, String> opts, String option, String defaults) {
        List<String> flags = List.of(opts.getOrDefault(option, defaults).trim().split("[\\s,]+"));
        if (flags.stream().noneMatch(f -> f.matches("-XX:\\+Use\\w+GC"))) {
            throw new IllegalArgumentException(option + " must name the collector (e.g. -XX:+UseG1GC or"
                    + " -XX:+UseSerialGC), so that every contender runs with the same one: " + flags);
        }
        return flags;
    }

    // ---------------------------------------------------------------- throughput

    private static Map<String, List<Result>> runCase(Runner runner, String servers, String brokerPids, Case c,
                                                     Settings s,
                                                     SuitePlan.Step step, JvmTimings timings) throws Exception {
        String mode = step.mode();
        System.out.printf("%ncase %s (%s): %s, %,d records, topic %s, contenders %s%n", c.name(), mode,
                c.description(), c.records(), c.topic(), step.clients());
        String topicId = fillOnce(servers, c);
        Map<String, List<Result>> results = new LinkedHashMap<>();
        String checksum = null;
        String checksumClient = null;
        for (int round = 1; round <= s.rounds(); round++) {
            for (String client : rotate(step.clients(), round - 1)) {
                List<String> args = new ArrayList<>(List.of("--client", client, "--mode", "drain",
                        "--bootstrap-servers", servers, "--topic", c.topic(), "--topic-id", topicId,
                        "--partitions", Integer.toString(c.partitions()), "--records", Long.toString(c.records()),
                        "--value-size", Integer.toString(c.valueSize()), "--warmup", Integer.toString(s.warmup()),
                        "--warmup-seconds", Double.toString(s.warmupSeconds()),
                        "--window-seconds", Double.toString(s.windowSeconds()),
                        "--work-ns", Long.toString(c.workNanos()), "--broker-pids", brokerPids));
                Result r = runner.run(client, round, args);
                timings.add("case " + c.name() + " " + mode, r);
                results.computeIfAbsent(client, k -> new ArrayList<>()).add(r);
                System.out.printf("  case %s %s round %d %-15s %5.2f M records/s (steady %5.2f M) %6.0f ns CPU/record"
                                + " %,7.0f B/record, window %.1f s (%d+ passes), set-up %.2f s, max gap %4d ms before"
                                + " record %,d, %d stalls, %d discarded after seeks, GC %d ms, load %s%n",
                        c.name(), mode, round, client, r.recordsPerSecond() / 1e6, r.steadyRecordsPerSecond() / 1e6,
                        r.cpuNanosPerRecord(), r.allocatedPerRecord(), r.get("nanos") / 1e9, r.get("passes"),
                        r.get("setupNanos") / 1e9, r.get("maxGapNanos") / 1_000_000, r.get("maxGapAt") + 1,
                        r.get("stalls"), r.get("discarded"), r.get("gcMillis"), r.fields().get("load"));
                System.out.printf("    %s%n", JvmTimings.line(r));
                if (!client.equals("raw")) {
                    // raw decodes no record, so it has no checksum; its offsets and counts are still checked
                    if (checksum == null) {
                        checksum = r.fields().get("checksum");
                        checksumClient = client;
                    } else if (!checksum.equals(r.fields().get("checksum"))) {
                        throw new IllegalStateException("case " + c.name() + ": " + client + " round " + round
                                + " read checksum " + r.fields().get("checksum") + ", " + checksumClient + " read "
                                + checksum + ": the contenders did not read the same records");
                    }
                }
            }
        }
        return results;
    }

    private static List<String> rotate(List<String> clients, int by) {
        List<String> order = new ArrayList<>(clients);
        Collections.rotate(order, -(by % order.size()));
        return order;
    }

    /**
     * Creates and fills the case's topic with the official producer, unless it already holds the case; its id.
     *
     * @throws IllegalStateException unless every partition ends at {@code records / partitions}
     */
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
            long perPartition = c.records() / c.partitions();
            Map<org.apache.kafka.common.TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                    admin.listOffsets(query).all().get();
            if (description.partitions().size() != c.partitions()
                    || ends.values().stream().anyMatch(info -> info.offset() != perPartition)) {
                throw new IllegalStateException("topic " + c.topic() + " has " + description.partitions().size()
                        + " partitions ending at " + ends.values().stream().map(i -> i.offset()).toList()
                        + ", not " + c.partitions() + " of " + perPartition + " records; delete it");
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
                int partition = (int) (i % c.partitions());
                byte[] value = values[(int) (i % values.length)];
                ProducerRecord<byte[], byte[]> record = c.keySize() == 0
                        ? new ProducerRecord<>(c.topic(), partition, null, value)
                        : new ProducerRecord<>(c.topic(), partition, key(i, c.keySize()), value, headers(i));
                producer.send(record, (metadata, error) -> {
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

    /** A key of {@code size} bytes unique to record {@code i}: its decimal number, zero-padded. */
    static byte[] key(long i, int size) {
        String digits = Long.toString(i);
        return ("0".repeat(Math.max(0, size - digits.length())) + digits).getBytes(StandardCharsets.US_ASCII);
    }

    /** The {@value #HEADERS} headers of record {@code i}, as tracing and routing put them. */
    static RecordHeaders headers(long i) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("trace-id", key(i * 7919, 16));
        headers.add("event-type", "order-updated".getBytes(StandardCharsets.US_ASCII));
        headers.add("source", "bench".getBytes(StandardCharsets.US_ASCII));
        return headers;
    }

    static Properties producerProps(String servers) {
        Properties props = new Properties();
        props.put("bootstrap.servers", servers);
        props.put("acks", "1");
        props.put("enable.idempotence", "false");
        return props;
    }

    // ---------------------------------------------------------------- end-to-end latency

    private static Map<String, List<Result>> runLatency(Runner runner, String servers, SuitePlan plan,
                                                        Map<String, String> opts, JvmTimings timings)
            throws Exception {
        List<String> clients = plan.e2eClients();
        int rounds = plan.e2eRounds();
        int rate = Integer.parseInt(opts.getOrDefault("--e2e-rate", "20000"));
        long measureMs = plan.e2eMeasureMillis();
        long warmupMs = plan.e2eWarmupMillis();
        long leadMs = plan.e2eLeadMillis();
        System.out.printf("%ncase e2e: %,d records/s of %d B into %d partitions, %d s measured after %d s warm-up"
                + " per run%n", rate, FixedRateProducer.VALUE_SIZE, E2E_PARTITIONS, measureMs / 1000, warmupMs / 1000);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers))) {
            if (!admin.listTopics().names().get().contains(E2E_TOPIC)) {
                admin.createTopics(List.of(new NewTopic(E2E_TOPIC, E2E_PARTITIONS, (short) 1))).all().get();
            }
        }
        Map<String, List<Result>> results = new LinkedHashMap<>();
        try (FixedRateProducer producer = new FixedRateProducer(servers, E2E_TOPIC, E2E_PARTITIONS, rate)) {
            // the producer alone first: a broker fresh from the drain cases (or just started) spends its first
            // seconds of small produce and fetch requests compiling them, a core's worth on a 2-core machine,
            // and the first rounds measured that instead of the consumers
            Thread.sleep(leadMs);
            for (int round = 1; round <= rounds; round++) {
                for (String client : rotate(clients, round - 1)) {
                    long sentBefore = producer.sent.get();
                    Result r = runner.run(client, round, List.of("--client", client, "--mode", "e2e",
                            "--bootstrap-servers", servers, "--topic", E2E_TOPIC,
                            "--partitions", Integer.toString(E2E_PARTITIONS),
                            "--e2e-warmup-ms", Long.toString(warmupMs), "--e2e-measure-ms", Long.toString(measureMs)));
                    results.computeIfAbsent(client, k -> new ArrayList<>()).add(r);
                    timings.add("e2e", r);
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

    // ---------------------------------------------------------------- forked contenders

    /** Forks one contender JVM, on one CPU when asked to, and reads its result line. */
    static final class Runner {
        private final List<String> jvmArgs;
        private final String cpu;
        private final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        private String reactorKafkaClasspath;

        /** @param cpu the CPU (a taskset list) every contender JVM is pinned to, or null */
        Runner(List<String> jvmArgs, String cpu) {
            this.jvmArgs = jvmArgs;
            this.cpu = cpu;
        }

        Result run(String client, int round, List<String> args) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>();
            if (cpu != null) {
                command.addAll(CpuPinning.prefix(cpu));
            }
            command.add(java);
            command.addAll(jvmArgs);
            command.add("-cp");
            if (client.equals("reactor-kafka")) {
                command.add(reactorKafkaClasspath());
                command.add("io.kflux.bench.runner.ReactorKafkaRunner");
            } else {
                command.add(System.getProperty("java.class.path"));
                String logging = System.getProperty("log4j2.configurationFile");
                if (logging != null) {
                    command.add(command.size() - 2, "-Dlog4j2.configurationFile=" + logging);
                }
                command.add(DrainRunner.class.getName());
            }
            command.addAll(args);
            long started = System.nanoTime();
            Map<String, String> fields = ForkedJvm.run(command, client);
            // the process's whole life as the suite sees it: JVM start to exit, output read
            fields.put("wallNanos", Long.toString(System.nanoTime() - started));
            return new Result(client, round, fields);
        }

        private String reactorKafkaClasspath() throws IOException {
            if (reactorKafkaClasspath == null) {
                String dir = System.getProperty("kflux.bench.reactorKafkaDir");
                if (dir == null) {
                    throw new IllegalStateException("set -Dkflux.bench.reactorKafkaDir to the benchmarks module's"
                            + " build directory (exec:exec@bench does)");
                }
                reactorKafkaClasspath = ReactorKafkaClasspath.of(dir);
            }
            return reactorKafkaClasspath;
        }
    }

}
