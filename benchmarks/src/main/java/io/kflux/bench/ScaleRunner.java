package io.kflux.bench;

import static io.kflux.bench.runner.JvmCounters.parseArgs;

import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.bench.runner.BrokerView;
import io.kflux.bench.runner.DrainHarness;
import io.kflux.bench.runner.JvmCounters;
import io.kflux.bench.runner.ThreadCensus;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * The scale case's contender JVM ({@code --mode scale}, forked by {@link BenchmarkSuite}): {@code --consumers N}
 * consumers of N partitions in topics of {@code --topic-partitions} partitions each ({@link ScaleCase#topics}),
 * each assigned one partition (manual assignment, from the end), while the suite produces a low total rate into
 * them. {@code kflux}: N {@code KafkaFluxConsumer}s with a
 * subscriber each. {@code official}: N {@code KafkaConsumer}s, each polled by a thread of its own, as that client
 * is used. After {@code --warmup-seconds} it measures, over {@code --measure-seconds}: records received, process CPU
 * time, then the OS threads, open sockets and RSS of the process, and the heap in use after full collections, with
 * every consumer still open. Each consumer's records must follow one another by offset (no gap, no duplicate).
 * {@code setupNanos} is the time to create the consumers and subscribe (kflux) or to start their threads
 * (official, whose consumers are created on those threads): not comparable, shown as "creation". What is comparable
 * is how long after the first consumer's creation began every consumer (and the median one) had its first record:
 * each consumer starts at the partition's end and the suite produces one record per partition and second or so.
 */
final class ScaleRunner {

    private ScaleRunner() {
    }

    /** One contender's consumers, started and still open; {@link #close()} ends them. */
    private interface Fleet extends AutoCloseable {
        @Override
        void close() throws Exception;
    }

    static void main(String[] args) {
        try {
            Map<String, String> o = parseArgs(args);
            String client = o.get("--client");
            int consumers = Integer.parseInt(o.get("--consumers"));
            long warmupMillis = Long.parseLong(o.getOrDefault("--warmup-seconds", "10")) * 1000;
            long measureMillis = Long.parseLong(o.getOrDefault("--measure-seconds", "30")) * 1000;
            Counts counts = new Counts(consumers);
            int perTopic = Integer.parseInt(o.get("--topic-partitions"));
            List<String> topics = ScaleCase.topics(o.get("--topic-prefix"), consumers, perTopic);
            Map<String, String> common = new java.util.HashMap<>();
            for (String pair : o.getOrDefault("--consumer-props", "").split(",")) {
                if (!pair.isBlank()) {
                    int eq = pair.indexOf('=');
                    common.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
                }
            }
            Pace pace = new Pace(Integer.parseInt(o.getOrDefault("--starts-per-second", "0")));
            // attached before the consumers start, so that what their start costs the broker is seen too; the
            // window's readings come long after the attach
            BrokerView brokers = new BrokerView(BrokerView.pids(o.get("--broker-pids")));
            BrokerView.Snapshot brokerAtStart = brokers.read();
            long created = System.nanoTime();
            Fleet fleet = switch (client) {
                case "kflux" -> kflux(o.get("--bootstrap-servers"), common, topics, perTopic, consumers,
                        counts, pace);
                case "official" -> official(o.get("--bootstrap-servers"), common, topics, perTopic, consumers,
                        counts, pace);
                default -> throw new IllegalArgumentException("the scale case has kflux and official, not " + client);
            };
            long setupNanos = System.nanoTime() - created;
            Thread.sleep(warmupMillis);
            // then until every consumer had its first record, at most --first-records-max-seconds (120) more: a
            // window while consumers still start measures their start, not their steady cost
            long firstRecordsWait = counts.awaitAllStarted(
                    Long.parseLong(o.getOrDefault("--first-records-max-seconds", "120")) * 1000);
            BrokerView.Snapshot brokerStarted = brokers.read();
            // then until the broker's JIT is quiet, at most --broker-quiet-max-seconds (60) more
            long quietMillis = brokers.awaitQuietJit(2_000,
                    Long.parseLong(o.getOrDefault("--broker-quiet-max-seconds", "60")) * 1000);
            counts.check();
            BrokerView.Snapshot brokerBefore = brokers.read();
            long cpuBefore = JvmCounters.processCpuNanos();
            long receivedBefore = counts.received.get();
            long start = System.nanoTime();
            Thread.sleep(measureMillis);
            long cpu = JvmCounters.processCpuNanos() - cpuBefore;
            long window = System.nanoTime() - start;
            long received = counts.received.get() - receivedBefore;
            BrokerView.Snapshot brokerAfter = brokers.read();
            brokers.close();
            long threads = JvmCounters.osThreads();
            int javaThreads = ManagementFactory.getThreadMXBean().getThreadCount();
            System.out.println("Java threads by name, digits dropped: " + ThreadCensus.byName());
            long sockets = JvmCounters.sockets();
            long rss = JvmCounters.rssBytes();
            long heap = JvmCounters.heapAfterGc();
            counts.check();
            String line = String.format("client=%s mode=scale consumers=%d records=%d nanos=%d cpuNanos=%d"
                            + " threads=%d javaThreads=%d sockets=%d rss=%d heapAfterGc=%d consumersWithRecords=%d"
                            + " setupNanos=%d load=%.2f brokerCpuNanos=%d brokerNanos=%d brokerRequests=%s"
                            + " fetchMeanMicros=%d brokerThreads=%s fetchSessions=%d brokerJitNanos=%d"
                            + " brokerQuietMillis=%d firstRecordAllNanos=%d firstRecordMedianNanos=%d"
                            + " brokerConnections=%d brokerSessionEvictions=%d firstRecordsWaitMillis=%d"
                            + " startRequests=%s startBrokerCpuNanos=%d fetchLocalMicros=%d",
                    client, consumers, received, window, cpu, threads, javaThreads, sockets, rss, heap,
                    counts.withRecords(), setupNanos, JvmCounters.loadAverage(),
                    brokerAfter.cpuNanos() - brokerBefore.cpuNanos(), brokerAfter.nanos() - brokerBefore.nanos(),
                    BrokerView.format(brokerAfter.ratesSince(brokerBefore, consumers)),
                    Math.round(brokerAfter.fetchMeanMsSince(brokerBefore) * 1000),
                    brokerAfter.threadCpuSince(brokerBefore, 8), brokerAfter.fetchSessions(),
                    brokerAfter.jitNanosSince(brokerBefore), quietMillis, counts.firstRecordNanos(created, 1.0),
                    counts.firstRecordNanos(created, 0.5), brokerAfter.connectionsCreatedSince(brokerBefore),
                    brokerAfter.sessionEvictionsSince(brokerBefore), firstRecordsWait,
                    BrokerView.format(brokerStarted.countsSince(brokerAtStart, consumers)),
                    brokerStarted.cpuNanos() - brokerAtStart.cpuNanos(),
                    Math.round(brokerAfter.fetchLocalMsSince(brokerBefore) * 1000));
            fleet.close();
            System.out.println(DrainHarness.RESULT_PREFIX + line);
            System.out.flush();
            System.exit(0);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    /**
     * Starts at most {@code perSecond} consumers a second (0: all at once). 10,000 consumers started at once, each
     * asking for metadata and offsets, overran a broker sharing the 2 cores with them: some got no answer within
     * {@code default.api.timeout.ms}. A service that starts many consumers would stagger them too.
     */
    private record Pace(int perSecond) {
        private static final long START = System.nanoTime();

        void await(int started) throws InterruptedException {
            if (perSecond > 0) {
                long due = START + started * 1_000_000_000L / perSecond;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
            }
        }
    }

    /** Records per consumer, checked offset by offset; safe for calls from many threads. */
    private static final class Counts {
        final AtomicLong received = new AtomicLong();
        private final AtomicLongArray next;
        /** When each consumer's first record arrived ({@link System#nanoTime()}), 0 before. */
        private final AtomicLongArray first;
        private final AtomicReference<String> failure = new AtomicReference<>();

        Counts(int consumers) {
            next = new AtomicLongArray(consumers);
            first = new AtomicLongArray(consumers);
            for (int i = 0; i < consumers; i++) {
                next.set(i, -1);
            }
        }

        void add(int consumer, long offset) {
            long expected = next.getAndSet(consumer, offset + 1);
            if (expected < 0) {
                first.set(consumer, System.nanoTime());
            }
            if (expected >= 0 && expected != offset) {
                failure.compareAndSet(null, "consumer " + consumer + " got offset " + offset + " where " + expected
                        + " was due");
            }
            received.incrementAndGet();
        }

        int withRecords() {
            int n = 0;
            for (int i = 0; i < next.length(); i++) {
                n += next.get(i) >= 0 ? 1 : 0;
            }
            return n;
        }

        /**
         * How long after {@code since} the {@code quantile} (0-1) of the consumers had their first record; -1 while
         * a consumer of that quantile has none.
         */
        long firstRecordNanos(long since, double quantile) {
            long[] at = new long[first.length()];
            for (int i = 0; i < at.length; i++) {
                at[i] = first.get(i) == 0 ? Long.MAX_VALUE : first.get(i) - since;
            }
            java.util.Arrays.sort(at);
            long t = at[Math.max(0, (int) Math.ceil(quantile * at.length) - 1)];
            return t == Long.MAX_VALUE ? -1 : t;
        }

        /** Waits until every consumer had a record, at most {@code maxMillis}; returns how long it waited, ms. */
        long awaitAllStarted(long maxMillis) throws InterruptedException {
            long start = System.nanoTime();
            while (withRecords() < next.length() && (System.nanoTime() - start) / 1_000_000 < maxMillis) {
                Thread.sleep(200);
            }
            return (System.nanoTime() - start) / 1_000_000;
        }

        void check() {
            if (failure.get() != null) {
                throw new IllegalStateException(failure.get());
            }
        }
    }

    private static Fleet kflux(String servers, Map<String, String> common, List<String> topics, int perTopic, int consumers, Counts counts,
                               Pace pace) throws InterruptedException {
        List<KafkaFluxConsumer<byte[], byte[]>> all = new ArrayList<>(consumers);
        List<Disposable> subscriptions = new ArrayList<>(consumers);
        for (int p = 0; p < consumers; p++) {
            pace.await(p);
            int index = p;
            Map<String, String> props = new java.util.HashMap<>(common);
            props.putAll(Map.of("bootstrap.servers", servers, "client.id", "bench-scale-kflux",
                    "auto.offset.reset", "latest"));
            KafkaFluxConsumer<byte[], byte[]> consumer = KafkaFluxConsumer.create(ConsumerOptions.<byte[], byte[]>create(props)
                    .assignment(List.of(new TopicPartition(topics.get(index / perTopic), index % perTopic))));
            all.add(consumer);
            subscriptions.add(consumer.receive().subscribe(r -> counts.add(index, r.offset()),
                    e -> counts.failure.compareAndSet(null, "consumer " + index + " failed: " + e)));
        }
        return () -> {
            subscriptions.forEach(Disposable::dispose);
            Flux.fromIterable(all).flatMap(KafkaFluxConsumer::close, 256).blockLast(Duration.ofMinutes(5));
        };
    }

    private static Fleet official(String servers, Map<String, String> common, List<String> topics, int perTopic, int consumers, Counts counts,
                               Pace pace) throws InterruptedException {
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> threads = new ArrayList<>(consumers);
        for (int p = 0; p < consumers; p++) {
            pace.await(p);
            int index = p;
            Thread thread = new Thread(() -> {
                Properties props = new Properties();
                props.putAll(common);
                props.put("bootstrap.servers", servers);
                props.put("client.id", "bench-scale-official");
                props.put("enable.auto.commit", "false");
                props.put("auto.offset.reset", "latest");
                try (KafkaConsumer<byte[], byte[]> consumer =
                             new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                    consumer.assign(List.of(new org.apache.kafka.common.TopicPartition(topics.get(index / perTopic),
                            index % perTopic)));
                    while (running.get()) {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                            counts.add(index, r.offset());
                        }
                    }
                } catch (RuntimeException e) {
                    counts.failure.compareAndSet(null, "consumer " + index + " failed: " + e);
                }
            }, "bench-official-" + p);
            thread.start();
            threads.add(thread);
        }
        return () -> {
            running.set(false);
            for (Thread t : threads) {
                t.join(60_000);
            }
        };
    }
}
