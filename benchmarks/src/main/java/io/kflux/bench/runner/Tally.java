package io.kflux.bench.runner;

import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Per-record bookkeeping and verification of one drain, the same for every client so that its cost is too: a
 * drain reads every partition from offset 0 to its end offset, {@code passes} times or, with a window, again and
 * again until the window has passed since the first record (the client seeks a partition back to 0 when
 * {@link #add} says so; a partition ends the pass it is in when the window is over), and every record must be the
 * partition's next offset (after a seek, records of the partition that were already on their way are counted as
 * {@code discarded} until offset 0 arrives), so that a duplicate,
 * a gap or a record past the end fails the drain at once instead of being hidden by a record count. Each pass of a
 * partition gets a checksum of its records' key and value bytes (CRC32C of each, folded in offset order); every
 * pass must give the same checksum, and the suite compares it across contenders.
 *
 * <p>A staggered drain starts with a lead-in: each partition is read from 0 to a point of its own (further for
 * higher partitions) and sought back to 0, not checksummed. Without it, every partition (filled round-robin)
 * would reach its end at the same moment in every pass, and a client's Fetch for partitions that are all at
 * their end waits {@code fetch.max.wait.ms} (500 ms) on the broker before the seek back takes effect: a stall
 * per pass that measures the benchmark, not the client.
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
    private final long windowNanos;
    private final boolean[] done;
    private final long[] leadInEnd;
    private final boolean[] seeking;
    long discarded;
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
     * @param partitions  partitions 0 to {@code partitions - 1}, each holding offsets 0 to {@code endOffset - 1}
     * @param passes      the most passes over each partition
     * @param windowNanos 0, or: a partition is read again only while less than this has passed since the first
     *                    record
     * @param staggered   whether to start with a lead-in (see above)
     * @param measured    whether to read the JVM counters at both ends of the window (warm-up drains do not)
     */
    public Tally(String client, int partitions, long endOffset, int passes, long windowNanos, boolean staggered,
                 boolean measured) {
        if (passes < 1 || endOffset < 1 || windowNanos < 0) {
            throw new IllegalArgumentException("passes and end offset must be positive, the window not negative");
        }
        this.client = client;
        this.endOffset = endOffset;
        this.passes = passes;
        this.windowNanos = windowNanos;
        this.measured = measured;
        done = new boolean[partitions];
        seeking = new boolean[partitions];
        leadInEnd = new long[partitions];
        for (int p = 0; p < partitions && staggered && endOffset > 1; p++) {
            leadInEnd[p] = Math.max(1, (p + 1) * endOffset / (partitions + 1));
        }
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

    /** Whether every partition has been read to its end as often as it is to be. */
    public boolean complete() {
        return partitionsDone == next.length;
    }

    /** The fewest passes read over a partition so far. */
    public int passes() {
        int fewest = Integer.MAX_VALUE;
        for (int n : passesDone) {
            fewest = Math.min(fewest, n);
        }
        return fewest;
    }

    /**
     * Counts one record and checks that it is the partition's next offset.
     *
     * @return whether the client must now seek this partition back to offset 0 (it ended a pass, more follow)
     * @throws IllegalStateException on a record other than the partition's next one, naming both offsets
     */
    public boolean add(int partition, long offset, byte[] key, byte[] value) {
        if (stale(partition, offset)) {
            return false;
        }
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
     * {@link #add(int, long, byte[], byte[])} for a drain that reads every header too ({@code -Dbench.readHeaders}):
     * {@code headersHash} (see {@code DrainRunner}) goes into the pass's checksum, so the headers are verified
     * across passes and contenders as keys and values are.
     */
    public boolean add(int partition, long offset, byte[] key, byte[] value, int headersHash) {
        if (stale(partition, offset)) {
            return false;
        }
        checksum[partition] = checksum[partition] * 31 + headersHash;
        return add(partition, offset, key, value);
    }

    /**
     * For the raw-fetch baseline, which sees whole batches and never single records: {@code count} records from
     * {@code offset} on, without a checksum.
     */
    public boolean addBatch(int partition, long offset, long count, long payloadBytes) {
        if (stale(partition, offset)) {
            return false;
        }
        return advance(partition, offset, count, payloadBytes);
    }

    /** Whether this is a record sent before the seek back to 0 took effect, to be dropped uncounted. */
    private boolean stale(int partition, long offset) {
        if (!seeking[partition]) {
            return false;
        }
        if (offset != 0) {
            discarded++;
            return true;
        }
        seeking[partition] = false;
        return false;
    }

    private boolean advance(int partition, long offset, long count, long payloadBytes) {
        long now = System.nanoTime();
        if (offset != next[partition] || done[partition]) {
            throw new IllegalStateException(client + ": partition " + partition + " gave offset " + offset
                    + " where " + (done[partition] ? "no record (all passes read)"
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
        if (leadInEnd[partition] > 0 && next[partition] >= leadInEnd[partition] && next[partition] < endOffset) {
            leadInEnd[partition] = 0;
            checksum[partition] = 0;
            next[partition] = 0;
            seeking[partition] = true;
            return true;
        }
        if (next[partition] < endOffset) {
            return false;
        }
        if (next[partition] > endOffset) {
            throw new IllegalStateException(client + ": partition " + partition + " read past its end offset "
                    + endOffset + " (to " + next[partition] + ")");
        }
        boolean again = endPass(partition, now);
        if (complete()) {
            endWindow(now);
        }
        return again;
    }

    /** Checks the pass's checksum; whether the partition is to be read again. */
    private boolean endPass(int partition, long now) {
        if (passesDone[partition] == 0) {
            firstPassChecksum[partition] = checksum[partition];
        } else if (checksum[partition] != firstPassChecksum[partition]) {
            throw new IllegalStateException(client + ": partition " + partition + " pass " + (passesDone[partition] + 1)
                    + " has checksum " + Long.toHexString(checksum[partition]) + ", pass 1 had "
                    + Long.toHexString(firstPassChecksum[partition]));
        }
        checksum[partition] = 0;
        next[partition] = 0;
        // a batch (raw) can carry a lead-in to the end: then it was a whole pass from 0, and the lead-in is over
        leadInEnd[partition] = 0;
        passesDone[partition]++;
        if (passesDone[partition] < passes && (windowNanos == 0 || now - startNanos < windowNanos)) {
            seeking[partition] = true;
            return true;
        }
        done[partition] = true;
        partitionsDone++;
        return false;
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
     * Fails unless every partition was read to its end as often as it was to be.
     *
     * @return the checksum of one pass over the topic (each partition's pass checksum folded in partition order)
     */
    long verify() {
        if (!complete()) {
            StringBuilder missing = new StringBuilder();
            for (int p = 0; p < next.length; p++) {
                if (!done[p]) {
                    missing.append(' ').append(p).append('@').append(next[p]).append(" pass ").append(passesDone[p] + 1);
                }
            }
            throw new IllegalStateException(client + " read " + records + " records and stopped; partitions not"
                    + " done:" + missing);
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
