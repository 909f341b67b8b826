package io.kflux.protocol.record;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.Cleaner;
import java.util.zip.GZIPInputStream;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;
import org.xerial.snappy.Snappy;

/**
 * Copies or decompresses the records section of a batch into one reusable heap array.
 *
 * <p>Why pooled rather than one array per batch: on a busy fetch path every batch would otherwise
 * allocate an array as large as its (decompressed) records, which quickly lands in the old
 * generation for large batches; the consumer layer copies keys and values anyway, so one array
 * that grows to the largest batch seen is enough. Arrays above {@link #MAX_RETAINED} are dropped
 * on {@link #trim()} so one huge batch does not pin memory forever.
 */
final class Decompressor {
    /** Largest array kept between fetch responses. */
    static final int MAX_RETAINED = 8 * 1024 * 1024;
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;
    private static final int MIN_SIZE = 4096;

    /** Header of the xerial snappy-java stream format: magic, version 1, compatible version 1. */
    private static final byte[] XERIAL_MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    private static final int XERIAL_HEADER_SIZE = 16;
    /**
     * No snappy element expands more than 64 output bytes per 3 input bytes, so a chunk claiming
     * more than 32x its size is corrupt; checked before allocating.
     */
    private static final int SNAPPY_MAX_RATIO = 32;

    private static final int LZ4_FRAME_MAGIC = 0x184D2204;
    private static final LZ4SafeDecompressor LZ4 = LZ4Factory.fastestInstance().safeDecompressor();
    private static final XXHash32 XXHASH = XXHashFactory.fastestInstance().hash32();
    /**
     * Frees zstd contexts (native memory); readers have no close, they are dropped with their emitter. A
     * {@code Cleaner} runs a thread of its own, so it is created at the first zstd batch in the JVM (a holder class):
     * a consumer of other codecs starts no such thread (issue #27's thread census found one in every JVM).
     */
    private static final class ZstdCleaner {
        static final Cleaner CLEANER = Cleaner.create();
    }

    private byte[] buffer = new byte[0];
    private byte[] input = new byte[0];
    /** Created at the first zstd batch, freed by {@link ZstdCleaner} once this decompressor is unreachable. */
    private ZstdDecompressCtx zstd;

    /** @return the array the last {@link #decode} wrote into */
    byte[] buffer() {
        return buffer;
    }

    void trim() {
        if (buffer.length > MAX_RETAINED) {
            buffer = new byte[0];
        }
        if (input.length > MAX_RETAINED) {
            input = new byte[0];
        }
    }

    /**
     * @return number of bytes written to {@link #buffer()} from index 0
     * @throws CorruptRecordBatchException when the codec rejects the data
     */
    int decode(Compression compression, ByteBuf src, int index, int length, long baseOffset) {
        try {
            return switch (compression) {
                case NONE -> {
                    ensureCapacity(length, 0);
                    src.getBytes(index, buffer, 0, length);
                    yield length;
                }
                case SNAPPY -> src.hasArray() ? snappy(src.array(), src.arrayOffset() + index, length, baseOffset)
                        : snappy(copyInput(src, index, length), 0, length, baseOffset);
                case LZ4 -> src.hasArray() ? lz4(src.array(), src.arrayOffset() + index, length, baseOffset)
                        : lz4(copyInput(src, index, length), 0, length, baseOffset);
                case ZSTD -> src.hasArray() ? zstd(src.array(), src.arrayOffset() + index, length, baseOffset)
                        : zstd(copyInput(src, index, length), 0, length, baseOffset);
                case GZIP -> gzip(src, index, length, baseOffset);
            };
        } catch (IOException | RuntimeException e) {
            if (e instanceof CorruptRecordBatchException c) {
                throw c;
            }
            throw corrupt(baseOffset, "cannot decompress " + length + " bytes of " + compression + " data: " + e, e);
        }
    }

    /** Block codecs work on heap arrays: direct network buffers are copied once into a pooled one. */
    private byte[] copyInput(ByteBuf src, int index, int length) {
        if (input.length < length) {
            input = new byte[(int) Math.min(MAX_ARRAY, Math.max(length, 2L * input.length))];
        }
        src.getBytes(index, input, 0, length);
        return input;
    }

    /** gzip goes through the JDK's stream. */
    private int gzip(ByteBuf src, int index, int length, long baseOffset) throws IOException {
        Compression compression = Compression.GZIP;
        InputStream raw = new ByteBufInputStream(src.slice(index, length));
        try (InputStream in = new GZIPInputStream(raw, 8192)) {
            // compressed batches usually shrink 2-5x; start there and double
            ensureCapacity((int) Math.min(MAX_ARRAY, Math.max(MIN_SIZE, 4L * length)), 0);
            int size = 0;
            while (true) {
                if (size == buffer.length) {
                    if (size == MAX_ARRAY) {
                        throw corrupt(baseOffset, compression + " data decompresses to more than " + MAX_ARRAY
                                + " bytes");
                    }
                    ensureCapacity(size + 1, size);
                }
                int n = in.read(buffer, size, buffer.length - size);
                if (n < 0) {
                    return size;
                }
                size += n;
            }
        }
    }

    /**
     * One-shot decompression into the pooled buffer with one context per reader. Preferred to
     * ZstdInputStream, which set up a native stream context and copied the input through its own
     * buffers for every batch. Kafka producers write zstd through a stream, so frames do not
     * declare their content size: when the buffer is too small, {@link #zstdSize} measures what
     * the frame really decompresses to and the batch is decompressed again into a buffer that
     * size, which happens only until the buffer fits the largest batch seen.
     */
    private int zstd(byte[] in, int offset, int length, long baseOffset) {
        ZstdDecompressCtx ctx = zstd;
        if (ctx == null) {
            ZstdDecompressCtx created = new ZstdDecompressCtx();
            ZstdCleaner.CLEANER.register(this, created::close);
            zstd = ctx = created;
        }
        // compressed batches usually shrink 2-5x; start there
        ensureCapacity((int) Math.min(MAX_ARRAY, Math.max(MIN_SIZE, 4L * length)), 0);
        try {
            return ctx.decompressByteArray(buffer, 0, buffer.length, in, offset, length);
        } catch (ZstdException e) {
            if (e.getErrorCode() != Zstd.errDstSizeTooSmall()) {
                throw zstdCorrupt(length, baseOffset, e);
            }
        }
        long size = zstdSize(in, offset, length, baseOffset);
        if (size > MAX_ARRAY) {
            throw corrupt(baseOffset, "ZSTD data decompresses to more than " + MAX_ARRAY + " bytes");
        }
        ensureCapacity((int) size, 0);
        try {
            return ctx.decompressByteArray(buffer, 0, buffer.length, in, offset, length);
        } catch (ZstdException e) {
            throw zstdCorrupt(length, baseOffset, e);
        }
    }

    /**
     * What a zstd input really decompresses to, measured by streaming it through a small window
     * and discarding the output. Why not grow the buffer until the one-shot call fits: a corrupt
     * frame reports "destination too small" for every block header that claims more than the
     * buffer holds, long before it reports the corruption further on, so a few hundred corrupt
     * bytes made the buffer double to 64 MiB (a fuzzing finding). This way the whole input is
     * validated before anything is allocated for it, and one pass replaces the repeated ones.
     */
    private static long zstdSize(byte[] in, int offset, int length, long baseOffset) {
        byte[] sink = new byte[64 * 1024];
        long size = 0;
        try (InputStream stream = new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(in, offset, length))) {
            for (int n; (n = stream.read(sink, 0, sink.length)) >= 0; ) {
                size += n;
                if (size > MAX_ARRAY) {
                    return size;
                }
            }
        } catch (IOException | RuntimeException e) {
            throw corrupt(baseOffset, "cannot decompress " + length + " bytes of ZSTD data: " + e.getMessage(), e);
        }
        return size;
    }

    private static CorruptRecordBatchException zstdCorrupt(int length, long baseOffset, ZstdException e) {
        return corrupt(baseOffset, "cannot decompress " + length + " bytes of ZSTD data: " + e.getMessage(), e);
    }

    /**
     * Reads the xerial snappy-java stream Kafka producers write (header, then chunks of int32
     * big-endian length + raw snappy block), or a bare raw snappy block as some non-Java producers
     * write. Parsed here rather than through SnappyInputStream because that stream throws
     * SnappyError (an Error) and allocates whatever chunk size a corrupt length claims; this way
     * every length is checked against the input first and blocks decompress straight into the
     * pooled buffer.
     */
    private int snappy(byte[] in, int base, int length, long baseOffset) throws IOException {
        int end = base + length;
        if (!isXerialHeader(in, base, end)) {
            return snappyBlock(in, base, length, 0, baseOffset);
        }
        int size = 0;
        int pos = base + XERIAL_HEADER_SIZE;
        while (pos < end) {
            if (isXerialHeader(in, pos, end)) {
                // concatenated streams, which snappy-java also accepts
                pos += XERIAL_HEADER_SIZE;
                continue;
            }
            if (end - pos < 4) {
                throw corrupt(baseOffset, "snappy chunk header truncated: " + (end - pos) + " bytes left");
            }
            int chunk = ((in[pos] & 0xFF) << 24) | ((in[pos + 1] & 0xFF) << 16)
                    | ((in[pos + 2] & 0xFF) << 8) | (in[pos + 3] & 0xFF);
            pos += 4;
            if (chunk < 0 || chunk > end - pos) {
                throw corrupt(baseOffset, "snappy chunk length " + chunk + " but " + (end - pos) + " bytes left");
            }
            size += snappyBlock(in, pos, chunk, size, baseOffset);
            pos += chunk;
        }
        return size;
    }

    private int snappyBlock(byte[] in, int offset, int length, int size, long baseOffset) throws IOException {
        if (length == 0) {
            return 0;
        }
        int uncompressed = Snappy.uncompressedLength(in, offset, length);
        if (uncompressed < 0 || (long) uncompressed > (long) SNAPPY_MAX_RATIO * length + 64
                || (long) size + uncompressed > MAX_ARRAY) {
            throw corrupt(baseOffset, "snappy block of " + length + " bytes claims " + uncompressed
                    + " uncompressed bytes");
        }
        ensureCapacity(size + uncompressed, size);
        int n = Snappy.uncompress(in, offset, length, buffer, size);
        if (n != uncompressed) {
            throw corrupt(baseOffset, "snappy block decompressed to " + n + " bytes, header said " + uncompressed);
        }
        return n;
    }

    /**
     * Reads LZ4 frames (the standard frame format, which Kafka writes for v2 batches) and
     * decompresses each block with lz4-java straight into the pooled buffer. Parsed here rather
     * than through LZ4FrameInputStream because that stream allocates two max-block-size buffers
     * (128 KiB for Kafka's 64 KiB blocks) per batch and adds a copy. The header checksum is
     * verified; block and content checksums are skipped, the batch CRC32C already covers them.
     */
    private int lz4(byte[] in, int base, int length, long baseOffset) {
        int end = base + length;
        int pos = base;
        int size = 0;
        do {
            if (end - pos < 7 || readIntLE(in, pos) != LZ4_FRAME_MAGIC) {
                throw corrupt(baseOffset, "missing LZ4 frame magic at byte " + (pos - base));
            }
            int descriptor = pos + 4;
            int flg = in[descriptor] & 0xFF;
            int bd = in[descriptor + 1] & 0xFF;
            if ((flg >>> 6) != 1 || (flg & 0x02) != 0 || (bd & 0x8F) != 0 || ((bd >>> 4) & 0x7) < 4) {
                throw corrupt(baseOffset, "unsupported LZ4 frame descriptor FLG=0x" + Integer.toHexString(flg)
                        + " BD=0x" + Integer.toHexString(bd));
            }
            boolean blockChecksum = (flg & 0x10) != 0;
            boolean contentSize = (flg & 0x08) != 0;
            boolean contentChecksum = (flg & 0x04) != 0;
            if ((flg & 0x01) != 0) {
                throw corrupt(baseOffset, "LZ4 frame needs a dictionary");
            }
            if ((flg & 0x20) == 0) {
                // Kafka's own reader rejects these too; every block must decode on its own here
                throw corrupt(baseOffset, "LZ4 frame with dependent blocks is not supported");
            }
            int maxBlock = 1 << (8 + 2 * ((bd >>> 4) & 0x7));
            pos = descriptor + 2 + (contentSize ? 8 : 0);
            if (end - pos < 1) {
                throw corrupt(baseOffset, "LZ4 frame header truncated");
            }
            int expected = (XXHASH.hash(in, descriptor, pos - descriptor, 0) >> 8) & 0xFF;
            if ((in[pos] & 0xFF) != expected) {
                throw corrupt(baseOffset, "LZ4 frame header checksum 0x" + Integer.toHexString(in[pos] & 0xFF)
                        + " but computed 0x" + Integer.toHexString(expected));
            }
            pos++;
            while (true) {
                if (end - pos < 4) {
                    throw corrupt(baseOffset, "LZ4 frame truncated before its end mark");
                }
                int blockHeader = readIntLE(in, pos);
                pos += 4;
                if (blockHeader == 0) {
                    break;
                }
                boolean stored = blockHeader < 0;
                int blockSize = blockHeader & 0x7FFFFFFF;
                if (blockSize > maxBlock || blockSize > end - pos) {
                    throw corrupt(baseOffset, "LZ4 block of " + blockSize + " bytes (max " + maxBlock + ", "
                            + (end - pos) + " left)");
                }
                if ((long) size + maxBlock > MAX_ARRAY) {
                    throw corrupt(baseOffset, "LZ4 data decompresses to more than " + MAX_ARRAY + " bytes");
                }
                ensureCapacity(size + maxBlock, size);
                if (stored) {
                    System.arraycopy(in, pos, buffer, size, blockSize);
                    size += blockSize;
                } else {
                    size += LZ4.decompress(in, pos, blockSize, buffer, size, maxBlock);
                }
                pos += blockSize + (blockChecksum ? 4 : 0);
                if (pos > end) {
                    throw corrupt(baseOffset, "LZ4 block checksum truncated");
                }
            }
            pos += contentChecksum ? 4 : 0;
            if (pos > end) {
                throw corrupt(baseOffset, "LZ4 content checksum truncated");
            }
        } while (pos < end);
        return size;
    }

    private static int readIntLE(byte[] b, int pos) {
        return (b[pos] & 0xFF) | ((b[pos + 1] & 0xFF) << 8) | ((b[pos + 2] & 0xFF) << 16) | ((b[pos + 3] & 0xFF) << 24);
    }

    private static boolean isXerialHeader(byte[] in, int pos, int end) {
        if (end - pos < XERIAL_HEADER_SIZE) {
            return false;
        }
        for (int i = 0; i < XERIAL_MAGIC.length; i++) {
            if (in[pos + i] != XERIAL_MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    private static CorruptRecordBatchException corrupt(long baseOffset, String message) {
        return new CorruptRecordBatchException(baseOffset, "corrupt record batch at offset " + baseOffset + ": "
                + message);
    }

    private static CorruptRecordBatchException corrupt(long baseOffset, String message, Throwable cause) {
        return new CorruptRecordBatchException(baseOffset, "corrupt record batch at offset " + baseOffset + ": "
                + message, cause);
    }

    /** Grows the buffer to hold at least {@code needed} bytes, keeping the first {@code keep}. */
    private void ensureCapacity(int needed, int keep) {
        if (buffer.length >= needed) {
            return;
        }
        int size = (int) Math.min(MAX_ARRAY, Math.max((long) needed, Math.max(MIN_SIZE, 2L * buffer.length)));
        byte[] grown = new byte[size];
        if (keep > 0) {
            System.arraycopy(buffer, 0, grown, 0, keep);
        }
        buffer = grown;
    }
}
