package io.kflux.bench.runner;

import static io.kflux.bench.runner.JvmCounters.gcMillis;
import static io.kflux.bench.runner.JvmCounters.loadAverage;

import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * What runs inside each contender's JVM: the suite ({@code io.kflux.bench.BenchmarkSuite}) forks one JVM per
 * contender and round, so every client gets the same heap, collector and JIT state, and reactor-kafka can run
 * on its own kafka-clients. JDK only, because it is loaded next to both kafka-clients 3.9 and 4.x.
 *
 * <p>Throughput ({@code --mode drain}): an unmeasured warm-up, then one measured drain, each with a new consumer
 * reading from offset 0. The warm-up is one-pass drains, a new consumer each, until {@code --warmup-seconds} have
 * passed (at least one) or, with {@code --warmup N}, N of them (the suite's method before the time-based one). The measured drain reads the topic again and
 * again until {@code --window-seconds} have passed since its first record (or {@code --passes} times), after a
 * staggered lead-in, seeking each partition back to 0 at its end, so that the window is steady consumption and long enough for
 * process CPU time to mean something; see {@link Tally} for what each record is checked against. End-to-end latency ({@code --mode e2e}): one consumer
 * follows the topic from its end while the suite produces at a fixed rate; latencies are taken from the
 * producer's send time written into the first 8 bytes of each value (epoch microseconds).
 *
 * <p>The one result goes to stdout as a single line starting with {@link #RESULT_PREFIX}, {@code key=value}
 * pairs separated by spaces; everything else a client prints is passed through by the suite.
 */
public final class DrainHarness {

    public static final String RESULT_PREFIX = "BENCH-RESULT ";

    /** What to read, from the command line the suite builds. */
    public record Spec(String client, String mode, String servers, String topic, String topicId, int partitions,
                       long records, int valueSize, int warmup, double warmupSeconds, long e2eWarmupMillis,
                       long e2eMeasureMillis, double windowSeconds, int passes, Map<String, String> options) {
        static Spec parse(String[] args) {
            Map<String, String> o = new HashMap<>();
            for (int i = 0; i + 1 < args.length; i += 2) {
                o.put(args[i], args[i + 1]);
            }
            return new Spec(o.get("--client"), o.getOrDefault("--mode", "drain"), o.get("--bootstrap-servers"),
                    o.get("--topic"), o.getOrDefault("--topic-id", ""), Integer.parseInt(o.get("--partitions")),
                    Long.parseLong(o.getOrDefault("--records", "0")),
                    Integer.parseInt(o.getOrDefault("--value-size", "0")),
                    Integer.parseInt(o.getOrDefault("--warmup", "0")),
                    Double.parseDouble(o.getOrDefault("--warmup-seconds", "0")),
                    Long.parseLong(o.getOrDefault("--e2e-warmup-ms", "5000")),
                    Long.parseLong(o.getOrDefault("--e2e-measure-ms", "20000")),
                    Double.parseDouble(o.getOrDefault("--window-seconds", "10")),
                    Integer.parseInt(o.getOrDefault("--passes", "0")), Map.copyOf(o));
        }

        /** Records per partition: the suite fills partitions round-robin with a multiple of their number. */
        public long endOffset() {
            return records / partitions;
        }
    }

    /**
     * Reads every partition from offset 0, feeding each record to the tally, and seeks a partition back to 0 when
     * {@link Tally#add} says so, until {@link Tally#complete()}; no {@code take(n)}, which would hide duplicates.
     */
    public interface Drainer {
        void drain(Spec spec, Tally tally) throws Exception;
    }

    /** Follows the topic from its end, feeding each record's value to the tally until {@link Latencies#done()}. */
    public interface Follower {
        void follow(Spec spec, Latencies latencies) throws Exception;
    }

    private DrainHarness() {
    }

    /** Runs what {@code args} ask for and prints the result line; exits non-zero on failure. */
    public static void run(String[] args, Drainer drainer, Follower follower) {
        try {
            Spec spec = Spec.parse(args);
            String line = "e2e".equals(spec.mode()) ? follow(spec, follower) : drain(spec, drainer);
            System.out.println(RESULT_PREFIX + line);
            System.out.flush();
            // client threads (reactor schedulers, Netty loops) must not keep the JVM alive
            System.exit(0);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static String drain(Spec spec, Drainer drainer) throws Exception {
        long mainAt = System.nanoTime();
        long warmupNanos = 0;
        int warmupDrains = 0;
        if (spec.warmup() > 0) {
            for (int i = 0; i < spec.warmup(); i++) {
                Tally t = new Tally(spec.client(), spec.partitions(), spec.endOffset(), 1, 0, false, false);
                warmupNanos += warmUp(spec, drainer, t);
                warmupDrains++;
            }
        } else {
            // one-pass drains, a new consumer each, until the time is up: at least one, so that the measured
            // consumer is never the JVM's first. Not the window's pattern with seeks back: the seeks (one per
            // partition and pass) are no hot path for the JIT. (That pattern also hung a kflux consumer before the
            // fix of a seek lost to the record being emitted, CHANGELOG: a lead-in seek from onNext was undone and
            // the partition's pass never ended.)
            long until = System.nanoTime() + (long) (spec.warmupSeconds() * 1e9);
            do {
                Tally t = new Tally(spec.client(), spec.partitions(), spec.endOffset(), 1, 0, false, false);
                warmupNanos += warmUp(spec, drainer, t);
                warmupDrains++;
            } while (System.nanoTime() < until);
        }
        long pauseAt = System.nanoTime();
        System.gc();
        Thread.sleep(200);
        // --passes N: exactly N passes; otherwise passes until the window is over
        Tally tally = spec.passes() > 0
                ? new Tally(spec.client(), spec.partitions(), spec.endOffset(), spec.passes(), 0, true, true)
                : new Tally(spec.client(), spec.partitions(), spec.endOffset(), Integer.MAX_VALUE,
                        (long) (spec.windowSeconds() * 1e9), true, true);
        // the brokers' side of the measured drain (set-up, lead-in and close included): attached before it
        BrokerView brokers = new BrokerView(BrokerView.pids(spec.options().get("--broker-pids")));
        BrokerView.Snapshot brokerBefore = brokers.read();
        long gcBefore = gcMillis();
        tally.created();
        long pauseNanos = tally.createdNanos - pauseAt;
        profile(spec, true);
        drainer.drain(spec, tally);
        profile(spec, false);
        long closeNanos = System.nanoTime() - tally.endNanos;
        BrokerView.Snapshot brokerAfter = brokers.read();
        brokers.close();
        long checksum = tally.verify();
        long gc = gcMillis() - gcBefore;
        return String.format("client=%s mode=drain records=%d bytes=%d nanos=%d setupNanos=%d passes=%d"
                        + " checksum=%016x allocated=%d cpuNanos=%d cpuJit=%d cpuGc=%d maxGapNanos=%d maxGapAt=%d"
                        + " stalls=%d stallNanos=%d discarded=%d gcMillis=%d warmupDrains=%d warmupNanos=%d"
                        + " pauseNanos=%d closeNanos=%d jvmStartMillis=%d harnessNanos=%d load=%.2f"
                        + " brokerCpuNanos=%d brokerFetches=%d brokerBytesOut=%d",
                spec.client(), tally.records, tally.bytes, tally.windowNanos(), tally.startNanos - tally.createdNanos,
                tally.passes(), checksum, tally.allocated, tally.cpuNanos, tally.cpuByGroup.getOrDefault("jit", -1L),
                tally.cpuByGroup.getOrDefault("gc", -1L), tally.maxGap, tally.maxGapAt, tally.stalls,
                tally.stallNanos, tally.discarded, gc, warmupDrains, warmupNanos, pauseNanos, closeNanos,
                jvmStartMillis(mainAt), System.nanoTime() - mainAt, loadAverage(),
                brokerAfter.cpuNanos() - brokerBefore.cpuNanos(), brokerAfter.fetchCount() - brokerBefore.fetchCount(),
                brokerAfter.bytesOut() - brokerBefore.bytesOut());
    }

    /**
     * With {@code -Dkflux.bench.profileAgent=<libasyncProfiler.so> -Dkflux.bench.profileFile=<prefix>} among the
     * contender's JVM flags (the suite's {@code --jvm-args}): an async-profiler profile of the measured drain only
     * (lead-in included, warm-up not), loaded with {@code jcmd JVMTI.agent_load} as it starts and written as
     * collapsed stacks per thread to {@code <prefix>-<client>-<pid>.collapsed} as it ends. The event is
     * {@code -Dkflux.bench.profileEvent} ({@code cpu}, 1 ms, by default; {@code alloc} samples allocations).
     */
    private static void profile(Spec spec, boolean start) {
        String agent = System.getProperty("kflux.bench.profileAgent");
        String prefix = System.getProperty("kflux.bench.profileFile");
        if (agent == null || prefix == null) {
            return;
        }
        String event = System.getProperty("kflux.bench.profileEvent", "cpu");
        ProfilerAgent.command(agent, start
                ? "start,event=" + event + ("cpu".equals(event) ? ",interval=1ms" : "") + ",threads"
                : "stop,file=" + prefix + "-" + spec.client() + "-" + ProcessHandle.current().pid()
                        + ".collapsed,collapsed");
    }

    /** One unmeasured drain, verified like a measured one; its length in ns, consumer creation and close included. */
    private static long warmUp(Spec spec, Drainer drainer, Tally tally) throws Exception {
        long start = System.nanoTime();
        tally.created();
        drainer.drain(spec, tally);
        tally.verify();
        return System.nanoTime() - start;
    }

    /**
     * The JVM's age in ms when {@code mainAt} (a {@code System.nanoTime()}) was taken: its start-up up to the
     * harness, which the suite subtracts from the process's wall time to see what the JVM itself costs.
     */
    private static long jvmStartMillis(long mainAt) {
        long ageNow = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
        return ageNow - (System.nanoTime() - mainAt) / 1_000_000;
    }

    private static String follow(Spec spec, Follower follower) throws Exception {
        long mainAt = System.nanoTime();
        Latencies latencies = new Latencies(spec.e2eWarmupMillis(), spec.e2eMeasureMillis());
        follower.follow(spec, latencies);
        if (latencies.count == 0) {
            throw new IllegalStateException(spec.client() + " received no record while measuring");
        }
        long[] sorted = Arrays.copyOf(latencies.micros, latencies.count);
        Arrays.sort(sorted);
        return String.format("client=%s mode=e2e records=%d p50Micros=%d p99Micros=%d p999Micros=%d maxMicros=%d"
                        + " jvmStartMillis=%d harnessNanos=%d load=%.2f",
                spec.client(), sorted.length, percentile(sorted, 0.50), percentile(sorted, 0.99),
                percentile(sorted, 0.999), sorted[sorted.length - 1], jvmStartMillis(mainAt),
                System.nanoTime() - mainAt, loadAverage());
    }

    private static long percentile(long[] sorted, double q) {
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** End-to-end latencies of the records received in the measuring window. */
    public static final class Latencies {
        private final long measureFromMicros;
        private final long measureUntilMicros;
        private long[] micros = new long[1 << 20];
        private int count;

        Latencies(long warmupMillis, long measureMillis) {
            long now = nowMicros();
            measureFromMicros = now + warmupMillis * 1000;
            measureUntilMicros = measureFromMicros + measureMillis * 1000;
        }

        /** Whether the measuring window has passed: the client stops reading then. */
        public boolean done() {
            return nowMicros() >= measureUntilMicros;
        }

        /** The timeout a client should allow for the whole follow, warm-up included. */
        public long remainingMillis() {
            return Math.max(0, (measureUntilMicros - nowMicros()) / 1000);
        }

        public void add(byte[] value) {
            long now = nowMicros();
            if (now < measureFromMicros || now >= measureUntilMicros || value == null || value.length < 8) {
                return;
            }
            long sent = 0;
            for (int i = 0; i < 8; i++) {
                sent = (sent << 8) | (value[i] & 0xFF);
            }
            if (count == micros.length) {
                micros = Arrays.copyOf(micros, count * 2);
            }
            micros[count++] = now - sent;
        }
    }

    /** Wall-clock microseconds, the producer's clock too (same machine). */
    public static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    // ---------------------------------------------------------------- JVM counters

}
