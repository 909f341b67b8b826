package io.kflux.share;

import io.kflux.AcknowledgeType;
import io.kflux.protocol.message.AcknowledgementBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One share partition's acknowledgements not sent yet, and their wire shape (KIP-932 {@code AcknowledgementBatches}).
 * Offsets acknowledged one after another form a batch; an offset that is neither acknowledged nor a gap ends it.
 * Inside such a run, a stretch of one type longer than a batch's own bytes becomes a batch with that one type;
 * shorter stretches share a batch with one type per offset (the broker requires one type for all offsets or exactly
 * one per offset). A gap (type 0) is an offset of an acquired range without a record (compacted away, a transaction
 * marker): the broker wants those acknowledged too.
 *
 * <p>Not thread-safe: the member's event loop owns it.
 */
public final class PartitionAcknowledgements {
    /**
     * What a batch of its own costs beyond its types: firstOffset and lastOffset (8 bytes each), the types' array
     * length and the batch's tagged fields (1 byte each). A stretch of one type longer than this is cheaper alone.
     */
    static final int BATCH_OVERHEAD_BYTES = 18;

    /**
     * The acknowledgements in the order taken: {@code offsets[i]} with {@code types[i]}. Offsets usually come in
     * ascending order (records are emitted in offset order), so an append costs O(1) and {@link #drain} needs no sort;
     * an offset below the last one (acknowledged out of order) is checked against the others and sorted at drain. A
     * {@code TreeMap} entry per acknowledgement was a visible share of the explicit-accept benchmark's CPU.
     */
    private long[] offsets = new long[16];
    private byte[] types = new byte[16];
    private int size;
    /** The highest of {@link #offsets}: an offset above it is new (the common case, no search). */
    private long highest = Long.MIN_VALUE;
    /** Whether {@link #offsets} is ascending (no out-of-order acknowledgement since the last drain). */
    private boolean ascending = true;
    /** How many of {@link #types} are RENEW: asked before every request, so counted rather than searched. */
    private int renews;

    /**
     * Records the acknowledgement of a record.
     *
     * @param offset the record's offset
     * @param type   how it is acknowledged
     * @throws IllegalStateException when {@code offset} already has an acknowledgement or is a gap not sent yet (a
     *                               RENEW not sent yet is replaced instead)
     */
    public void add(long offset, AcknowledgeType type) {
        put(offset, type.id());
    }

    /**
     * Records a gap: an offset of an acquired range without a record.
     *
     * @param offset the offset
     * @throws IllegalStateException when {@code offset} already has an acknowledgement not sent yet
     */
    public void addGap(long offset) {
        put(offset, AcknowledgementBatch.GAP);
    }

    private void put(long offset, byte type) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset " + offset + " is negative");
        }
        byte renew = AcknowledgeType.RENEW.id();
        if (size > 0 && offset <= highest) { // not above every other: it may be one of them
            int i = indexOf(offset);
            if (i >= 0) {
                byte before = types[i];
                if (before == renew && type != AcknowledgementBatch.GAP) {
                    // a renewal not sent yet: a final acknowledgement supersedes it, a second renewal is the same one
                    types[i] = type;
                    if (type != renew) {
                        renews--;
                    }
                    return;
                }
                throw new IllegalStateException("offset " + offset + " is already acknowledged (type " + before
                        + ") and not sent yet");
            }
            ascending = false;
        }
        if (size == offsets.length) {
            offsets = Arrays.copyOf(offsets, size * 2);
            types = Arrays.copyOf(types, size * 2);
        }
        offsets[size] = offset;
        types[size] = type;
        size++;
        highest = Math.max(highest, offset);
        if (type == renew) {
            renews++;
        }
    }

    /** Where {@code offset} is, or -1. */
    private int indexOf(long offset) {
        if (ascending) {
            int i = Arrays.binarySearch(offsets, 0, size, offset);
            return i >= 0 ? i : -1;
        }
        for (int i = 0; i < size; i++) {
            if (offsets[i] == offset) {
                return i;
            }
        }
        return -1;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Whether a RENEW is among them: the request must then say {@code IsRenewAck} (KIP-1222, v2+). */
    public boolean hasRenew() {
        return renews > 0;
    }

    /**
     * Takes every acknowledgement recorded so far, in its wire shape, and forgets them.
     *
     * @return the batches in offset order, empty when there is none
     */
    public List<AcknowledgementBatch> drain() {
        if (!ascending) {
            sort();
        }
        List<AcknowledgementBatch> out = new ArrayList<>();
        List<long[]> run = new ArrayList<>(); // stretches of one type: {first, last, type}
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < size; i++) {
            long offset = offsets[i];
            byte type = types[i];
            if (!run.isEmpty() && offset != previous + 1) {
                emitRun(run, out);
                run.clear();
            }
            long[] last = run.isEmpty() ? null : run.get(run.size() - 1);
            if (last != null && last[2] == type) {
                last[1] = offset;
            } else {
                run.add(new long[] {offset, offset, type});
            }
            previous = offset;
        }
        emitRun(run, out);
        size = 0;
        highest = Long.MIN_VALUE;
        ascending = true;
        renews = 0;
        if (offsets.length > 4096) { // a burst grew them: do not keep its memory for ever
            offsets = new long[16];
            types = new byte[16];
        }
        return out;
    }

    /** Sorts {@link #offsets} with their {@link #types} (offsets are distinct). */
    private void sort() {
        long[] keyed = new long[size];
        for (int i = 0; i < size; i++) {
            keyed[i] = offsets[i];
        }
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compare(keyed[x], keyed[y]));
        long[] o = new long[offsets.length];
        byte[] t = new byte[types.length];
        for (int i = 0; i < size; i++) {
            o[i] = offsets[order[i]];
            t[i] = types[order[i]];
        }
        offsets = o;
        types = t;
        ascending = true;
    }

    /** One run of consecutive offsets, given as its stretches of one type, into batches. */
    private static void emitRun(List<long[]> stretches, List<AcknowledgementBatch> out) {
        List<long[]> mixed = new ArrayList<>();
        for (long[] s : stretches) {
            long length = s[1] - s[0] + 1;
            if (length > BATCH_OVERHEAD_BYTES || stretches.size() == 1) {
                emitMixed(mixed, out);
                mixed.clear();
                out.add(new AcknowledgementBatch(s[0], s[1], List.of((byte) s[2])));
            } else {
                mixed.add(s);
            }
        }
        emitMixed(mixed, out);
    }

    /** Consecutive short stretches as one batch with a type per offset (a lone offset needs only its one type). */
    private static void emitMixed(List<long[]> stretches, List<AcknowledgementBatch> out) {
        if (stretches.isEmpty()) {
            return;
        }
        long first = stretches.get(0)[0];
        long last = stretches.get(stretches.size() - 1)[1];
        if (stretches.size() == 1) {
            out.add(new AcknowledgementBatch(first, last, List.of((byte) stretches.get(0)[2])));
            return;
        }
        List<Byte> perOffset = new ArrayList<>((int) (last - first + 1));
        for (long[] s : stretches) {
            for (long o = s[0]; o <= s[1]; o++) {
                perOffset.add((byte) s[2]);
            }
        }
        out.add(new AcknowledgementBatch(first, last, List.copyOf(perOffset)));
    }
}
