package io.kflux.bench.runner;

import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Per-record bookkeeping and verification of one drain, the same for every client so that its cost is too: a
 * drain reads every partition {@code passes} times from offset 0 to its end offset (the client seeks a partition
 * back to 0 when {@link #add} says so), and every record must be the partition's next offset, so that a duplicate,
 * a gap or a record past the end fails the drain at once instead of being hidden by a record count. Each pass of a
 * partition gets a checksum of its records' key and value bytes (CRC32C of each, folded in offset order); every
 * pass must give the same checksum, and the suite compares it across contenders.
 *
 * <p>The measured window runs from the first record to the last one: the wait for the first record (connection,
 * metadata, group join) is set-up, reported apart. Process CPU, CPU by thread group and heap allocation are read
 * at both ends of the window. Not thread-safe: each client calls it from one thread at a time (reactive clients
 * serially, as Reactive Streams require).
 */
public final class Tally {

    /** A gap between records at least this long counts as a stall, taken out of the steady-state rate. */
    public static final long STALL_NANOS = 100_000_000L;

    private final String client;
    private final long endOffset;
    private final int passes;
    private final long[] next;
    private final int[] passesDone;
    private final long[] checksum;
    private final long[] firstPassChecksum;
    private final CRC32C crc = new CRC32C();
    private final boolean measured;
    private int partitionsDone;
    long records;
    long bytes;
    long createdNanos;
    long startNanos;
    long endNanos;
    long last;
    long maxGap;
    long maxGapAt;
    long stallNanos;
    int stalls;
    long allocated;
    long cpuNanos;
    Map<String, Long> cpuByGroup = Map.of();
    private Map<Long, Long> allocatedBefore;
    private long cpuBefore;
    private Map<String, Long> groupsBefore;

    /**
     * @param partitions partitions 0 to {@code partitions - 1}, each holding offsets 0 to {@code endOffset - 1}
     * @param measured   whether to read the JVM counters at both ends of the window (warm-up drains do not)
     */
    public Tally(String client, int partitions, long endOffset, int passes, boolean measured) {
        if (passes < 1 || endOffset < 1) {
            throw new IllegalArgumentException("passes and end offset must be positive");
        }
        this.client = client;
        this.endOffset = endOffset;
        this.passes = passes;
        this.measured = measured;
        next = new long[partitions];
        passesDone = new int[partitions];
        checksum = new long[partitions];
        firstPassChecksum = new long[partitions];
    }

    /** Marks the creation of the consumer: the set-up time runs from here to the first record. */
    void created() {
        createdNanos = System.nanoTime();
    }

    public long records() {
        return records;
    }

    /** Whether every partition has been read {@code passes} times. */
    public boolean complete() {
        return partitionsDone == next.length;
    }

    /** The records the whole drain reads. */
    public long expected() {
        return endOffset * next.length * passes;
    }

    /**
     * Counts one record and checks that it is the partition's next offset.
     *
     * @return whether the client must now seek this partition back to offset 0 (it ended a pass, more follow)
     * @throws IllegalStateException on a record other than the partition's next one, naming both offsets
     */
    public boolean add(int partition, long offset, byte[] key, byte[] value) {
        long keyCrc = -1;
        if (key != null) {
            crc.reset();
            crc.update(key);
            keyCrc = crc.getValue();
        }
        long valueCrc = -1;
        if (value != null) {
            crc.reset();
            crc.update(value);
            valueCrc = crc.getValue();
        }
        checksum[partition] = checksum[partition] * 31 + (keyCrc << 32 ^ valueCrc);
        long size = (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        return advance(partition, offset, 1, size);
    }

    /**
     * For the raw-fetch baseline, which sees whole batches and never single records: {@code count} records from
     * {@code offset} on, without a checksum.
     */
    public boolean addBatch(int partition, long offset, long count, long payloadBytes) {
        return advance(partition, offset, count, payloadBytes);
    }

    private boolean advance(int partition, long offset, long count, long payloadBytes) {
        long now = System.nanoTime();
        if (offset != next[partition] || passesDone[partition] == passes) {
            throw new IllegalStateException(client + ": partition " + partition + " gave offset " + offset
                    + " where " + (passesDone[partition] == passes ? "no record (all passes read)"
                    : "offset " + next[partition]) + " was due, pass " + (passesDone[partition] + 1));
        }
        if (records == 0) {
            startWindow(now);
        } else {
            long gap = now - last;
            if (gap > maxGap) {
                maxGap = gap;
                maxGapAt = records;
            }
            if (gap >= STALL_NANOS) {
                stalls++;
                stallNanos += gap;
            }
        }
        last = now;
        records += count;
        bytes += payloadBytes;
        next[partition] = offset + count;
        if (next[partition] < endOffset) {
            return false;
        }
        if (next[partition] > endOffset) {
            throw new IllegalStateException(client + ": partition " + partition + " read past its end offset "
                    + endOffset + " (to " + next[partition] + ")");
        }
        endPass(partition);
        if (complete()) {
            endWindow(now);
            return false;
        }
        return passesDone[partition] < passes;
    }

    private void endPass(int partition) {
        if (passesDone[partition] == 0) {
            firstPassChecksum[partition] = checksum[partition];
        } else if (checksum[partition] != firstPassChecksum[partition]) {
            throw new IllegalStateException(client + ": partition " + partition + " pass " + (passesDone[partition] + 1)
                    + " has checksum " + Long.toHexString(checksum[partition]) + ", pass 1 had "
                    + Long.toHexString(firstPassChecksum[partition]));
        }
        checksum[partition] = 0;
        next[partition] = 0;
        passesDone[partition]++;
        if (passesDone[partition] == passes) {
            partitionsDone++;
        }
    }

    private void startWindow(long now) {
        startNanos = now;
        if (measured) {
            allocatedBefore = JvmCounters.allocatedByThread();
            groupsBefore = JvmCounters.cpuByThreadGroup();
            cpuBefore = JvmCounters.processCpuNanos();
        }
    }

    private void endWindow(long now) {
        endNanos = now;
        // Taken here, not after the drain returns: closing a client ends threads of its own
        // (reactor-kafka's receive thread), and an ended thread's counters can no longer be read.
        if (measured) {
            cpuNanos = JvmCounters.processCpuNanos() - cpuBefore;
            cpuByGroup = JvmCounters.since(groupsBefore, JvmCounters.cpuByThreadGroup());
            allocated = JvmCounters.allocatedSince(allocatedBefore);
        }
    }

    /**
     * Fails unless every partition was read {@code passes} times to its end.
     *
     * @return the checksum of one pass over the topic (each partition's pass checksum folded in partition order)
     */
    long verify() {
        if (!complete()) {
            StringBuilder missing = new StringBuilder();
            for (int p = 0; p < next.length; p++) {
                if (passesDone[p] < passes) {
                    missing.append(' ').append(p).append('@').append(next[p]).append(" pass ").append(passesDone[p] + 1);
                }
            }
            throw new IllegalStateException(client + " read " + records + " of " + expected() + " records; behind:"
                    + missing);
        }
        long topic = 0;
        for (long c : firstPassChecksum) {
            topic = topic * 1_000_003 + c;
        }
        return topic;
    }

    /** Window length in ns. */
    long windowNanos() {
        return endNanos - startNanos;
    }
}
