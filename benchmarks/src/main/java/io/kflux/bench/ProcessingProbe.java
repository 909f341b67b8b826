package io.kflux.bench;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * How a {@link ProcessingRunner} contender keeps its handlers busy: each handler call reports its start and its end
 * (the 5 ms of work done), and a sampler thread reads every 10 ms how many handlers run and over how many partitions.
 * By Little's law records/s = mean handlers running / mean handler time, so the two means say whether a contender
 * is held back by the concurrency it reaches (its own scheduling, or records of too few partitions/keys at hand) or
 * by handlers taking longer than the work (a late timer, a CPU-starved thread).
 */
final class ProcessingProbe {

    private static final long SAMPLE_MS = 10;

    private final AtomicIntegerArray runningByPartition = new AtomicIntegerArray(ProcessingBenchmark.PARTITIONS);
    private final LongAdder handlerNanos = new LongAdder();
    private final LongAdder ended = new LongAdder();
    private final AtomicLong maxHandlerNanos = new AtomicLong();
    private long samples;
    private long runningSum;
    private long partitionsSum;
    private volatile boolean stopped;
    private final Thread sampler = new Thread(this::sample, "probe-sampler");

    void startSampling() {
        sampler.setDaemon(true);
        sampler.start();
    }

    /** @return the start's {@code System.nanoTime()}, to give to {@link #ended} */
    long started(int partition) {
        runningByPartition.incrementAndGet(partition);
        return System.nanoTime();
    }

    void ended(int partition, long startNanos) {
        long nanos = System.nanoTime() - startNanos;
        runningByPartition.decrementAndGet(partition);
        handlerNanos.add(nanos);
        ended.increment();
        maxHandlerNanos.accumulateAndGet(nanos, Math::max);
    }

    private void sample() {
        while (!stopped) {
            int running = 0;
            int partitions = 0;
            for (int p = 0; p < runningByPartition.length(); p++) {
                int n = runningByPartition.get(p);
                running += n;
                partitions += n > 0 ? 1 : 0;
            }
            if (running > 0) { // outside the window (joining, done) nothing runs
                synchronized (this) {
                    samples++;
                    runningSum += running;
                    partitionsSum += partitions;
                }
            }
            try {
                Thread.sleep(SAMPLE_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** @return {@code meanRunning=.. meanPartitionsRunning=.. meanHandlerUs=.. maxHandlerUs=..} for the result line */
    synchronized String result() {
        stopped = true;
        long n = ended.sum();
        return String.format("meanRunning=%.1f meanPartitionsRunning=%.2f meanHandlerUs=%.0f maxHandlerUs=%d",
                samples == 0 ? 0.0 : (double) runningSum / samples, samples == 0 ? 0.0 : (double) partitionsSum / samples,
                n == 0 ? 0.0 : handlerNanos.sum() / 1e3 / n, maxHandlerNanos.get() / 1000);
    }
}
