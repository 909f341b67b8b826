package io.kflux.bench;

import io.kflux.bench.runner.DrainHarness;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The suite's steady producer (e2e and scale cases): sends {@code rate} records/s round-robin over the partitions
 * of one topic or of several topics of equal size (the last may be smaller), a tick's worth every millisecond (linger.ms 0, acks 1), each value starting with its send time in
 * epoch microseconds; behind schedule it catches up, and reports by how much.
 */
final class FixedRateProducer implements AutoCloseable {
    /** Bytes per value: the send time in the first 8, text after it. */
    static final int VALUE_SIZE = 100;
    private static final long TICK_NANOS = 1_000_000;

    final AtomicLong sent = new AtomicLong();
    final AtomicLong maxLagMicros = new AtomicLong();
    /** How far behind its schedule the last record was sent, µs. */
    private final AtomicLong lagMicros = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Thread thread;

    FixedRateProducer(String servers, String topic, int partitions, int rate) {
        this(servers, List.of(topic), partitions, partitions, rate, 0);
    }

    /**
     * @param topics             the topics in order; partition {@code g} of the whole is partition
     *                           {@code g % partitionsPerTopic} of topic {@code g / partitionsPerTopic}
     * @param partitionsPerTopic the partitions of each topic but the last
     * @param partitions         the partitions of all topics together
     * @param lingerMs           the producer's {@code linger.ms}: 0 sends each tick's records at once (e2e); more
     *                           makes its Produce requests a steady rate whatever CPU the consumers leave it (scale)
     */
    FixedRateProducer(String servers, List<String> topics, int partitionsPerTopic, int partitions, int rate,
                      int lingerMs) {
        Properties props = BenchmarkSuite.producerProps(servers);
        props.put("linger.ms", Integer.toString(lingerMs));
        byte[][] payloads = ConsumeBenchmark.payloads(VALUE_SIZE);
        thread = new Thread(() -> {
            try (KafkaProducer<byte[], byte[]> producer =
                         new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
                long start = System.nanoTime();
                long n = 0;
                while (running.get()) {
                    long due = start + n * 1_000_000_000L / rate;
                    long now = System.nanoTime();
                    if (due > now) {
                        // to the next millisecond tick, not to this record's due time: a tick's worth per wake-up,
                        // as the class says (on the 2-core machine this changed the producer's CPU little; what had
                        // starved the e2e consumers was the broker's JIT, which BenchmarkSuite's lead lets settle)
                        LockSupport.parkNanos(Math.max(due - now, TICK_NANOS - (now - start) % TICK_NANOS));
                        continue;
                    }
                    lagMicros.set((now - due) / 1000);
                    maxLagMicros.accumulateAndGet((now - due) / 1000, Math::max);
                    byte[] value = payloads[(int) (n % payloads.length)].clone();
                    long micros = DrainHarness.nowMicros();
                    for (int i = 7; i >= 0; i--) {
                        value[i] = (byte) micros;
                        micros >>>= 8;
                    }
                    int g = (int) (n % partitions);
                    producer.send(new ProducerRecord<>(topics.get(g / partitionsPerTopic), g % partitionsPerTopic,
                                    null, value),
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

    /**
     * Waits until the producer is less than {@code lagMillis} behind its schedule, at most {@code maxMillis}; returns
     * how long it waited, ms. After topics of many partitions are created it falls tens of seconds behind and then
     * catches up at full speed: a window measured meanwhile sees a burst, not the steady rate.
     */
    long awaitOnSchedule(long lagMillis, long maxMillis) throws InterruptedException {
        long start = System.nanoTime();
        // three checks in a row with records sent and the last one less than lagMillis late: a producer blocked
        // on metadata right after the topics' creation sent its first record on time and then nothing for a minute
        int good = 0;
        while (good < 3 && (System.nanoTime() - start) / 1_000_000 < maxMillis) {
            long before = sent.get();
            Thread.sleep(1_000);
            good = sent.get() > before && lagMicros.get() < lagMillis * 1000 ? good + 1 : 0;
        }
        return (System.nanoTime() - start) / 1_000_000;
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
