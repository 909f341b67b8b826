package io.kflux.bench;

import io.confluent.parallelconsumer.ParallelConsumerOptions;
import io.confluent.parallelconsumer.ParallelStreamProcessor;
import io.confluent.parallelconsumer.ParallelConsumerOptions.CommitMode;
import io.confluent.parallelconsumer.ParallelConsumerOptions.ProcessingOrder;
import io.confluent.parallelconsumer.internal.DrainingCloseable;
import io.confluent.parallelconsumer.reactor.ReactorProcessor;
import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.Ordering;
import io.kflux.ProcessingOptions;
import io.kflux.bench.runner.DrainHarness;
import io.kflux.bench.runner.JvmCounters;
import io.kflux.bench.runner.ThreadCensus;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import reactor.core.publisher.Mono;

/**
 * One contender of {@link ProcessingBenchmark} in a JVM of its own: {@code contender servers topic group records keys
 * workMs concurrency commitMs log seed} ({@code -} for no log or no seed). Processes the topic in the consumer group
 * with {@code KEY} ordering, each record's handler taking {@code workMs}, until every record of the topic was
 * processed (counting the seed log of a killed JVM of the same contender), then prints one result line: records/s
 * and process CPU per record over the window ({@link ProcessingTally}), live Java threads at the end of the window
 * (their count, and by name: {@link ThreadCensus}) and the JVM's peak, records processed again within this JVM, the load average, JIT and GC CPU per record, and
 * {@link ProcessingProbe}'s handlers running at a time and handler time.
 *
 * <ul>
 *   <li>{@code kflux}: {@code process(KEY, maxInFlight concurrency)}, the handler {@code Mono.delay(work)} (on
 *       {@link #HANDLER_TIMER}, as for Parallel Consumer);
 *       auto commit every {@code commitMs} (completed records above the committed offset ride in its metadata).</li>
 *   <li>{@code parallel-consumer}: Confluent Parallel Consumer 0.5.3.3's reactor module ({@code ReactorProcessor}),
 *       {@code ProcessingOrder.KEY}, {@code maxConcurrency(concurrency)}, the handler {@code Mono.delay(work)} (on
 *       {@link #HANDLER_TIMER});
 *       periodic asynchronous commits every {@code commitMs} (its own completed-offset encoding in the metadata).</li>
 *   <li>{@code parallel-consumer-core}: the same options on its core module ({@code ParallelStreamProcessor.poll}),
 *       the mode it was written for: its pool of {@code concurrency} threads, each record's handler sleeping
 *       {@code workMs} on one of them.</li>
 *   <li>{@code official}: kafka-clients' {@code KafkaConsumer} polled by one thread that hands each record to one of
 *       {@code concurrency} single-thread executors chosen by key (per-key order), where it sleeps {@code workMs};
 *       every {@code commitMs} the poll thread commits (async) each partition's contiguous completed prefix. Polling
 *       pauses while more than 10 records per executor wait.</li>
 * </ul>
 * Every contender's consumer: group protocol classic, {@code session.timeout.ms} 6000 (so a killed member's
 * partitions move within seconds), {@code auto.offset.reset} earliest.
 */
public final class ProcessingRunner {

    private static final long TIMEOUT_MS = Duration.ofMinutes(10).toMillis();

    private ProcessingRunner() {
    }

    public static void main(String[] args) throws Exception {
        String contender = args[0];
        String servers = args[1];
        String topic = args[2];
        String group = args[3];
        long records = Long.parseLong(args[4]);
        int keys = Integer.parseInt(args[5]);
        Duration work = Duration.ofMillis(Long.parseLong(args[6]));
        int concurrency = Integer.parseInt(args[7]);
        int commitMs = Integer.parseInt(args[8]);
        Path log = args[9].equals("-") ? null : Path.of(args[9]);
        Path seed = args[10].equals("-") ? null : Path.of(args[10]);
        ProcessingTally tally = new ProcessingTally(records, keys, log, seed,
                log == null ? profileWindow(group) : null); // clean runs only
        ProcessingProbe probe = new ProcessingProbe();
        probe.startSampling();
        ManagementFactory.getThreadMXBean().resetPeakThreadCount();
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", servers, "group.id", group,
                "auto.offset.reset", "earliest", "session.timeout.ms", "6000", "group.protocol", "classic"));
        switch (contender) {
            case "kflux-fetch64k" -> {
                // a diagnostic variant: results of 64 KiB per partition (about 450 of these records) instead of 1 MiB,
                // so that the records emitted one result after another come from several partitions in turn
                props.put("max.partition.fetch.bytes", 65536);
                kflux(props, topic, tally, probe, work, concurrency, commitMs);
            }
            case "kflux", ProcessingBenchmark.BASE -> kflux(props, topic, tally, probe, work, concurrency, commitMs);
            case "parallel-consumer" -> parallelConsumer(props, topic, tally, probe, work, concurrency, commitMs);
            case "parallel-consumer-core" -> parallelConsumerCore(props, topic, tally, probe, work, concurrency,
                    commitMs);
            case "official" -> official(props, topic, tally, probe, work, concurrency, commitMs);
            default -> throw new IllegalArgumentException("unknown contender " + contender);
        }
        tally.verify();
        long window = tally.lastNanos - tally.firstNanos;
        long own = tally.processedCount();
        Map<String, Long> groups = JvmCounters.since(tally.cpuGroupsAtFirst, tally.cpuGroupsAtLast);
        System.out.println(DrainHarness.RESULT_PREFIX + String.format("recordsPerSec=%.1f cpuNsPerRecord=%.1f"
                        + " jitNsPerRecord=%.1f gcNsPerRecord=%.1f"
                        + " threads=%d peakThreads=%d threadCensus=%s processed=%d processedAgain=%d windowNanos=%d"
                        + " load=%.2f %s",
                own * 1e9 / window, (double) (tally.cpuAtLast - tally.cpuAtFirst) / own,
                (double) groups.getOrDefault("jit", 0L) / own, (double) groups.getOrDefault("gc", 0L) / own,
                tally.threadsAtLast, ManagementFactory.getThreadMXBean().getPeakThreadCount(),
                ThreadCensus.encode(tally.threadCensusAtLast), own,
                tally.processedAgain(), window, JvmCounters.loadAverage(), probe.result()));
        System.exit(0);
    }

    /**
     * The non-blocking handlers' 5 ms timer, the benchmark's own (one thread, {@code bench-delay}, counted as the
     * benchmark's by {@link ThreadCensus}) and the same for every contender that uses one: with Reactor's default,
     * {@code Mono.delay} would start Reactor's global {@code parallel} scheduler (one thread per core) in the
     * contender's JVM, and the census would count the benchmark's timer as the client's.
     */
    static final reactor.core.scheduler.Scheduler HANDLER_TIMER =
            reactor.core.scheduler.Schedulers.newSingle(ThreadCensus.HANDLER_TIMER_NAME, true);

    /** The key's number: keys are {@code key-<n>} ({@link ProcessingBenchmark#key}). */
    private static int key(String key) {
        return Integer.parseInt(key, 4, key.length(), 10);
    }

    private static void kflux(Map<String, Object> props, String topic, ProcessingTally tally, ProcessingProbe probe,
                              Duration work, int concurrency, int commitMs) throws InterruptedException {
        props.put("enable.auto.commit", true);
        props.put("auto.commit.interval.ms", commitMs);
        KafkaFluxConsumer<String, byte[]> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(props,
                Deserializers.string(), Deserializers.byteArray()).subscription(List.of(topic)));
        reactor.core.Disposable run = consumer.process(
                ProcessingOptions.<String, byte[]>ordering(Ordering.KEY).maxInFlight(concurrency),
                r -> {
                    long start = probe.started(r.partition());
                    return Mono.delay(work, HANDLER_TIMER).doOnNext(x -> {
                        probe.ended(r.partition(), start);
                        tally.processed(key(r.key()), r.partition(), r.offset());
                    });
                }).subscribe(p -> { }, e -> {
                    System.out.println("kflux process() failed: " + e);
                    System.exit(2);
                });
        awaitComplete(tally);
        run.dispose();
        consumer.close().block(Duration.ofMinutes(1));
    }

    private static ParallelConsumerOptions<String, byte[]> parallelConsumerOptions(Map<String, Object> props,
                                                                                int concurrency, int commitMs) {
        props.put("enable.auto.commit", "false");
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new ByteArrayDeserializer());
        return ParallelConsumerOptions.<String, byte[]>builder().consumer(consumer).ordering(ProcessingOrder.KEY)
                .maxConcurrency(concurrency).commitMode(CommitMode.PERIODIC_CONSUMER_ASYNCHRONOUS)
                .commitInterval(Duration.ofMillis(commitMs)).build();
    }

    private static void parallelConsumer(Map<String, Object> props, String topic, ProcessingTally tally,
                                         ProcessingProbe probe, Duration work, int concurrency, int commitMs)
            throws InterruptedException {
        ReactorProcessor<String, byte[]> processor = new ReactorProcessor<>(parallelConsumerOptions(props,
                concurrency, commitMs));
        processor.subscribe(List.of(topic));
        processor.react(context -> {
            ConsumerRecord<String, byte[]> r = context.getSingleConsumerRecord();
            long start = probe.started(r.partition());
            return Mono.delay(work, HANDLER_TIMER).doOnNext(x -> {
                probe.ended(r.partition(), start);
                tally.processed(key(r.key()), r.partition(), r.offset());
            });
        });
        awaitComplete(tally);
        // the topic is done (the window has ended): nothing left to drain, and a bounded close
        processor.close(Duration.ofSeconds(30), DrainingCloseable.DrainingMode.DONT_DRAIN);
    }

    /**
     * Parallel Consumer's core module in the mode it was written for: its pool of {@code concurrency} threads, each
     * record's handler sleeping {@code work} on one of them.
     */
    private static void parallelConsumerCore(Map<String, Object> props, String topic, ProcessingTally tally,
                                             ProcessingProbe probe, Duration work, int concurrency, int commitMs)
            throws InterruptedException {
        ParallelStreamProcessor<String, byte[]> processor = ParallelStreamProcessor.createEosStreamProcessor(
                parallelConsumerOptions(props, concurrency, commitMs));
        processor.subscribe(List.of(topic));
        processor.poll(context -> {
            ConsumerRecord<String, byte[]> r = context.getSingleConsumerRecord();
            long start = probe.started(r.partition());
            try {
                Thread.sleep(work.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            probe.ended(r.partition(), start);
            tally.processed(key(r.key()), r.partition(), r.offset());
        });
        awaitComplete(tally);
        processor.close(Duration.ofSeconds(30), DrainingCloseable.DrainingMode.DONT_DRAIN);
    }

    private static void official(Map<String, Object> props, String topic, ProcessingTally tally,
                                 ProcessingProbe probe, Duration work, int concurrency, int commitMs)
            throws InterruptedException {
        props.put("enable.auto.commit", "false");
        props.put("max.poll.records", "500");
        AtomicInteger threadNumber = new AtomicInteger();
        ExecutorService[] executors = new ExecutorService[concurrency];
        for (int i = 0; i < concurrency; i++) {
            executors[i] = Executors.newSingleThreadExecutor(task -> new Thread(task, "worker-"
                    + threadNumber.incrementAndGet()));
        }
        Map<TopicPartition, Completed> completed = new ConcurrentHashMap<>();
        AtomicInteger waiting = new AtomicInteger();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    consumer.commitSync(committable(completed, partitions));
                    partitions.forEach(completed::remove);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    for (TopicPartition tp : partitions) {
                        completed.put(tp, new Completed(consumer.position(tp)));
                    }
                }
            });
            long nextCommit = System.nanoTime() + commitMs * 1_000_000L;
            long deadline = System.currentTimeMillis() + TIMEOUT_MS;
            while (!tally.isComplete()) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("official: not done in " + TIMEOUT_MS + " ms");
                }
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(20))) {
                    int key = key(r.key());
                    Completed done = completed.get(new TopicPartition(r.topic(), r.partition()));
                    waiting.incrementAndGet();
                    executors[key % concurrency].execute(() -> {
                        long start = probe.started(r.partition());
                        try {
                            Thread.sleep(work.toMillis());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                        probe.ended(r.partition(), start);
                        tally.processed(key, r.partition(), r.offset());
                        done.add(r.offset());
                        waiting.decrementAndGet();
                    });
                }
                if (waiting.get() > 10 * concurrency) {
                    consumer.pause(consumer.assignment());
                } else if (!consumer.paused().isEmpty()) {
                    consumer.resume(consumer.paused());
                }
                if (System.nanoTime() >= nextCommit) {
                    consumer.commitAsync(committable(completed, completed.keySet()), null);
                    nextCommit = System.nanoTime() + commitMs * 1_000_000L;
                }
            }
            consumer.commitSync(committable(completed, completed.keySet()));
        } finally {
            for (ExecutorService e : executors) {
                e.shutdownNow();
            }
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> committable(Map<TopicPartition, Completed> completed,
                                                                      Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : partitions) {
            Completed c = completed.get(tp);
            if (c != null) {
                offsets.put(tp, new OffsetAndMetadata(c.contiguousEnd()));
            }
        }
        return offsets;
    }

    /** A partition's completed offsets from its position at assignment; the commit is their contiguous end. */
    private static final class Completed {
        private final long start;
        private final BitSet done = new BitSet();

        Completed(long start) {
            this.start = start;
        }

        synchronized void add(long offset) {
            done.set((int) (offset - start));
        }

        synchronized long contiguousEnd() {
            return start + done.nextClearBit(0);
        }
    }

    /**
     * With {@code -Dkflux.bench.profileAgent=<libasyncProfiler.so> -Dkflux.bench.profileFile=<out.collapsed>}: an
     * async-profiler CPU profile (1 ms, per thread, collapsed stacks) of the warm middle of the window, from a quarter
     * to three quarters of the topic processed, loaded into this JVM with {@code jcmd JVMTI.agent_load}, written to
     * {@code <out>-<group>.collapsed}; else null.
     */
    private static java.util.function.IntConsumer profileWindow(String group) {
        String agent = System.getProperty("kflux.bench.profileAgent");
        String prefix = System.getProperty("kflux.bench.profileFile");
        String file = prefix + "-" + group + ".collapsed";
        if (agent == null || prefix == null) {
            return null;
        }
        return quarter -> io.kflux.bench.runner.ProfilerAgent.command(agent,
                quarter == 1 ? "start,event=cpu,interval=1ms,threads" : "stop,file=" + file + ",collapsed");
    }

    private static void awaitComplete(ProcessingTally tally) throws InterruptedException {
        if (!tally.await(TIMEOUT_MS)) {
            throw new IllegalStateException(tally.processedCount() + " processed, topic not done in " + TIMEOUT_MS
                    + " ms");
        }
    }
}
