package io.kflux.bench;

import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.bench.runner.DrainHarness;
import io.kflux.bench.runner.Tally;
import io.kflux.network.BrokerConnection;
import io.kflux.network.NetworkOptions;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FetchResponse;
import io.kflux.fetch.BatchScan;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import reactor.core.publisher.Mono;

/**
 * The contenders that run on kafka-clients 4.x's classpath, one per JVM forked by {@link BenchmarkSuite}:
 * {@code kflux}, {@code kflux-metrics} (kflux publishing its meters to a Micrometer registry), {@code kflux-batches}
 * (kflux's {@code receiveBatches()}, every record of each batch handed to the tally as the others' are), {@code official} (KafkaConsumer, assign + poll loop), {@code official-kip848} (KafkaConsumer with
 * {@code group.protocol=consumer}, KIP-848: a fresh group, subscribe + poll loop; its background thread makes it a
 * two-thread client like kflux) and {@code raw} (Fetch requests whose record sets are never decoded); and, with
 * {@code --mode scale}, the scale case's many consumers in one JVM ({@link ScaleRunner}). Every client keeps its default fetch settings (fetch.min.bytes 1,
 * fetch.max.wait.ms 500, fetch.max.bytes 50 MB, max.partition.fetch.bytes 1 MB); raw uses the same values.
 */
public final class DrainRunner {

    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);

    private DrainRunner() {
    }

    public static void main(String[] args) {
        String client = clientOf(args);
        if ("scale".equals(optionOf(args, "--mode"))) {
            ScaleRunner.main(args);
            return;
        }
        switch (client) {
            case "kflux", "kflux-metrics" -> DrainHarness.run(args, DrainRunner::drainKflux, DrainRunner::followKflux);
            case "kflux-batches" -> DrainHarness.run(args, DrainRunner::drainKfluxBatches,
                    DrainRunner::followKfluxBatches);
            case "official" -> DrainHarness.run(args, DrainRunner::drainOfficial, DrainRunner::followOfficial);
            case "official-kip848" -> DrainHarness.run(args, DrainRunner::drainOfficial, DrainRunner::followOfficial);
            case "raw" -> DrainHarness.run(args, DrainRunner::drainRaw, (spec, latencies) -> {
                throw new UnsupportedOperationException("raw fetch decodes no record, so it has no per-record latency");
            });
            default -> throw new IllegalArgumentException("unknown client " + client);
        }
    }

    static String clientOf(String[] args) {
        String client = optionOf(args, "--client");
        if (client == null) {
            throw new IllegalArgumentException("--client is required");
        }
        return client;
    }

    private static String optionOf(String[] args, String name) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- kflux

    /**
     * {@code kflux-metrics} is kflux with a Micrometer registry attached (a {@code SimpleMeterRegistry}, as an
     * application would give one, read once a second as a scrape would): beside {@code kflux} in one run it measures
     * what publishing the meters costs.
     */
    private static KafkaFluxConsumer<byte[], byte[]> kflux(DrainHarness.Spec spec, String reset) {
        List<TopicPartition> partitions = IntStream.range(0, spec.partitions())
                .mapToObj(p -> new TopicPartition(spec.topic(), p)).toList();
        Map<String, Object> props = new java.util.HashMap<>(Map.of(
                "bootstrap.servers", spec.servers(),
                "client.id", "bench-kflux",
                "auto.offset.reset", reset));
        socketProps(props);
        ConsumerOptions<byte[], byte[]> options = ConsumerOptions.<byte[], byte[]>create(props)
                .assignment(partitions);
        if ("kflux-metrics".equals(spec.client())) {
            options = options.withMeterRegistry(scraped(new SimpleMeterRegistry()));
        }
        return KafkaFluxConsumer.create(options);
    }

    /** Sum of every value read by {@link #scraped}, so the reads cannot be optimised away. */
    private static volatile double scrapedSum;

    /**
     * Reads every meter of {@code registry} once a second on a daemon thread, as a dashboard's scrape would (gauges
     * are computed when read, so an unread registry would hide their cost). The thread's CPU counts in the process's.
     */
    private static SimpleMeterRegistry scraped(SimpleMeterRegistry registry) {
        Thread scraper = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException e) {
                    return;
                }
                double sum = 0;
                for (io.micrometer.core.instrument.Meter meter : registry.getMeters()) {
                    for (io.micrometer.core.instrument.Measurement m : meter.measure()) {
                        sum += m.getValue();
                    }
                }
                scrapedSum = sum;
            }
        }, "bench-scrape");
        scraper.setDaemon(true);
        scraper.start();
        return registry;
    }

    /**
     * Busy CPU per record ({@code --work-ns}, the suite's case {@code bound}): the same spin in every contender's
     * subscriber or poll loop, so that the consumer is slower than the broker (issue #32). 0: none.
     */
    private static void work(long nanos) {
        if (nanos > 0) {
            long until = System.nanoTime() + nanos;
            while (System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * {@code -Dbench.readHeaders=true}: the kflux, kflux-batches and official contenders read every header of every
     * record (key string and value bytes), as an application that routes or traces on headers does, and the
     * checksum covers them (raw and reactor-kafka ignore it). Both clients decode headers when first read, so
     * without it neither pays for them.
     */
    private static final boolean READ_HEADERS = Boolean.getBoolean("bench.readHeaders");

    /** Every header's key and value folded in order, the same for either client's header type. */
    private static int headersHash(io.kflux.Headers headers) {
        int h = 1;
        for (io.kflux.Header header : headers) {
            h = 31 * (31 * h + header.key().hashCode()) + java.util.Arrays.hashCode(header.value());
        }
        return h;
    }

    private static int headersHash(org.apache.kafka.common.header.Headers headers) {
        int h = 1;
        for (org.apache.kafka.common.header.Header header : headers) {
            h = 31 * (31 * h + header.key().hashCode()) + java.util.Arrays.hashCode(header.value());
        }
        return h;
    }

    private static long workNanos(DrainHarness.Spec spec) {
        return Long.parseLong(spec.options().getOrDefault("--work-ns", "0"));
    }

    private static void drainKflux(DrainHarness.Spec spec, Tally tally) {
        KafkaFluxConsumer<byte[], byte[]> consumer = kflux(spec, "earliest");
        long workNanos = workNanos(spec);
        try {
            consumer.receive()
                    .doOnNext(r -> {
                        work(workNanos);
                        boolean again = READ_HEADERS
                                ? tally.add(r.partition(), r.offset(), r.key(), r.value(), headersHash(r.headers()))
                                : tally.add(r.partition(), r.offset(), r.key(), r.value());
                        if (again) {
                            consumer.seek(new TopicPartition(spec.topic(), r.partition()), 0).subscribe();
                        }
                    })
                    .takeUntil(r -> tally.complete())
                    .blockLast(DRAIN_TIMEOUT);
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    /**
     * {@code receiveBatches()}: one {@code onNext} per partition's fetched result (issue #28), each of its records
     * handed to the tally in order, as the other contenders hand theirs; records after a seek are the tally's to
     * discard, as with {@code receive()}.
     */
    private static void drainKfluxBatches(DrainHarness.Spec spec, Tally tally) {
        KafkaFluxConsumer<byte[], byte[]> consumer = kflux(spec, "earliest");
        long workNanos = workNanos(spec);
        try {
            consumer.receiveBatches()
                    .doOnNext(batch -> {
                        for (io.kflux.ConsumerRecord<byte[], byte[]> r : batch.records()) {
                            work(workNanos);
                            boolean again = READ_HEADERS
                                    ? tally.add(r.partition(), r.offset(), r.key(), r.value(), headersHash(r.headers()))
                                    : tally.add(r.partition(), r.offset(), r.key(), r.value());
                            if (again) {
                                consumer.seek(batch.topicPartition(), 0).subscribe();
                            }
                        }
                    })
                    .takeUntil(batch -> tally.complete())
                    .blockLast(DRAIN_TIMEOUT);
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    private static void followKfluxBatches(DrainHarness.Spec spec, DrainHarness.Latencies latencies) {
        KafkaFluxConsumer<byte[], byte[]> consumer = kflux(spec, "latest");
        try {
            consumer.receiveBatches()
                    .doOnNext(batch -> {
                        for (io.kflux.ConsumerRecord<byte[], byte[]> r : batch.records()) {
                            latencies.add(r.value());
                        }
                    })
                    .takeUntil(batch -> latencies.done())
                    .take(Duration.ofMillis(latencies.remainingMillis()))
                    .blockLast(DRAIN_TIMEOUT);
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    private static void followKflux(DrainHarness.Spec spec, DrainHarness.Latencies latencies) {
        KafkaFluxConsumer<byte[], byte[]> consumer = kflux(spec, "latest");
        try {
            consumer.receive()
                    .doOnNext(r -> latencies.add(r.value()))
                    .takeUntil(r -> latencies.done())
                    .take(Duration.ofMillis(latencies.remainingMillis()))
                    .blockLast(DRAIN_TIMEOUT);
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
    }

    /**
     * {@code -Dbench.receiveBufferBytes=N}: {@code receive.buffer.bytes} for every contender that takes it (kflux,
     * official, raw), so that both clients' figures can be had at one socket setting; unset, each keeps its default.
     */
    private static void socketProps(Map<? super String, Object> props) {
        Integer receiveBuffer = Integer.getInteger("bench.receiveBufferBytes");
        if (receiveBuffer != null) {
            props.put("receive.buffer.bytes", receiveBuffer);
        }
    }

    // ---------------------------------------------------------------- official

    /**
     * {@code official}: manual assignment, no group. {@code official-kip848}: a fresh group with
     * {@code group.protocol=consumer} and a subscription (the protocol only acts in a group), positioned by
     * {@code auto.offset.reset} once the broker assigns it the partitions; the join counts as set-up.
     */
    private static KafkaConsumer<byte[], byte[]> official(DrainHarness.Spec spec, String reset) {
        Properties props = new Properties();
        props.put("bootstrap.servers", spec.servers());
        props.put("client.id", "bench-" + spec.client());
        props.put("enable.auto.commit", "false");
        props.put("auto.offset.reset", reset);
        socketProps(props);
        boolean kip848 = spec.client().equals("official-kip848");
        if (kip848) {
            props.put("group.protocol", "consumer");
            props.put("group.id", "bench-kip848-" + UUID.randomUUID());
        }
        KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        if (kip848) {
            consumer.subscribe(List.of(spec.topic()));
        } else {
            consumer.assign(IntStream.range(0, spec.partitions())
                    .mapToObj(p -> new org.apache.kafka.common.TopicPartition(spec.topic(), p)).toList());
        }
        return consumer;
    }

    private static void drainOfficial(DrainHarness.Spec spec, Tally tally) {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        long workNanos = workNanos(spec);
        try (KafkaConsumer<byte[], byte[]> consumer = official(spec, "earliest")) {
            while (!tally.complete() && System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                for (org.apache.kafka.common.TopicPartition tp : records.partitions()) {
                    for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
                        work(workNanos);
                        boolean again = READ_HEADERS
                                ? tally.add(r.partition(), r.offset(), r.key(), r.value(), headersHash(r.headers()))
                                : tally.add(r.partition(), r.offset(), r.key(), r.value());
                        if (again) {
                            // the rest of this poll's records of the partition come before the seek
                            consumer.seek(tp, 0);
                            break;
                        }
                    }
                }
            }
        }
    }

    private static void followOfficial(DrainHarness.Spec spec, DrainHarness.Latencies latencies) {
        try (KafkaConsumer<byte[], byte[]> consumer = official(spec, "latest")) {
            while (!latencies.done()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    latencies.add(r.value());
                }
            }
        }
    }

    // ---------------------------------------------------------------- raw fetch

    /** max.partition.fetch.bytes' default; a system property to try others. */
    private static final int PARTITION_MAX_BYTES = Integer.getInteger("bench.raw.partitionMaxBytes", 1024 * 1024);

    /**
     * The ceiling: kflux's own connection and Fetch codec, one request in flight, the next one sent from the
     * event loop as soon as the previous answer is in; each partition's next offset and its record count come
     * from batch headers (lastOffsetDelta + 1), the record sets are released without being decoded. Full
     * fetches, no fetch session: with one topic, listing every partition each time costs the broker little.
     */
    private static void drainRaw(DrainHarness.Spec spec, Tally tally) {
        java.util.Map<String, Object> props = new java.util.HashMap<>(java.util.Map.of(
                "bootstrap.servers", spec.servers(), "client.id", "bench-raw"));
        socketProps(props);
        NetworkOptions options = io.kflux.internal.ClientSettings.of(props).network();
        String[] hostPort = spec.servers().split(",")[0].split(":");
        BrokerConnection connection = BrokerConnection.connect(hostPort[0], Integer.parseInt(hostPort[1]), options)
                .block(Duration.ofSeconds(30));
        UUID topicId = UUID.fromString(spec.topicId());
        long[] offsets = new long[spec.partitions()];
        long[] fetches = new long[2];
        long start = System.nanoTime();
        try {
            Mono.defer(() -> {
                        fetches[0]++;
                        return connection.exchange(request(spec, topicId, offsets));
                    })
                    .doOnNext(response -> fetches[1] += count(response, offsets, spec.valueSize(), tally))
                    .repeat(() -> !tally.complete())
                    .then()
                    .block(DRAIN_TIMEOUT);
            System.out.printf("raw: %d fetches in %.2f s, %.0f KB of record sets each on average%n", fetches[0],
                    (System.nanoTime() - start) / 1e9, fetches[1] / 1024.0 / Math.max(1, fetches[0]));
        } finally {
            connection.close().block(Duration.ofSeconds(10));
        }
    }

    private static FetchRequest request(DrainHarness.Spec spec, UUID topicId, long[] offsets) {
        List<FetchRequest.FetchPartition> partitions = new ArrayList<>(offsets.length);
        for (int p = 0; p < offsets.length; p++) {
            partitions.add(new FetchRequest.FetchPartition(p, -1, offsets[p], -1, -1L, PARTITION_MAX_BYTES,
                    new UUID(0, 0), FetchRequest.HIGH_WATERMARK_UNSUPPORTED));
        }
        return new FetchRequest(null, FetchRequest.CONSUMER_REPLICA_ID, FetchRequest.ReplicaState.CONSUMER, 500, 1,
                50 * 1024 * 1024, (byte) 0, 0, FetchRequest.FINAL_SESSION_EPOCH,
                List.of(new FetchRequest.FetchTopic(spec.topic(), topicId, partitions)), List.of(), "");
    }

    /** Counts the response's records into the tally; returns the size of its record sets. */
    private static long count(FetchResponse response, long[] offsets, int valueSize, Tally tally) {
        long size = 0;
        try {
            if (response.errorCode() != 0) {
                throw new IllegalStateException("fetch failed with error " + response.errorCode());
            }
            for (FetchResponse.FetchableTopicResponse topic : response.responses()) {
                for (FetchResponse.PartitionData partition : topic.partitions()) {
                    if (partition.errorCode() != 0) {
                        throw new IllegalStateException("partition " + partition.partitionIndex()
                                + " failed with error " + partition.errorCode());
                    }
                    size += partition.records().readableBytes();
                    int p = partition.partitionIndex();
                    long from = offsets[p];
                    long records = scan(partition.records(), offsets, p);
                    // no record is decoded, so the payload is the workload's value size per record
                    if (records > 0 && tally.addBatch(p, from, records, records * valueSize)) {
                        offsets[p] = 0;
                    }
                }
            }
        } finally {
            response.release();
        }
        return size;
    }

    /**
     * Moves the partition's offset past its complete batches (batch headers only, as the fetcher does) and returns
     * how many records they hold: the offsets covered, since the benchmark topics are not compacted.
     */
    private static long scan(ByteBuf records, long[] offsets, int partition) {
        long next = BatchScan.scan(records, offsets[partition], -1).nextOffset();
        long count = next - offsets[partition];
        offsets[partition] = next;
        return count;
    }
}
