package io.kflux.commit;

import java.io.ByteArrayOutputStream;
import java.util.Base64;

/**
 * The completed offsets above a committed offset, as the commit's metadata string (what {@code process()} writes so
 * the partition's next owner does not process them again; issue #27).
 *
 * <p>Format, version 1: {@value #PREFIX} then unpadded URL-safe base64 of one form byte and a body, whichever form is
 * smaller:
 * <ul>
 *   <li>{@code 0}, runs: a varint count, then per run of completed offsets a varint gap (from the end of the previous
 *       run, the first from the committed offset) and a varint length (at least 1);</li>
 *   <li>{@code 1}, bitmap: a varint bit count, then bits, least significant first, bit {@code i} for the offset
 *       {@code committed + i}.</li>
 * </ul>
 * Offsets are relative to the committed offset of the same commit, so the metadata means nothing beside another
 * offset. Unsigned LEB128 varints, as Kafka's record format uses. Metadata without the prefix is someone else's
 * (the application's, or another client's) and decodes to nothing; so does a malformed string.
 *
 * <p>The broker refuses metadata longer than {@code offset.metadata.max.bytes} (4,096 by default) with
 * OFFSET_METADATA_TOO_LARGE; {@link #encode} keeps as much as fits in {@link #MAX_CHARS} instead (the lowest completed
 * offsets), and a broker set below that default gets the commit again without the progress ({@code OffsetCommitter}).
 */
public final class ProgressMetadata {
    /** Marks kflux progress, version 1. */
    public static final String PREFIX = "kflux.p1:";
    /** The broker's default {@code offset.metadata.max.bytes}; the encoding is ASCII, one byte per char. */
    public static final int MAX_CHARS = 4096;
    private static final int RUNS = 0;
    private static final int BITMAP = 1;
    private static final int MAX_BODY_BYTES = (MAX_CHARS - PREFIX.length()) * 3 / 4;

    private ProgressMetadata() {
    }

    /**
     * The most runs worth collecting: each takes at least two bytes in the runs form, and the bitmap form of more
     * runs than this spans more bits than fit either. More runs than this are cut to the lowest ones.
     */
    public static int maxRuns() {
        return MAX_BODY_BYTES / 2 + 1;
    }

    /**
     * The metadata and how much of the progress it holds.
     *
     * @param metadata what to commit
     * @param complete whether it holds every run it was given (false: the highest runs, or the tail of one, were cut
     *                 to fit in {@link #MAX_CHARS}; the partition's next owner processes those records again)
     */
    public record Encoded(String metadata, boolean complete) {
    }

    /**
     * Encodes as much of the progress as fits in {@link #MAX_CHARS}: all of it when it fits; else the form that keeps
     * more completed offsets of the two cut to fit, the lowest runs (the runs form) or the offsets below a bound (the
     * bitmap form). Any subset of the completed offsets is right to commit (the next owner only processes more again),
     * and the lowest ones matter first: the committed offset reaches them first.
     *
     * @param runs completed offsets relative to the committed offset, as {@code [start, end)} pairs in increasing
     *             order, not touching, every start at least 1 (the committed offset itself is not completed)
     * @return the metadata ({@code ""} for no runs), at most {@link #MAX_CHARS} long
     * @throws IllegalArgumentException for runs not as described
     */
    public static Encoded encode(long[] runs) {
        if (runs.length % 2 != 0) {
            throw new IllegalArgumentException("runs come in [start, end) pairs, got " + runs.length + " numbers");
        }
        if (runs.length == 0) {
            return new Encoded("", true);
        }
        ByteArrayOutputStream runBytes = new ByteArrayOutputStream();
        int keptRuns = 0;
        long keptByRuns = 0;
        long previousEnd = 0;
        for (int i = 0; i < runs.length; i += 2) {
            long start = runs[i];
            long end = runs[i + 1];
            if (start <= previousEnd && (i > 0 || start < 1) || end <= start) {
                throw new IllegalArgumentException("run " + i / 2 + " [" + start + ", " + end + ") is empty, overlaps,"
                        + " touches the previous one or starts at the committed offset");
            }
            int size = varintSize(start - previousEnd) + varintSize(end - start);
            if (keptRuns == i / 2 && 1 + varintSize(keptRuns + 1) + runBytes.size() + size <= MAX_BODY_BYTES) {
                varint(runBytes, start - previousEnd);
                varint(runBytes, end - start);
                keptRuns++;
                keptByRuns += end - start;
            } // else full: the later runs are still checked, not written
            previousEnd = end;
        }
        long runsSize = 1 + varintSize(keptRuns) + runBytes.size();
        long bits = Math.min(runs[runs.length - 1], bitmapCapacity());
        long keptByBitmap = 0;
        for (int i = 0; i < runs.length && runs[i] < bits; i += 2) {
            keptByBitmap += Math.min(runs[i + 1], bits) - runs[i];
        }
        long bitmapSize = 1 + varintSize(bits) + (bits + 7) / 8;
        boolean complete;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (keptByBitmap > keptByRuns || keptByBitmap == keptByRuns && bitmapSize < runsSize) {
            body.write(BITMAP);
            varint(body, bits);
            byte[] map = new byte[(int) ((bits + 7) / 8)];
            for (int i = 0; i < runs.length && runs[i] < bits; i += 2) {
                for (long o = runs[i]; o < Math.min(runs[i + 1], bits); o++) {
                    map[(int) (o >>> 3)] |= (byte) (1 << (o & 7));
                }
            }
            body.write(map, 0, map.length);
            complete = bits == runs[runs.length - 1];
        } else {
            body.write(RUNS);
            varint(body, keptRuns);
            body.writeBytes(runBytes.toByteArray());
            complete = keptRuns == runs.length / 2;
        }
        return new Encoded(text(body.toByteArray()), complete);
    }

    /** The most bits a bitmap body within {@link #MAX_BODY_BYTES} holds. */
    private static long bitmapCapacity() {
        long bits = (MAX_BODY_BYTES - 1L - 2L) * 8; // less the form byte and a count of 2 bytes, then down to fit
        while (1 + varintSize(bits) + (bits + 7) / 8 > MAX_BODY_BYTES) {
            bits -= 8;
        }
        return bits;
    }

    private static int varintSize(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private static String text(byte[] body) {
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(body);
    }

    /**
     * @return the runs (as {@link #encode} takes them) the metadata holds; empty for metadata that is not kflux
     *         progress of version 1
     * @throws IllegalArgumentException for metadata with the prefix that does not decode
     */
    public static long[] decode(String metadata) {
        if (metadata == null || !metadata.startsWith(PREFIX)) {
            return new long[0];
        }
        byte[] body = Base64.getUrlDecoder().decode(metadata.substring(PREFIX.length()));
        int[] at = {1};
        if (body.length == 0) {
            throw new IllegalArgumentException("kflux progress metadata without a body");
        }
        long[] runs;
        if (body[0] == RUNS) {
            long count = varint(body, at);
            if (count > body.length) {
                throw new IllegalArgumentException("kflux progress metadata: " + count + " runs in " + body.length
                        + " bytes");
            }
            runs = new long[(int) count * 2];
            long end = 0;
            for (int i = 0; i < runs.length; i += 2) {
                long gap = varint(body, at);
                long length = varint(body, at);
                if (gap < 1 && i > 0 || length < 1) {
                    throw new IllegalArgumentException("kflux progress metadata: run " + i / 2 + " is malformed");
                }
                runs[i] = Math.addExact(end, gap);
                runs[i + 1] = end = Math.addExact(runs[i], length);
            }
        } else if (body[0] == BITMAP) {
            long bits = varint(body, at);
            if ((bits + 7) / 8 != body.length - at[0]) {
                throw new IllegalArgumentException("kflux progress metadata: " + bits + " bits in "
                        + (body.length - at[0]) + " bytes");
            }
            long[] found = new long[16];
            int n = 0;
            boolean inRun = false;
            for (long o = 0; o <= bits; o++) {
                boolean set = o < bits && (body[at[0] + (int) (o >>> 3)] & (1 << (o & 7))) != 0;
                if (set != inRun) {
                    if (n == found.length) {
                        found = java.util.Arrays.copyOf(found, n * 2);
                    }
                    found[n++] = o;
                    inRun = set;
                }
            }
            runs = java.util.Arrays.copyOf(found, n);
            at[0] = body.length;
        } else {
            throw new IllegalArgumentException("kflux progress metadata of unknown form " + body[0]);
        }
        if (at[0] != body.length) {
            throw new IllegalArgumentException("kflux progress metadata: " + (body.length - at[0])
                    + " bytes after the runs");
        }
        if (runs.length > 0 && runs[0] < 1) {
            throw new IllegalArgumentException("kflux progress metadata: a run starts at the committed offset");
        }
        return runs;
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private static long varint(byte[] in, int[] at) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (at[0] >= in.length) {
                throw new IllegalArgumentException("kflux progress metadata ends inside a number");
            }
            byte b = in[at[0]++];
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return v;
            }
        }
        throw new IllegalArgumentException("kflux progress metadata: a number longer than 64 bits");
    }
}
