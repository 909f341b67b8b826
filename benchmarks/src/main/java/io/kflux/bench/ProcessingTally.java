package io.kflux.bench;

import io.kflux.bench.runner.JvmCounters;
import io.kflux.bench.runner.ThreadCensus;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * What one {@link ProcessingRunner} JVM processed: each record whose 5 ms handler completed, checked against the
 * key's previous one (offsets of a key must complete in increasing order: {@code KEY} ordering), counted as new or as
 * processed again, and written as {@code partition offset} to the log when there is one. The log is written
 * unbuffered, one {@code write} per record, so what a SIGKILL interrupts is in it up to the last completed record.
 *
 * <p>The window runs from the first handler completion to the one that completed the topic (every record of it
 * processed at least once, counting a seed log of an earlier JVM of the same contender); its process CPU likewise.
 */
final class ProcessingTally {

    final long expected;
    private final Map<Integer, long[]> seen = new HashMap<>();
    private final long[] lastOffsetOfKey;
    private final FileOutputStream log;
    private final CountDownLatch complete = new CountDownLatch(1);
    private long distinct;
    private long processed;
    private long again;
    private String orderViolation;
    volatile long firstNanos;
    volatile long cpuAtFirst;
    volatile long lastNanos;
    volatile long cpuAtLast;
    volatile int threadsAtLast;
    /** The live threads by name at the last record ({@link ThreadCensus#byName()}). */
    volatile Map<String, Long> threadCensusAtLast = Map.of();
    /** {@link JvmCounters#cpuByThreadGroup()} at the first and the last record: JIT and GC in the window. */
    volatile Map<String, Long> cpuGroupsAtFirst = Map.of();
    volatile Map<String, Long> cpuGroupsAtLast = Map.of();
    /** Called (on a thread of its own) when a quarter and three quarters of the records were processed, or null. */
    private final java.util.function.IntConsumer quarters;

    /**
     * @param log  where to log each processed record, or null
     * @param seed an earlier JVM's log: its records count as processed (not as this JVM's), or null
     */
    ProcessingTally(long expected, int keys, Path log, Path seed) throws IOException {
        this(expected, keys, log, seed, null);
    }

    /** @param quarters told 1 and 3 when a quarter and three quarters of the topic are processed (a warm window) */
    ProcessingTally(long expected, int keys, Path log, Path seed, java.util.function.IntConsumer quarters)
            throws IOException {
        this.expected = expected;
        this.quarters = quarters;
        this.lastOffsetOfKey = new long[keys];
        Arrays.fill(lastOffsetOfKey, -1);
        this.log = log == null ? null : new FileOutputStream(log.toFile(), true);
        if (seed != null) {
            for (long[] po : read(seed)) {
                mark((int) po[0], po[1]);
            }
        }
    }

    /** A record's handler completed; {@code key} is the record's key number (its key is {@code key-<n>}). */
    void processed(int key, int partition, long offset) {
        boolean last;
        synchronized (this) {
            if (offset <= lastOffsetOfKey[key] && orderViolation == null) {
                orderViolation = "key-" + key + ": offset " + offset + " of partition " + partition
                        + " completed after offset " + lastOffsetOfKey[key];
            }
            lastOffsetOfKey[key] = offset;
            processed++;
            if (processed == 1) {
                firstNanos = System.nanoTime();
                cpuAtFirst = JvmCounters.processCpuNanos();
                cpuGroupsAtFirst = JvmCounters.cpuByThreadGroup();
            }
            if (!mark(partition, offset)) {
                again++;
            }
            if (log != null) {
                try {
                    log.write((partition + " " + offset + "\n").getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            last = distinct == expected && complete.getCount() > 0;
            if (processed % 1000 == 0) {
                System.out.println(ForkedJvm.PROGRESS_PREFIX + distinct);
            }
            if (quarters != null && (processed == expected / 4 || processed == expected * 3 / 4)) {
                int quarter = (int) (processed * 4 / expected);
                new Thread(() -> quarters.accept(quarter), "tally-quarter").start();
            }
        }
        if (last) {
            lastNanos = System.nanoTime();
            cpuAtLast = JvmCounters.processCpuNanos();
            cpuGroupsAtLast = JvmCounters.cpuByThreadGroup();
            threadsAtLast = ManagementFactory.getThreadMXBean().getThreadCount();
            threadCensusAtLast = ThreadCensus.byName();
            complete.countDown();
        }
    }

    /** @return whether the record is new */
    private boolean mark(int partition, long offset) {
        long[] bits = seen.computeIfAbsent(partition, p -> new long[(int) (expected / 64 + 1)]);
        int word = (int) (offset >>> 6);
        if (word >= bits.length) {
            throw new IllegalStateException("partition " + partition + " offset " + offset + ": past the topic's "
                    + expected + " records");
        }
        long bit = 1L << (offset & 63);
        if ((bits[word] & bit) != 0) {
            return false;
        }
        bits[word] |= bit;
        distinct++;
        return true;
    }

    boolean await(long millis) throws InterruptedException {
        return complete.await(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    boolean isComplete() {
        return complete.getCount() == 0;
    }

    synchronized long processedCount() {
        return processed;
    }

    synchronized long processedAgain() {
        return again;
    }

    /** @throws IllegalStateException when a key's records completed out of offset order, or the topic is not done */
    synchronized void verify() {
        if (orderViolation != null) {
            throw new IllegalStateException("KEY order violated: " + orderViolation);
        }
        if (distinct != expected) {
            throw new IllegalStateException(distinct + " of " + expected + " records processed");
        }
    }

    /** A log's records, {@code {partition, offset}} in the order they were processed. */
    static List<long[]> read(Path log) throws IOException {
        return Files.readAllLines(log, StandardCharsets.US_ASCII).stream().filter(l -> !l.isBlank()).map(l -> {
            String[] f = l.split(" ");
            return new long[] {Integer.parseInt(f[0]), Long.parseLong(f[1])};
        }).toList();
    }
}
