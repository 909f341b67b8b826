package io.kflux.network;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.Arrays;
import org.slf4j.LoggerFactory;

/**
 * The heap arrays of one connection's response frames: large ones are reused instead of allocated per response.
 * The one place where frame buffers are made and where their arrays go when a frame's reference count drops to 0;
 * {@link ResponseFrameDecoder} owns one per connection.
 *
 * <p><b>Why.</b> A Fetch response with data is typically about a megabyte per partition (up to
 * {@code fetch.max.bytes}, 50 MiB by default). A fresh array of that size is a G1 humongous allocation that the JVM
 * zeroes and, in regions it had not touched lately, page-faults in: measured at about 11% of the consumer's CPU on
 * one core (100 B records). A reused array is written once by the socket copy and nothing else.
 *
 * <p><b>What is pooled.</b> Frames below {@link #MIN_POOLED} (64 KiB) are allocated as before: such an array comes
 * out of the I/O thread's TLAB or eden, well below G1's humongous threshold (half a region: 512 KiB at the smallest),
 * its zeroing (a few microseconds, in cache) is small beside decoding the hundreds of records it may hold, and it
 * dies young; keeping arrays for such frames would pin memory for the many quiet connections a JVM may hold
 * (heartbeats, metadata, empty fetches; the scale case runs 10,000 consumers). Larger frames take a free array of at least their size and at most {@link #MAX_FIT_RATIO} times it
 * (the smallest such, the most recently given back among equals, whose pages are likeliest still in cache);
 * otherwise a new array of the frame's size class: the size rounded up to the next eighth of its power of two
 * (at most 12.5% larger), so responses whose sizes vary by a few percent, as Fetch responses do, fit each other's
 * arrays. Power-of-two classes would waste up to half of each array; whole-MiB classes up to 15 times a 70 KiB
 * frame. A frame buffer's capacity is its array's length; its data ends at its writer index.
 *
 * <p><b>Bounds.</b> At most {@link #MAX_FREE} (4) free arrays are kept: on the fetch path a connection has at most
 * about three large frames alive at once (one being read, the results of up to two responses buffered per
 * partition). A free array that no frame took within the connection's last {@link #MAX_IDLE_FRAMES} (64) frames is
 * dropped when the next frame arrives, so one rare 50 MiB response is not kept for ever, and a connection that only
 * sees empty fetches (one per {@code fetch.max.wait.ms}) lets its arrays go after about half a minute. A connection
 * that sees no frame at all keeps at most what it last had in flight until it closes
 * ({@code connections.max.idle.ms}). The pool is per connection, not per process: what it keeps is what that
 * connection used, no lock is shared between consumers, and closing the connection ({@link #close()}) drops the
 * free arrays; a frame released after that (the emitter may still hold one) gives its array to nobody.
 *
 * <p><b>Threads.</b> Frames are made on the connection's event loop; a frame is released on whichever thread drops
 * its last reference (usually the emitter's worker). Taking and giving back hold this pool's lock for a few
 * comparisons; arrays are allocated and poisoned outside it.
 *
 * <p><b>Use after release</b> is data corruption: an array given back is soon written with another response. Code
 * that reads a frame's {@code array()} (record cursors, deserializer views) must be done before the frame (or the
 * slice it holds) is released. With the system property {@code kflux.frames.poison=true} (tests only; read once)
 * every frame, small ones included, is a buffer of this class, and every array is overwritten with
 * {@link #POISON_BYTE} when its frame is released: a reader that comes too late reads garbage and fails or
 * compares unequal, where it would otherwise read plausible bytes of another response.
 */
final class FramePool {
    /** Frames of at least this many bytes take pooled arrays. */
    static final int MIN_POOLED = 64 * 1024;
    /** Free arrays kept at most. */
    static final int MAX_FREE = 4;
    /** A free array not taken for this many frames of its connection is dropped. */
    static final int MAX_IDLE_FRAMES = 64;
    /** A free array serves a frame of at least 1/this of its length. */
    static final int MAX_FIT_RATIO = 4;
    /** What every byte of a released frame's array becomes when poisoning is on. */
    static final byte POISON_BYTE = (byte) 0xDB;
    /** The largest array a JVM reliably allocates. */
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;
    private static final boolean POISON = Boolean.getBoolean("kflux.frames.poison");

    static {
        if (POISON) {
            // says the test run is what it claims; also tells anyone who set it elsewhere what it costs
            LoggerFactory.getLogger(FramePool.class).warn("kflux.frames.poison=true: every response frame's array is "
                    + "overwritten when the frame is released (a test mode: it costs a write of every byte received)");
        }
    }

    private final boolean poison;
    /** Free arrays in the order they were given back (newest last), and the frame count when each was last used. */
    private final byte[][] free = new byte[MAX_FREE][];
    private final long[] lastUsed = new long[MAX_FREE];
    private int freeCount;
    private boolean closed;
    /** Whether any array is free: lets small frames skip the lock. */
    private volatile boolean anyFree;
    /** Frames made so far; written by the event loop only. */
    private volatile long frames;

    /** A pool that poisons released arrays when {@code kflux.frames.poison=true}. */
    FramePool() {
        this(POISON);
    }

    /** @param poison whether released arrays are overwritten with {@link #POISON_BYTE} (tests) */
    FramePool(boolean poison) {
        this.poison = poison;
    }

    /**
     * A buffer for a frame of {@code size} bytes: reader and writer index 0, at least {@code size} bytes writable.
     * Call on the connection's event loop only.
     *
     * @param size the frame's size, &gt; 0
     * @return a heap buffer whose release gives a pooled array back (wherever it is released)
     */
    ByteBuf frame(int size) {
        long now = frames + 1;
        frames = now;
        if (size < MIN_POOLED) {
            if (anyFree) {
                synchronized (this) {
                    dropIdle(now);
                }
            }
            return poison ? Frame.track(new Frame(this, new byte[size])) : Unpooled.buffer(size, size);
        }
        byte[] array = take(size, now);
        return Frame.track(new Frame(this, array != null ? array : new byte[classSize(size)]));
    }

    /** The free array that fits {@code size} best, removed from the pool; null when none fits. */
    private synchronized byte[] take(int size, long now) {
        dropIdle(now);
        long largest = (long) size * MAX_FIT_RATIO;
        int best = -1;
        for (int i = freeCount - 1; i >= 0; i--) {
            int length = free[i].length;
            if (length >= size && length <= largest && (best < 0 || length < free[best].length)) {
                best = i;
            }
        }
        if (best < 0) {
            return null;
        }
        byte[] array = free[best];
        remove(best);
        return array;
    }

    /** Called when a frame's reference count dropped to 0, on any thread. */
    private void give(byte[] array) {
        if (poison) {
            Arrays.fill(array, POISON_BYTE);
        }
        if (array.length < MIN_POOLED) {
            return;
        }
        long now = frames;
        synchronized (this) {
            if (closed) {
                return;
            }
            if (freeCount == MAX_FREE) {
                remove(0); // the one given back longest ago
            }
            free[freeCount] = array;
            lastUsed[freeCount] = now;
            freeCount++;
            anyFree = true;
        }
    }

    private void dropIdle(long now) {
        for (int i = freeCount - 1; i >= 0; i--) {
            if (now - lastUsed[i] > MAX_IDLE_FRAMES) {
                remove(i);
            }
        }
    }

    private void remove(int index) {
        int last = freeCount - 1;
        System.arraycopy(free, index + 1, free, index, last - index);
        System.arraycopy(lastUsed, index + 1, lastUsed, index, last - index);
        free[last] = null;
        freeCount = last;
        anyFree = last > 0;
    }

    /** Drops the free arrays; arrays of frames released later are dropped too. Any thread. */
    synchronized void close() {
        closed = true;
        while (freeCount > 0) {
            remove(freeCount - 1);
        }
    }

    /** @return free arrays held now (tests) */
    synchronized int freeArrays() {
        return freeCount;
    }

    /** @return bytes of free arrays held now (tests) */
    synchronized long freeBytes() {
        long bytes = 0;
        for (int i = 0; i < freeCount; i++) {
            bytes += free[i].length;
        }
        return bytes;
    }

    /**
     * The length of a new array for a frame of {@code size} bytes: rounded up to the next eighth of the highest
     * power of two below it (at most 12.5% more).
     */
    static int classSize(int size) {
        if (size <= 8) {
            return size;
        }
        int step = Integer.highestOneBit(size - 1) >>> 3;
        long rounded = ((long) size + step - 1) / step * step;
        return (int) Math.max(size, Math.min(rounded, MAX_ARRAY));
    }

    /**
     * A frame on an array of the pool: capacity is the array's length (the data ends at the writer index), and the
     * array goes back to the pool when the reference count drops to 0.
     */
    private static final class Frame extends UnpooledHeapByteBuf {
        private final FramePool pool;

        Frame(FramePool pool, byte[] array) {
            super(UnpooledByteBufAllocator.DEFAULT, array, array.length);
            this.pool = pool;
            clear(); // the array may hold an earlier frame's bytes: nothing is readable until written
        }

        @Override
        protected void freeArray(byte[] array) {
            pool.give(array);
        }

        /** Netty's leak detection, as {@link Unpooled#buffer} gives it (CloseRaceTest runs it on PARANOID). */
        static ByteBuf track(ByteBuf frame) {
            return LeakTracking.track(frame);
        }
    }

    /** Only a subclass of Netty's allocator may call its leak-tracking wrapper; never instantiated. */
    private abstract static class LeakTracking extends AbstractByteBufAllocator {
        static ByteBuf track(ByteBuf buf) {
            return toLeakAwareBuffer(buf);
        }
    }
}
