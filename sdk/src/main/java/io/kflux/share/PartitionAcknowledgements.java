package io.kflux.share;

import io.kflux.AcknowledgeType;
import io.kflux.protocol.message.AcknowledgementBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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

    private final TreeMap<Long, Byte> types = new TreeMap<>();
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
        Byte before = types.putIfAbsent(offset, type);
        if (before != null && before == renew && type != AcknowledgementBatch.GAP) {
            // a renewal not sent yet: a final acknowledgement supersedes it, a second renewal is the same one
            types.put(offset, type);
            if (type != renew) {
                renews--;
            }
            return;
        }
        if (before == null && type == renew) {
            renews++;
        }
        if (before != null) {
            throw new IllegalStateException("offset " + offset + " is already acknowledged (type " + before
                    + ") and not sent yet");
        }
    }

    public boolean isEmpty() {
        return types.isEmpty();
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
        List<AcknowledgementBatch> out = new ArrayList<>();
        List<long[]> run = new ArrayList<>(); // stretches of one type: {first, last, type}
        long previous = Long.MIN_VALUE;
        for (Map.Entry<Long, Byte> e : types.entrySet()) {
            long offset = e.getKey();
            byte type = e.getValue();
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
        types.clear();
        renews = 0;
        return out;
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
