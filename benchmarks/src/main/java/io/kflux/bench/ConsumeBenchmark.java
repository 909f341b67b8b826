package io.kflux.bench;

import static io.kflux.bench.runner.JvmCounters.allocatedByThread;
import static io.kflux.bench.runner.JvmCounters.allocatedSince;
import static io.kflux.bench.runner.JvmCounters.gcMillis;
import static io.kflux.bench.runner.JvmCounters.loadAverage;
import static io.kflux.bench.runner.JvmCounters.parseArgs;
import static io.kflux.bench.runner.JvmCounters.processCpuNanos;

import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.fetch.FetchRequestListener;
import io.kflux.internal.DefaultKafkaFluxConsumer;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Drains a pre-filled topic from offset 0 with manual assignment, alternately with kflux and with the official
 * {@link KafkaConsumer}, in the same JVM, and prints records/s, MB/s (record keys and values), bytes allocated per
 * record (all threads of this JVM), the longest gap between two consecutive records, the time spent in GC and
 * the machine's load average (other processes on the machine distort the figures); and the Fetch requests each
 * drain sent (kflux: counted by a {@link FetchRequestListener}, with the partitions each Fetch's session holds;
 * official: its {@code fetch-total} metric), the drained key + value bytes per Fetch, this JVM's CPU per record and
 * the embedded broker's CPU per drain (its process's CPU time, from {@link ProcessHandle}).
 *
 * <p>{@code --work-ns} makes the subscriber the bottleneck (issue #32): each record costs that much busy CPU in the
 * record callback, the same for both clients; {@code --pin true} puts the broker on CPU 0 and this JVM on CPU 1 (Linux
 * {@code taskset}), so that neither lends the other a core.
 *
 * <pre>
 * --workload w1|w2          w1: 2M x 100 B, no compression (default); w2: 500k x 1 KB, lz4
 * --rounds N                measured drains per client (default 3)
 * --warmup N                unmeasured drains per client before the first round (default 1)
 * --clients kflux,official  which clients to run (default both; kflux-batches: kflux's receiveBatches(),
 *                           every record of each batch fed to the tally as the others' are)
 * --bootstrap-servers h:p   use this cluster instead of starting a 1-node embedded broker
 * --topic name              topic to fill once and drain (default bench-&lt;workload&gt;); an existing topic
 *                           holding exactly the workload's record count is reused as it is
 * --records N               records instead of the workload's count (the default topic name then ends in -N)
 * --work-ns N               busy CPU per record in the subscriber, ns (default 0)
 * --pin true                the embedded broker on CPU 0, this JVM on CPU 1 (taskset)
 * </pre>
 */
public final class ConsumeBenchmark {

    private static final int PARTITIONS = 8;
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);

    /** What the topic holds. */
    record Workload(String name, int records, int valueSize, String compression) {
        Workload withRecords(int count) {
            return new Workload(name, count, valueSize, compression);
        }

        static Workload of(String name) {
            return switch (name) {
                case "w1" -> new Workload("w1", 2_000_000, 100, "none");
                case "w2" -> new Workload("w2", 500_000, 1024, "lz4");
                default -> throw new IllegalArgumentException("unknown workload " + name + " (w1 or w2)");
            };
        }
    }

    /** One drained topic, as seen by one client. */
    record Drain(String client, long records, long bytes, long nanos, long allocatedBytes, long maxGapNanos,
                 long maxGapAt, long gcMillis, double loadAverage, long fetches, double partitionsPerFetch,
                 long cpuNanos, long brokerCpuNanos) {
        double recordsPerSecond() {
            return records * 1e9 / nanos;
        }

        double megabytesPerSecond() {
            return bytes * 1e3 / nanos;
        }

        double allocatedPerRecord() {
            return (double) allocatedBytes / records;
        }

        double bytesPerFetch() {
            return fetches == 0 ? 0 : (double) bytes / fetches;
        }

        double cpuNanosPerRecord() {
            return (double) cpuNanos / records;
        }
    }

    /** Per-record bookkeeping, identical for both clients so its cost is too. */
    static final class Tally {
        /** Busy CPU per record, ns ({@code --work-ns}). */
        final long workNanos;
        /** Fetch requests the client sent in this drain, and the partitions they carried (kflux only). */
        long fetches;
        long fetchPartitions;
        long records;
        long bytes;
        long last;
        long maxGap;
        long maxGapAt;

        Tally(long workNanos) {
            this.workNanos = workNanos;
        }

        void add(int keySize, int valueSize) {
            long now = System.nanoTime();
            if (workNanos > 0) {
                long until = now + workNanos;
                while (System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
            }
            if (records > 0 && now - last > maxGap) {
                maxGap = now - last;
                maxGapAt = records;
            }
            last = now;
            records++;
            bytes += Math.max(0, keySize) + Math.max(0, valueSize);
        }
    }

    interface Client {
        /** Reads {@code expected} records from the start of {@code partitions}, feeding each to {@code tally}. */
        void drain(String bootstrapServers, List<TopicPartition> partitions, long expected, Tally tally);
    }

    private ConsumeBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = parseArgs(args);
        Workload named = Workload.of(opts.getOrDefault("--workload", "w1"));
        int rounds = Integer.parseInt(opts.getOrDefault("--rounds", "3"));
        int warmup = Integer.parseInt(opts.getOrDefault("--warmup", "1"));
        Workload workload = opts.containsKey("--records")
                ? named.withRecords(Integer.parseInt(opts.get("--records"))) : named;
        long workNanos = Long.parseLong(opts.getOrDefault("--work-ns", "0"));
        boolean pin = Boolean.parseBoolean(opts.getOrDefault("--pin", "false"));
        String topic = opts.getOrDefault("--topic", "bench-" + workload.name()
                + (opts.containsKey("--records") ? "-" + workload.records() : ""));
        Map<String, Client> clients = new LinkedHashMap<>();
        for (String name : opts.getOrDefault("--clients", "kflux,official").split(",")) {
            clients.put(name, switch (name) {
                case "kflux" -> ConsumeBenchmark::drainWithKflux;
                case "kflux-batches" -> ConsumeBenchmark::drainWithKfluxBatches;
                case "official" -> ConsumeBenchmark::drainWithOfficial;
                default -> throw new IllegalArgumentException("unknown client " + name
                        + " (kflux, kflux-batches or official)");
            });
        }

        EmbeddedKafkaCluster kafka = null;
        String bootstrap = opts.get("--bootstrap-servers");
        try {
            if (bootstrap == null) {
                System.out.println("starting a 1-node embedded Kafka broker...");
                kafka = EmbeddedKafkaCluster.startCluster(1);
            }
            String servers = kafka == null ? bootstrap : kafka.bootstrapServers();
            System.out.printf("workload %s: %,d records x %d B, compression %s, %d partitions; topic %s at %s%n",
                    workload.name(), workload.records(), workload.valueSize(), workload.compression(), PARTITIONS,
                    topic, servers);
            fillOnce(servers, topic, workload);
            ProcessHandle broker = kafka == null ? null : ProcessHandle.current().children().findFirst().orElse(null);
            if (pin) {
                pin("1", ProcessHandle.current().pid());
                if (broker != null) {
                    pin("0", broker.pid());
                }
            }
            System.out.printf("work per record %d ns, %s; broker pid %s%n", workNanos,
                    pin ? "broker on CPU 0, clients on CPU 1" : "not pinned", broker == null ? "-" : broker.pid());
            Measure run = (name, client) -> measure(name, client, servers, partitions(topic), workload.records(),
                    workNanos, broker);
            for (int i = 1; i <= warmup; i++) {
                for (Map.Entry<String, Client> client : clients.entrySet()) {
                    Drain d = run.drain(client.getKey(), client.getValue());
                    System.out.printf("warm-up %d  %-13s %6.2f s, max gap %3d ms before record %,d%n", i, d.client(),
                            d.nanos() / 1e9, d.maxGapNanos() / 1_000_000, d.maxGapAt() + 1);
                }
            }
            Map<String, List<Drain>> results = new LinkedHashMap<>();
            for (int round = 1; round <= rounds; round++) {
                for (Map.Entry<String, Client> client : clients.entrySet()) {
                    Drain d = run.drain(client.getKey(), client.getValue());
                    results.computeIfAbsent(d.client(), k -> new ArrayList<>()).add(d);
                    System.out.printf("round %d  %-13s %,d records in %5.2f s: %5.2f M records/s, %6.1f MB/s,"
                                    + " %,4.0f B allocated/record, max gap %3d ms before record %,d"
                                    + " (GC %d ms, load %.1f)%n"
                                    + "          %,d Fetches, %s partitions/Fetch, %,.0f KB/Fetch, %,.0f ns CPU/record,"
                                    + " broker CPU %,d ms%n",
                            round, d.client(), d.records(), d.nanos() / 1e9, d.recordsPerSecond() / 1e6,
                            d.megabytesPerSecond(), d.allocatedPerRecord(), d.maxGapNanos() / 1_000_000,
                            d.maxGapAt() + 1, d.gcMillis(), d.loadAverage(), d.fetches(),
                            Double.isNaN(d.partitionsPerFetch()) ? "-" : String.format("%.1f", d.partitionsPerFetch()),
                            d.bytesPerFetch() / 1e3, d.cpuNanosPerRecord(), d.brokerCpuNanos() / 1_000_000);
                }
            }
            printSummary(results);
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    /** One measured drain by one client. */
    interface Measure {
        Drain drain(String name, Client client) throws InterruptedException;
    }

    private static List<TopicPartition> partitions(String topic) {
        return IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(topic, p)).toList();
    }

    private static Drain measure(String name, Client client, String servers, List<TopicPartition> partitions,
                                 long expected, long workNanos, ProcessHandle broker) throws InterruptedException {
        System.gc();
        Thread.sleep(200);
        Tally tally = new Tally(workNanos);
        Map<Long, Long> allocatedBefore = allocatedByThread();
        long gcBefore = gcMillis();
        long brokerCpuBefore = cpuNanos(broker);
        long cpuBefore = processCpuNanos();
        long start = System.nanoTime();
        client.drain(servers, partitions, expected, tally);
        long cpu = processCpuNanos() - cpuBefore;
        long brokerCpu = cpuNanos(broker) - brokerCpuBefore;
        long allocated = allocatedSince(allocatedBefore);
        long gc = gcMillis() - gcBefore;
        if (tally.records != expected) {
            throw new IllegalStateException(name + " read " + tally.records + " records, expected " + expected);
        }
        double partitionsPerFetch = tally.fetchPartitions == 0 ? Double.NaN
                : (double) tally.fetchPartitions / tally.fetches;
        return new Drain(name, tally.records, tally.bytes, tally.last - start, allocated, tally.maxGap,
                tally.maxGapAt, gc, loadAverage(), tally.fetches, partitionsPerFetch, cpu, brokerCpu);
    }

    /** CPU time of {@code process} so far (0 when unknown): the broker's share of a drain. */
    private static long cpuNanos(ProcessHandle process) {
        return process == null ? 0 : process.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    /** Moves every thread of process {@code pid} to {@code cpus} (Linux taskset). */
    private static void pin(String cpus, long pid) throws Exception {
        Process taskset = new ProcessBuilder("taskset", "-a", "-p", "-c", cpus, Long.toString(pid))
                .redirectErrorStream(true).start();
        String out = new String(taskset.getInputStream().readAllBytes());
        if (taskset.waitFor() != 0) {
            throw new IllegalStateException("taskset -a -p -c " + cpus + " " + pid + " failed: " + out);
        }
    }

    // ---------------------------------------------------------------- the two clients

    private static void drainWithKflux(String servers, List<TopicPartition> partitions, long expected, Tally tally) {
        KafkaFluxConsumer<byte[], byte[]> consumer = kflux(servers, partitions, tally);
        try {
            consumer.receive()
                    .take(expected)
                    .doOnNext(r -> tally.add(r.serializedKeySize(), r.serializedValueSize()))
                    .blockLast(DRAIN_TIMEOUT);
        } finally {
            close(consumer);
        }
    }

    /** receiveBatches(): one onNext per partition's fetched result (issue #28); every record still touched. */
    private static void drainWithKfluxBatches(String servers, List<TopicPartition> partitions, long expected,
                                              Tally tally) {
        KafkaFluxConsumer<byte[], byte[]> consumer = kflux(servers, partitions, tally);
        try {
            consumer.receiveBatches()
                    .doOnNext(batch -> {
                        for (io.kflux.ConsumerRecord<byte[], byte[]> r : batch.records()) {
                            tally.add(r.serializedKeySize(), r.serializedValueSize());
                        }
                    })
                    .takeUntil(batch -> tally.records >= expected)
                    .blockLast(DRAIN_TIMEOUT);
        } finally {
            close(consumer);
        }
    }

    private static KafkaFluxConsumer<byte[], byte[]> kflux(String servers, List<TopicPartition> partitions,
                                                           Tally tally) {
        ConsumerOptions<byte[], byte[]> options = ConsumerOptions.create(Map.of(
                        "bootstrap.servers", servers,
                        "client.id", "bench-kflux",
                        "auto.offset.reset", "earliest"))
                .assignment(partitions);
        KafkaFluxConsumer<byte[], byte[]> consumer = KafkaFluxConsumer.create(options);
        // on the consumer's loop, which also sends the Fetches: plain fields are enough, read after the drain
        ((DefaultKafkaFluxConsumer<byte[], byte[]>) consumer).fetchRequestListener(request -> {
            tally.fetches++;
            tally.fetchPartitions += request.sessionPartitions();
        });
        return consumer;
    }

    private static void close(KafkaFluxConsumer<byte[], byte[]> consumer) {
        try {
            consumer.close().block(Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            System.out.println("  (kflux close failed: " + e + ")");
        }
    }

    private static void drainWithOfficial(String servers, List<TopicPartition> partitions, long expected,
                                          Tally tally) {
        Properties props = new Properties();
        props.put("bootstrap.servers", servers);
        props.put("client.id", "bench-official");
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        List<org.apache.kafka.common.TopicPartition> assignment = partitions.stream()
                .map(tp -> new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition())).toList();
        long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer =
                     new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(assignment);
            consumer.seekToBeginning(assignment);
            while (tally.records < expected && System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    tally.add(r.serializedKeySize(), r.serializedValueSize());
                }
            }
            tally.fetches = (long) fetchTotal(consumer.metrics());
        }
    }

    /** The official consumer's {@code fetch-total} (consumer-fetch-manager-metrics): the Fetch requests it sent. */
    private static double fetchTotal(Map<MetricName, ? extends Metric> metrics) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().name().equals("fetch-total")
                        && e.getKey().group().equals("consumer-fetch-manager-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .findFirst().orElse(0);
    }

    // ---------------------------------------------------------------- the topic

    /** Creates and fills the topic with the official producer, unless it already holds the workload. */
    private static void fillOnce(String servers, String topic, Workload workload) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers))) {
            if (admin.listTopics().names().get().contains(topic)) {
                long existing = 0;
                Map<org.apache.kafka.common.TopicPartition, OffsetSpec> query = new HashMap<>();
                int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic)
                        .partitions().size();
                for (int p = 0; p < partitions; p++) {
                    query.put(new org.apache.kafka.common.TopicPartition(topic, p), OffsetSpec.latest());
                }
                for (var info : admin.listOffsets(query).all().get().values()) {
                    existing += info.offset();
                }
                if (partitions != PARTITIONS || existing != workload.records()) {
                    throw new IllegalStateException("topic " + topic + " exists with " + partitions
                            + " partitions and " + existing + " records; pass another --topic");
                }
                System.out.println("reusing the existing topic");
                return;
            }
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
        }
        long start = System.nanoTime();
        Properties props = new Properties();
        props.put("bootstrap.servers", servers);
        props.put("acks", "1");
        props.put("enable.idempotence", "false");
        props.put("linger.ms", "20");
        props.put("batch.size", Integer.toString(256 * 1024));
        props.put("compression.type", workload.compression());
        byte[][] values = payloads(workload.valueSize());
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer =
                     new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < workload.records() && failure.get() == null; i++) {
                producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, values[i % values.length]),
                        (metadata, error) -> {
                            if (error != null) {
                                failure.compareAndSet(null, error);
                            }
                        });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("filling " + topic + " failed", failure.get());
        }
        System.out.printf("filled %s in %.1f s%n", topic, (System.nanoTime() - start) / 1e9);
    }

    /** Text-like values: random words from a small vocabulary, so lz4 finds something to compress. */
    static byte[][] payloads(int size) {
        Random random = new Random(42);
        String[] words = {"order", "customer", "amount", "status", "shipped", "pending", "eur", "usd", "item",
                "quantity", "warehouse", "priority"};
        byte[][] values = new byte[1024][];
        for (int v = 0; v < values.length; v++) {
            StringBuilder text = new StringBuilder(size + 16);
            while (text.length() < size) {
                text.append(words[random.nextInt(words.length)]).append('=').append(random.nextInt(100_000))
                        .append(' ');
            }
            values[v] = text.substring(0, size).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
        return values;
    }

    // ---------------------------------------------------------------- allocation accounting

    // ---------------------------------------------------------------- output

    private static void printSummary(Map<String, List<Drain>> results) {
        System.out.println("medians:");
        results.forEach((client, drains) -> System.out.printf(
                "  %-13s %5.2f M records/s, %6.1f MB/s, %,6.0f B allocated/record, max gap %,d ms (worst round);"
                        + " %,.0f Fetches/drain, %,.0f KB/Fetch, %,.0f ns CPU/record, broker CPU %,.0f ms/drain%n",
                client, median(drains, Drain::recordsPerSecond) / 1e6, median(drains, Drain::megabytesPerSecond),
                median(drains, Drain::allocatedPerRecord),
                drains.stream().mapToLong(Drain::maxGapNanos).max().orElse(0) / 1_000_000,
                median(drains, Drain::fetches), median(drains, Drain::bytesPerFetch) / 1e3,
                median(drains, Drain::cpuNanosPerRecord), median(drains, d -> d.brokerCpuNanos() / 1e6)));
        List<Drain> official = results.get("official");
        List<Drain> batches = results.get("kflux-batches");
        if (batches != null && official != null) {
            printRatio("ns CPU/record (receiveBatches)", batches, official, Drain::cpuNanosPerRecord);
        }
        if (batches != null && results.get("kflux") != null) {
            List<Drain> receive = results.get("kflux");
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < Math.min(batches.size(), receive.size()); i++) {
                ratios.add(batches.get(i).cpuNanosPerRecord() / receive.get(i).cpuNanosPerRecord());
            }
            System.out.printf("  kflux receiveBatches()/receive() ns CPU/record: %.2f (median of the per-round"
                    + " ratios %s)%n", median(ratios, r -> r), ratios.stream().map(r -> String.format("%.2f", r))
                    .toList());
        }
        List<Drain> kflux = results.get("kflux");
        if (kflux != null && official != null) {
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < kflux.size(); i++) {
                ratios.add(kflux.get(i).recordsPerSecond() / official.get(i).recordsPerSecond());
            }
            System.out.printf("  kflux/official records/s: %.2f (median of the per-round ratios %s)%n",
                    median(ratios, r -> r), ratios.stream().map(r -> String.format("%.2f", r)).toList());
            printRatio("Fetches/drain", kflux, official, Drain::fetches);
            printRatio("broker CPU/drain", kflux, official, Drain::brokerCpuNanos);
            printRatio("ns CPU/record", kflux, official, Drain::cpuNanosPerRecord);
        }
    }

    private static void printRatio(String what, List<Drain> kflux, List<Drain> official,
                                   java.util.function.ToDoubleFunction<Drain> value) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < Math.min(kflux.size(), official.size()); i++) {
            ratios.add(value.applyAsDouble(kflux.get(i)) / value.applyAsDouble(official.get(i)));
        }
        System.out.printf("  kflux/official %s: %.2f (median of the per-round ratios %s)%n", what,
                median(ratios, r -> r), ratios.stream().map(r -> String.format("%.2f", r)).toList());
    }

    private static <T> double median(List<T> items, java.util.function.ToDoubleFunction<T> value) {
        List<Double> sorted = new ArrayList<>(items.stream().map(value::applyAsDouble).toList());
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

}
