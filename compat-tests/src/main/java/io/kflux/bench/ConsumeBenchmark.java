package io.kflux.bench;

import static io.kflux.bench.runner.JvmCounters.allocatedByThread;
import static io.kflux.bench.runner.JvmCounters.allocatedSince;
import static io.kflux.bench.runner.JvmCounters.gcMillis;
import static io.kflux.bench.runner.JvmCounters.loadAverage;
import static io.kflux.bench.runner.JvmCounters.parseArgs;

import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
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
 * the machine's load average (other processes on the machine distort the figures).
 *
 * <pre>
 * --workload w1|w2          w1: 2M x 100 B, no compression (default); w2: 500k x 1 KB, lz4
 * --rounds N                measured drains per client (default 3)
 * --warmup N                unmeasured drains per client before the first round (default 1)
 * --clients kflux,official  which clients to run (default both)
 * --bootstrap-servers h:p   use this cluster instead of starting a 1-node embedded broker
 * --topic name              topic to fill once and drain (default bench-&lt;workload&gt;); an existing topic
 *                           holding exactly the workload's record count is reused as it is
 * </pre>
 */
public final class ConsumeBenchmark {

    private static final int PARTITIONS = 8;
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);

    /** What the topic holds. */
    record Workload(String name, int records, int valueSize, String compression) {
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
                 long maxGapAt, long gcMillis, double loadAverage) {
        double recordsPerSecond() {
            return records * 1e9 / nanos;
        }

        double megabytesPerSecond() {
            return bytes * 1e3 / nanos;
        }

        double allocatedPerRecord() {
            return (double) allocatedBytes / records;
        }
    }

    /** Per-record bookkeeping, identical for both clients so its cost is too. */
    static final class Tally {
        long records;
        long bytes;
        long last;
        long maxGap;
        long maxGapAt;

        void add(int keySize, int valueSize) {
            long now = System.nanoTime();
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
        Workload workload = Workload.of(opts.getOrDefault("--workload", "w1"));
        int rounds = Integer.parseInt(opts.getOrDefault("--rounds", "3"));
        int warmup = Integer.parseInt(opts.getOrDefault("--warmup", "1"));
        String topic = opts.getOrDefault("--topic", "bench-" + workload.name());
        Map<String, Client> clients = new LinkedHashMap<>();
        for (String name : opts.getOrDefault("--clients", "kflux,official").split(",")) {
            clients.put(name, switch (name) {
                case "kflux" -> ConsumeBenchmark::drainWithKflux;
                case "official" -> ConsumeBenchmark::drainWithOfficial;
                default -> throw new IllegalArgumentException("unknown client " + name + " (kflux or official)");
            });
        }

        EmbeddedKafkaCluster kafka = null;
        String servers = opts.get("--bootstrap-servers");
        try {
            if (servers == null) {
                System.out.println("starting a 1-node embedded Kafka broker...");
                kafka = EmbeddedKafkaCluster.startCluster(1);
                servers = kafka.bootstrapServers();
            }
            System.out.printf("workload %s: %,d records x %d B, compression %s, %d partitions; topic %s at %s%n",
                    workload.name(), workload.records(), workload.valueSize(), workload.compression(), PARTITIONS,
                    topic, servers);
            fillOnce(servers, topic, workload);
            List<TopicPartition> partitions = IntStream.range(0, PARTITIONS)
                    .mapToObj(p -> new TopicPartition(topic, p)).toList();

            for (int i = 1; i <= warmup; i++) {
                for (Map.Entry<String, Client> client : clients.entrySet()) {
                    Drain d = measure(client.getKey(), client.getValue(), servers, partitions, workload.records());
                    System.out.printf("warm-up %d  %-8s %6.2f s, max gap %3d ms before record %,d%n", i, d.client(),
                            d.nanos() / 1e9, d.maxGapNanos() / 1_000_000, d.maxGapAt() + 1);
                }
            }
            Map<String, List<Drain>> results = new LinkedHashMap<>();
            for (int round = 1; round <= rounds; round++) {
                for (Map.Entry<String, Client> client : clients.entrySet()) {
                    Drain d = measure(client.getKey(), client.getValue(), servers, partitions, workload.records());
                    results.computeIfAbsent(d.client(), k -> new ArrayList<>()).add(d);
                    System.out.printf("round %d  %-8s %,d records in %5.2f s: %5.2f M records/s, %6.1f MB/s,"
                                    + " %,4.0f B allocated/record, max gap %3d ms before record %,d"
                                    + " (GC %d ms, load %.1f)%n",
                            round, d.client(), d.records(), d.nanos() / 1e9, d.recordsPerSecond() / 1e6,
                            d.megabytesPerSecond(), d.allocatedPerRecord(), d.maxGapNanos() / 1_000_000,
                            d.maxGapAt() + 1, d.gcMillis(), d.loadAverage());
                }
            }
            printSummary(results);
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    private static Drain measure(String name, Client client, String servers, List<TopicPartition> partitions,
                                 long expected) throws InterruptedException {
        System.gc();
        Thread.sleep(200);
        Tally tally = new Tally();
        Map<Long, Long> allocatedBefore = allocatedByThread();
        long gcBefore = gcMillis();
        long start = System.nanoTime();
        client.drain(servers, partitions, expected, tally);
        long allocated = allocatedSince(allocatedBefore);
        long gc = gcMillis() - gcBefore;
        if (tally.records != expected) {
            throw new IllegalStateException(name + " read " + tally.records + " records, expected " + expected);
        }
        return new Drain(name, tally.records, tally.bytes, tally.last - start, allocated, tally.maxGap,
                tally.maxGapAt, gc, loadAverage());
    }

    // ---------------------------------------------------------------- the two clients

    private static void drainWithKflux(String servers, List<TopicPartition> partitions, long expected, Tally tally) {
        ConsumerOptions<byte[], byte[]> options = ConsumerOptions.create(Map.of(
                        "bootstrap.servers", servers,
                        "client.id", "bench-kflux",
                        "auto.offset.reset", "earliest"))
                .assignment(partitions);
        KafkaFluxConsumer<byte[], byte[]> consumer = KafkaFluxConsumer.create(options);
        try {
            consumer.receive()
                    .take(expected)
                    .doOnNext(r -> tally.add(r.serializedKeySize(), r.serializedValueSize()))
                    .blockLast(DRAIN_TIMEOUT);
        } finally {
            try {
                consumer.close().block(Duration.ofSeconds(30));
            } catch (RuntimeException e) {
                System.out.println("  (kflux close failed: " + e + ")");
            }
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
        }
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
                "  %-8s %5.2f M records/s, %6.1f MB/s, %,6.0f B allocated/record, max gap %,d ms (worst round)%n",
                client, median(drains, Drain::recordsPerSecond) / 1e6, median(drains, Drain::megabytesPerSecond),
                median(drains, Drain::allocatedPerRecord),
                drains.stream().mapToLong(Drain::maxGapNanos).max().orElse(0) / 1_000_000));
        List<Drain> kflux = results.get("kflux");
        List<Drain> official = results.get("official");
        if (kflux != null && official != null) {
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < kflux.size(); i++) {
                ratios.add(kflux.get(i).recordsPerSecond() / official.get(i).recordsPerSecond());
            }
            System.out.printf("  kflux/official records/s: %.2f (median of the per-round ratios %s)%n",
                    median(ratios, r -> r), ratios.stream().map(r -> String.format("%.2f", r)).toList());
        }
    }

    private static <T> double median(List<T> items, java.util.function.ToDoubleFunction<T> value) {
        List<Double> sorted = new ArrayList<>(items.stream().map(value::applyAsDouble).toList());
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

}
