package io.kflux.bench;

import io.kflux.Deserializers;
import io.kflux.KafkaShareConsumer;
import io.kflux.ShareConsumerOptions;
import io.kflux.bench.runner.BrokerView;
import io.kflux.bench.runner.JvmCounters;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import reactor.core.publisher.Mono;

/**
 * One contender of {@link ShareBenchmark} in a JVM of its own: {@code client case servers round records
 * warmupRecords workMs concurrency}. Drains the case's topic in a new share group, verifies it, and prints one
 * {@value #RESULT} line: records/s over the window (first record to the last one acknowledged), process CPU per
 * record over the window, the JVM's live Java threads at the end of the window and their peak, its OS threads (GC,
 * JIT and VM included) at the end of the window, the set-up time (consumer
 * creation to first record), the 1-minute load average, and the order-independent checksum; and from the broker's
 * side over the drain (set-up and close included), its ShareFetches and ShareAcknowledges with their mean time, the
 * parts of a ShareFetch's time (request queue, local, remote: held in purgatory, response queue, send) and the
 * broker JVM's CPU per record.
 */
public final class ShareRunner {

    static final String RESULT = io.kflux.bench.runner.DrainHarness.RESULT_PREFIX;
    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    /** kflux's records awaiting their ACCEPT's confirmation at most, in the throughput case (flatMap concurrency). */
    static final int KFLUX_THROUGHPUT_CONCURRENCY = 1024;

    /**
     * How kflux waits for the ACCEPTs in the throughput case ({@code -Dkflux.bench.accept}, given by
     * {@code --child-jvm-args}): {@code flatmap} (default: {@code flatMap(r -> r.accept(), 1024)}), {@code each}
     * ({@code r.accept().subscribe(..)} per record, the confirmations counted; nothing bounds them but what the
     * consumer acquires) or {@code when} ({@code Mono.when} over the ACCEPTs of batches of up to 500).
     */
    static final String ACCEPT = System.getProperty("kflux.bench.accept", "flatmap");
    /**
     * {@code -Dkflux.bench.mode=implicit}: the throughput case with {@code share.acknowledgement.mode=implicit} for
     * both contenders (no acknowledge call; kflux's window ends when its close flushed the last acceptances, the
     * official client's with its commitSync after the last record).
     */
    static final boolean IMPLICIT = "implicit".equals(System.getProperty("kflux.bench.mode", "explicit"));

    private ShareRunner() {
    }

    public static void main(String[] args) throws Exception {
        String client = args[0];
        String c = args[1];
        String servers = args[2];
        String round = args[3];
        int records = Integer.parseInt(args[4]);
        int warmupRecords = Integer.parseInt(args[5]);
        int workMs = Integer.parseInt(args[6]);
        int concurrency = Integer.parseInt(args[7]);
        boolean queue = c.equals("queue");
        String topic = queue ? "share-queue" : "share-throughput";
        String group = "bench-" + c + "-" + client + "-" + round;
        String warmGroup = group + "-warm";
        ShareBenchmark.earliest(servers, group, warmGroup);
        if (!queue) {
            drain(client, servers, "share-warm", warmGroup, new Tally(warmupRecords), 0, concurrency, false);
            System.gc();
            Thread.sleep(200);
        }
        Tally tally = new Tally(records);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        threads.resetPeakThreadCount();
        BrokerView broker = new BrokerView(BrokerView.pids(System.getProperty("kflux.bench.brokerPids")));
        double[] fetchBefore = broker.totalTimeMs("ShareFetch");
        double[] ackBefore = broker.totalTimeMs("ShareAcknowledge");
        double[][] fetchPartsBefore = fetchParts(broker);
        long brokerCpuBefore = broker.cpuNanos();
        String agent = System.getProperty("kflux.bench.profileAgent");
        String profile = System.getProperty("kflux.bench.profileFile");
        boolean profiled = agent != null && profile != null;
        if (profiled) { // the measured drain only (its set-up and close included), not the warm-up
            io.kflux.bench.runner.ProfilerAgent.command(agent, "start,event=cpu,interval=1ms,threads");
        }
        long created = System.nanoTime();
        drain(client, servers, topic, group, tally, queue ? workMs : 0, concurrency, queue);
        if (profiled) {
            io.kflux.bench.runner.ProfilerAgent.command(agent, "stop,file=" + profile + "-" + group + ".collapsed,collapsed");
        }
        // the brokers' side spans the drain (set-up and close included): ShareFetches and ShareAcknowledges of this JVM
        double[] fetchAfter = broker.totalTimeMs("ShareFetch");
        double[] ackAfter = broker.totalTimeMs("ShareAcknowledge");
        double[][] fetchPartsAfter = fetchParts(broker);
        long brokerCpu = broker.cpuNanos() - brokerCpuBefore;
        broker.close();
        StringBuilder parts = new StringBuilder();
        for (int i = 0; i < FETCH_PARTS.length; i++) {
            parts.append(String.format(" brokerShareFetch%s=%.2f", FETCH_PARTS[i].replace("TimeMs", "Ms"),
                    meanMs(fetchPartsBefore[i], fetchPartsAfter[i])));
        }
        long window = tally.lastNanos - tally.firstNanos;
        long cpu = tally.cpuAtLast - tally.cpuAtFirst;
        tally.verify();
        System.out.println(RESULT + String.format("recordsPerSec=%.1f cpuNsPerRecord=%.1f threads=%d peakThreads=%d"
                        + " osThreads=%d windowNanos=%d setupNanos=%d load=%.2f crc=%d fetches=%d fetchedRecords=%d"
                        + " %s %s %s brokerShareFetches=%.0f brokerShareFetchMs=%.2f brokerShareAcks=%.0f"
                        + " brokerShareAckMs=%.2f brokerCpuNsPerRecord=%.1f%s",
                records * 1e9 / window,
                (double) cpu / records, tally.threadsAtLast, threads.getPeakThreadCount(), tally.osThreadsAtLast, window,
                tally.firstNanos - created, JvmCounters.loadAverage(), tally.crcSum, tally.fetches.get(),
                tally.fetchedRecords.get(), tally.ackLatency.summary("ack"), tally.pollLatency.summary("poll"),
                tally.workTime.summary("work"),
                fetchAfter[0] - fetchBefore[0], meanMs(fetchBefore, fetchAfter), ackAfter[0] - ackBefore[0],
                meanMs(ackBefore, ackAfter), (double) brokerCpu / records, parts));
        System.exit(0);
    }

    /** The parts of a ShareFetch's time at the broker the result line gives (means over the drain). */
    private static final String[] FETCH_PARTS = {"RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs",
            "ResponseQueueTimeMs", "ResponseSendTimeMs"};

    private static double[][] fetchParts(BrokerView broker) throws java.io.IOException {
        double[][] out = new double[FETCH_PARTS.length][];
        for (int i = 0; i < FETCH_PARTS.length; i++) {
            out[i] = broker.requestTimeMs(FETCH_PARTS[i], "ShareFetch");
        }
        return out;
    }

    /** The mean of the requests between two {@link BrokerView#totalTimeMs} readings, ms (-1: none). */
    private static double meanMs(double[] before, double[] after) {
        double n = after[0] - before[0];
        return n == 0 ? -1 : (after[1] - before[1]) / n;
    }

    /**
     * @param client {@code official}, {@code kflux} ({@code flatMap(.., 1024)} in the throughput case, the
     *               {@code ACCEPT} property's form), {@code kflux-c<N>} ({@code flatMap(.., N)}; throughput case only)
     *               or {@code kflux-each} (each ACCEPT subscribed on its own, holding no {@code flatMap} slot: in the
     *               throughput case {@code r.accept().subscribe(..)} per record, in the queue case the slot held for
     *               the work only) or {@code kflux-split} (queue case only: the work's concurrency apart from the
     *               confirmations', {@code flatMap(r -> work.thenReturn(r), concurrency).flatMap(r -> r.accept(),
     *               1024)}) or {@code kflux-split-lr} (the same after {@code limitRate(4 * concurrency)})
     */
    private static void drain(String contender, String servers, String topic, String group, Tally tally, int workMs,
                              int concurrency, boolean queue) throws Exception {
        // <name>-base: the same contender on other sdk classes (ShareBenchmark.withBaseClasses)
        String client = contender.endsWith(ShareBenchmark.BASE_SUFFIX)
                ? contender.substring(0, contender.length() - ShareBenchmark.BASE_SUFFIX.length()) : contender;
        if ((client.equals("kflux-split") || client.equals("kflux-split-lr")) && queue) {
            drainKfluxSplit(servers, topic, group, tally, workMs, concurrency, client.equals("kflux-split-lr"));
        } else if (client.equals("kflux") || client.equals("kflux-each")) {
            drainKflux(servers, topic, group, tally, workMs, queue ? concurrency : KFLUX_THROUGHPUT_CONCURRENCY,
                    client.equals("kflux-each") ? "each" : ACCEPT);
        } else if (client.startsWith("kflux-c") && !queue) {
            drainKflux(servers, topic, group, tally, workMs, Integer.parseInt(client.substring("kflux-c".length())),
                    "flatmap");
        } else if (client.equals("official") || client.startsWith("official-")) { // official-<v>: ShareBenchmark
            drainOfficial(servers, topic, group, tally, workMs, queue ? concurrency : 1);
        } else {
            throw new IllegalArgumentException("unknown contender " + client);
        }
    }

    /** One consumer; each record's work is a timer (non-blocking), then its ACCEPT, {@code concurrency} at a time. */
    private static void drainKflux(String servers, String topic, String group, Tally tally, int workMs,
                                   int concurrency, String accept) throws InterruptedException {
        KafkaShareConsumer<byte[], byte[]> consumer = kfluxConsumer(servers, topic, group, tally, workMs);
        try {
            drainKflux(consumer, tally, workMs, concurrency, accept);
        } finally {
            tally.atEnd = null;
        }
    }

    /**
     * The queue case as a user would write it with the work's concurrency apart from the confirmations':
     * {@code receive().flatMap(r -> work.thenReturn(r), concurrency).flatMap(r -> r.accept(), 1024)}, so the
     * {@code concurrency} slots are busy with work only; the window ends at the last confirmation. With
     * {@code limitRate}, {@code receive().limitRate(4 * concurrency)} first: the consumer hands records over 4 x
     * concurrency at a time (one hand-over to its emit thread per chunk, not per record) and each slot's next record is
     * taken from limitRate's queue on the thread where its work ended.
     */
    private static void drainKfluxSplit(String servers, String topic, String group, Tally tally, int workMs,
                                        int concurrency, boolean limitRate) {
        KafkaShareConsumer<byte[], byte[]> consumer = kfluxConsumer(servers, topic, group, tally, workMs);
        Duration work = Duration.ofMillis(workMs);
        try {
            reactor.core.publisher.Flux<io.kflux.ShareRecord<byte[], byte[]>> records = consumer.receive();
            if (limitRate) { // the guide's form: records asked for 4 x concurrency at a time, each slot's next record
                records = records.limitRate(4 * concurrency); // taken on the thread where its work ended
            }
            records
                    .flatMap(r -> {
                        tally.received(r.partition(), r.offset(), r.value());
                        return work(r, work, tally).thenReturn(r);
                    }, concurrency)
                    .flatMap(r -> timed(r, tally).then(Mono.fromRunnable(() -> {
                        if (tally.processed() == tally.expected) {
                            tally.end();
                        }
                    })).thenReturn(1), KFLUX_THROUGHPUT_CONCURRENCY)
                    .take(tally.expected)
                    .blockLast(TIMEOUT);
        } finally {
            tally.atEnd = null;
            consumer.close().block(TIMEOUT);
        }
    }

    /** A kflux share consumer of {@code topic} with its meters read into {@code tally} when the window ends. */
    private static KafkaShareConsumer<byte[], byte[]> kfluxConsumer(String servers, String topic, String group,
                                                                    Tally tally, int workMs) {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry meters =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        KafkaShareConsumer<byte[], byte[]> consumer = KafkaShareConsumer.create(ShareConsumerOptions.create(
                        Map.of("bootstrap.servers", servers, "group.id", group, "share.acknowledgement.mode",
                                IMPLICIT && workMs == 0 ? "implicit" : "explicit"), Deserializers.byteArray(),
                        Deserializers.byteArray())
                .withMeterRegistry(meters)
                .subscription(List.of(topic)));
        // read when the window ends: close withdraws the consumer's meters
        tally.atEnd = () -> {
            tally.fetches.set((long) meterTotal(meters, "kafka.consumer.share.fetch.manager.fetch.total"));
            tally.fetchedRecords.set(
                    (long) meterTotal(meters, "kafka.consumer.share.fetch.manager.records.consumed.total"));
        };
        return consumer;
    }

    /** A counter's total in {@code meters}, 0 when it is not there. */
    private static double meterTotal(io.micrometer.core.instrument.MeterRegistry meters, String name) {
        io.micrometer.core.instrument.FunctionCounter c = meters.find(name).functionCounter();
        return c == null ? 0 : c.count();
    }

    private static void drainKflux(KafkaShareConsumer<byte[], byte[]> consumer, Tally tally, int workMs,
                                   int concurrency, String accept) throws InterruptedException {
        Duration work = Duration.ofMillis(workMs);
        if (workMs == 0 && !IMPLICIT && accept.equals("when")) {
            drainKfluxInBatches(consumer, tally);
            return;
        }
        if (workMs == 0 && (IMPLICIT || accept.equals("each"))) {
            drainKfluxWithoutFlatMap(consumer, tally);
            return;
        }
        if (accept.equals("each")) {
            drainKfluxWorkThenEach(consumer, tally, work, concurrency);
            return;
        }
        try {
            consumer.receive()
                    .flatMap(r -> {
                        tally.received(r.partition(), r.offset(), r.value());
                        Mono<Void> done = workMs > 0 ? work(r, work, tally).then(Mono.defer(() -> timed(r, tally)))
                                : timed(r, tally);
                        return done.then(Mono.fromRunnable(() -> {
                            if (tally.processed() == tally.expected) {
                                tally.end();
                            }
                        })).thenReturn(1);
                    }, concurrency)
                    .take(tally.expected)
                    .blockLast(TIMEOUT);
        } finally {
            consumer.close().block(TIMEOUT);
        }
    }

    /**
     * {@code r.accept()}, timed from its subscription (the acknowledgement handed to the consumer) to its completion
     * for one record in {@value LatencySample#EVERY}.
     */
    private static Mono<Void> timed(io.kflux.ShareRecord<byte[], byte[]> r, Tally tally) {
        if (!LatencySample.timed(r.offset())) {
            return r.accept();
        }
        long taken = System.nanoTime();
        return r.accept().doOnSuccess(v -> tally.ackLatency.add(System.nanoTime() - taken));
    }

    /**
     * A record's simulated work, a timer ({@code Mono.delay}: no thread waits), timed from its subscription to its
     * end for one record in {@value LatencySample#EVERY}: the work's own length (the timer's lateness on a loaded
     * machine included) is what the queue case's ceiling is reckoned from.
     */
    private static Mono<Long> work(io.kflux.ShareRecord<byte[], byte[]> r, Duration work, Tally tally) {
        if (!LatencySample.timed(r.offset())) {
            return Mono.delay(work);
        }
        return Mono.defer(() -> {
            long started = System.nanoTime();
            return Mono.delay(work).doOnSuccess(v -> tally.workTime.add(System.nanoTime() - started));
        });
    }

    /** Subscribes {@code r.accept()} on its own, timed as {@link #timed}, counted by {@code confirmations}. */
    private static void acceptOnItsOwn(io.kflux.ShareRecord<byte[], byte[]> r, Tally tally,
                                       Confirmations confirmations) {
        long taken = LatencySample.timed(r.offset()) ? System.nanoTime() : 0;
        r.accept().subscribe(null, confirmations::fail, () -> {
            if (taken != 0) {
                tally.ackLatency.add(System.nanoTime() - taken);
            }
            confirmations.done(tally.processed());
        });
    }

    /**
     * The queue case with each slot held for the work only: {@code flatMap(r -> delay(work), concurrency)}, the
     * record's ACCEPT subscribed on its own when the work is done (its confirmation is not waited for by the slot);
     * the window ends at the last confirmation.
     */
    private static void drainKfluxWorkThenEach(KafkaShareConsumer<byte[], byte[]> consumer, Tally tally,
                                               Duration work, int concurrency) throws InterruptedException {
        Confirmations confirmations = new Confirmations(tally);
        try {
            consumer.receive()
                    .flatMap(r -> {
                        tally.received(r.partition(), r.offset(), r.value());
                        return work(r, work, tally).doOnSuccess(x -> acceptOnItsOwn(r, tally, confirmations));
                    }, concurrency)
                    .take(tally.expected)
                    .blockLast(TIMEOUT);
            confirmations.await();
        } finally {
            consumer.close().block(TIMEOUT);
        }
    }

    /**
     * The throughput case without {@code flatMap}: implicit mode (the window ends when close flushed the last
     * acceptances), or explicit with each record's ACCEPT subscribed on its own (the window ends at the last
     * confirmation).
     */
    private static void drainKfluxWithoutFlatMap(KafkaShareConsumer<byte[], byte[]> consumer, Tally tally)
            throws InterruptedException {
        Confirmations confirmations = new Confirmations(tally);
        try {
            consumer.receive()
                    .doOnNext(r -> {
                        tally.received(r.partition(), r.offset(), r.value());
                        if (IMPLICIT) {
                            tally.processed();
                            return;
                        }
                        acceptOnItsOwn(r, tally, confirmations);
                    })
                    .take(tally.expected)
                    .blockLast(TIMEOUT);
            if (IMPLICIT) {
                consumer.close().block(TIMEOUT);
                tally.end();
            } else {
                confirmations.await();
            }
        } finally {
            consumer.close().block(TIMEOUT);
        }
    }

    /**
     * The throughput case with the ACCEPTs awaited per batch: {@code bufferTimeout(500, 5 ms, fair backpressure)} then
     * {@code Mono.when} of the batch's {@code accept()}s, 4 batches at a time. The stream is never cancelled before
     * the last confirmation (a cancel closes the consumer, and a buffered record's ACCEPT would come too late).
     */
    private static void drainKfluxInBatches(KafkaShareConsumer<byte[], byte[]> consumer, Tally tally)
            throws InterruptedException {
        Confirmations confirmations = new Confirmations(tally);
        reactor.core.Disposable d = consumer.receive()
                .doOnNext(r -> tally.received(r.partition(), r.offset(), r.value()))
                .bufferTimeout(500, Duration.ofMillis(5), true) // fair: never more buffers than flatMap asked for
                .flatMap(batch -> Mono.when(batch.stream().map(io.kflux.ShareRecord::accept).toList())
                        .doOnSuccess(v -> confirmations.done(tally.processed(batch.size()))), 4)
                .subscribe(null, confirmations::fail);
        try {
            confirmations.await();
        } finally {
            d.dispose();
            consumer.close().block(TIMEOUT);
        }
    }

    /** The end of a kflux window whose ACCEPTs are counted as they are confirmed, or their first failure. */
    private static final class Confirmations {
        private final Tally tally;
        private final java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
        private final java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                new java.util.concurrent.atomic.AtomicReference<>();

        Confirmations(Tally tally) {
            this.tally = tally;
        }

        /** @param processed the records confirmed so far, this confirmation's included */
        void done(long processed) {
            if (processed == tally.expected) {
                tally.end();
                ended.countDown();
            }
        }

        void fail(Throwable e) {
            failure.compareAndSet(null, e);
            ended.countDown();
        }

        void await() throws InterruptedException {
            if (!ended.await(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS) || failure.get() != null) {
                throw new IllegalStateException("kflux: not every ACCEPT was confirmed", failure.get());
            }
        }
    }

    /**
     * {@code threads} threads, each polling a consumer of its own (the official client is not thread-safe), sleeping
     * the work per record and acknowledging it with ACCEPT; the acknowledgements go with the next poll; the window
     * ends when the consumer that processed the last record confirmed its own with {@code commitSync}.
     */
    private static void drainOfficial(String servers, String topic, String group, Tally tally, int workMs,
                                      int threads) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean last = new AtomicBoolean();
        List<Thread> workers = new ArrayList<>();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                Properties p = new Properties();
                p.put("bootstrap.servers", servers);
                p.put("group.id", group);
                boolean implicit = IMPLICIT && workMs == 0;
                p.put("share.acknowledgement.mode", implicit ? "implicit" : "explicit");
                try (org.apache.kafka.clients.consumer.KafkaShareConsumer<byte[], byte[]> consumer =
                             new org.apache.kafka.clients.consumer.KafkaShareConsumer<>(p, new ByteArrayDeserializer(),
                                     new ByteArrayDeserializer())) {
                    consumer.subscribe(List.of(topic));
                    while (!stop.get()) {
                        long polling = System.nanoTime();
                        ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(100));
                        tally.pollLatency.add(System.nanoTime() - polling);
                        for (ConsumerRecord<byte[], byte[]> r : polled) {
                            tally.received(r.partition(), r.offset(), r.value());
                            if (workMs > 0) {
                                Thread.sleep(workMs);
                            }
                            if (!implicit) {
                                consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                            }
                            tally.processed();
                        }
                        if (tally.processedCount() == tally.expected) {
                            stop.set(true);
                            if (last.compareAndSet(false, true)) {
                                // the consumer that processed the last record: its acknowledgements confirmed
                                consumer.commitSync();
                                tally.end();
                            }
                        }
                    }
                    tally.fetches.addAndGet((long) officialTotal(consumer, "fetch-total"));
                    tally.fetchedRecords.addAndGet((long) officialTotal(consumer, "records-consumed-total"));
                } catch (Throwable e) {
                    errors.add(e);
                    stop.set(true);
                }
            }, "official-share-" + t);
            workers.add(worker);
            worker.start();
        }
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        for (Thread w : workers) {
            w.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException("official share consumer failed", errors.get(0));
        }
        if (tally.receivedCount() != tally.expected) {
            throw new IllegalStateException("official: " + tally.receivedCount() + " of " + tally.expected
                    + " records in " + TIMEOUT);
        }
    }

    /** A metric of the official share consumer's fetch manager, 0 when it has none of that name. */
    private static double officialTotal(org.apache.kafka.clients.consumer.KafkaShareConsumer<?, ?> consumer,
                                        String name) {
        for (Map.Entry<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> e
                : consumer.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().contains("share-fetch-manager")) {
                return ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return 0;
    }

    /**
     * Every record of the topic exactly once (partition {@code i % 8} holds records i, offsets from 0), the sum of
     * their values' CRC32C, and the window's clock and CPU: first record received to {@link #end()} (kflux: the last
     * ACCEPT confirmed; official: the commitSync of the consumer that processed the last record, while the others'
     * last acknowledgements may still be on their way).
     */
    static final class Tally {
        final long expected;
        private final BitSet[] seen = new BitSet[ShareBenchmark.PARTITIONS];
        private final long[] perPartition = new long[ShareBenchmark.PARTITIONS];
        private final AtomicLong received = new AtomicLong();
        private final AtomicLong processed = new AtomicLong();
        /** ShareFetch requests answered and the records they acquired (every consumer of the drain, whole drain). */
        final AtomicLong fetches = new AtomicLong();
        final AtomicLong fetchedRecords = new AtomicLong();
        /** kflux: acknowledgement taken to its Mono completing (1 record in 16); official: each poll call. */
        final LatencySample ackLatency = new LatencySample();
        final LatencySample pollLatency = new LatencySample();
        /** kflux in the queue case: a record's work (its timer) from subscription to end (1 record in 16). */
        final LatencySample workTime = new LatencySample();
        /** Runs first in {@link #end()} when set (kflux: reads the consumer's meters before its close). */
        volatile Runnable atEnd;
        long crcSum;
        volatile long firstNanos;
        volatile long cpuAtFirst;
        volatile long lastNanos;
        volatile long cpuAtLast;
        volatile int threadsAtLast;
        volatile long osThreadsAtLast;

        Tally(long expected) {
            this.expected = expected;
            for (int p = 0; p < seen.length; p++) {
                seen[p] = new BitSet();
                perPartition[p] = expected / seen.length + (p < expected % seen.length ? 1 : 0);
            }
        }

        synchronized void received(int partition, long offset, byte[] value) {
            if (offset >= perPartition[partition] || seen[partition].get((int) offset)) {
                throw new IllegalStateException("partition " + partition + " offset " + offset + ": "
                        + (offset >= perPartition[partition] ? "past the end" : "delivered twice"));
            }
            seen[partition].set((int) offset);
            CRC32C crc = new CRC32C();
            crc.update(value);
            crcSum += crc.getValue();
            if (received.incrementAndGet() == 1) {
                firstNanos = System.nanoTime();
                cpuAtFirst = JvmCounters.processCpuNanos();
            }
        }

        long receivedCount() {
            return received.get();
        }

        /** A record's work and acknowledgement are done (kflux: confirmed; official: handed to the client). */
        long processed() {
            return processed.incrementAndGet();
        }

        /** {@code n} records' work and acknowledgements are done. */
        long processed(int n) {
            return processed.addAndGet(n);
        }

        long processedCount() {
            return processed.get();
        }

        void end() {
            Runnable r = atEnd;
            if (r != null) {
                r.run();
            }
            lastNanos = System.nanoTime();
            cpuAtLast = JvmCounters.processCpuNanos();
            threadsAtLast = ManagementFactory.getThreadMXBean().getThreadCount();
            osThreadsAtLast = JvmCounters.osThreads();
        }

        synchronized void verify() {
            for (int p = 0; p < seen.length; p++) {
                if (seen[p].cardinality() != perPartition[p]) {
                    throw new IllegalStateException("partition " + p + ": " + seen[p].cardinality() + " of "
                            + perPartition[p] + " records");
                }
            }
            if (lastNanos == 0) {
                throw new IllegalStateException("not every acknowledgement was confirmed");
            }
        }
    }
}
