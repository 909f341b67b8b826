package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class FramePoolTest {
    private static final int MIB = 1024 * 1024;

    private static ByteBuf filled(FramePool pool, int size, byte value) {
        ByteBuf frame = pool.frame(size);
        java.util.Arrays.fill(frame.array(), frame.arrayOffset(), frame.arrayOffset() + size, value);
        return frame.writerIndex(size);
    }

    @Test
    void aReleasedLargeFrameArrayServesTheNextLargeFramesOfNearbySizes() {
        FramePool pool = new FramePool(false);
        ByteBuf first = pool.frame(1_000_000);
        assertThat(first.readerIndex()).isZero();
        assertThat(first.writerIndex()).isZero();
        assertThat(first.capacity()).isEqualTo(MIB); // the size class: the next eighth of 512 KiB
        byte[] array = first.array();
        first.release();
        assertThat(pool.freeArrays()).isOne();

        ByteBuf larger = pool.frame(1_040_000);
        assertThat(larger.array()).isSameAs(array);
        assertThat(larger.writerIndex()).isZero();
        assertThat(pool.freeArrays()).isZero();
        larger.release();

        ByteBuf quarter = pool.frame(MIB / FramePool.MAX_FIT_RATIO);
        assertThat(quarter.array()).as("a frame of a quarter of the array still takes it").isSameAs(array);
        quarter.release();

        ByteBuf tooLarge = pool.frame(MIB + 1);
        assertThat(tooLarge.array()).isNotSameAs(array);
        assertThat(tooLarge.capacity()).isEqualTo(MIB + MIB / 8);
        tooLarge.release();
        assertThat(pool.freeArrays()).isEqualTo(2);
    }

    @Test
    void framesBelowTheThresholdArePlainExactAllocationsAndNeverKept() {
        FramePool pool = new FramePool(false);
        int size = FramePool.MIN_POOLED - 1;
        ByteBuf a = pool.frame(size);
        assertThat(a.capacity()).isEqualTo(size);
        byte[] first = a.array();
        a.release();
        assertThat(pool.freeArrays()).isZero();
        ByteBuf b = pool.frame(size);
        assertThat(b.array()).isNotSameAs(first);
        b.release();

        ByteBuf atThreshold = pool.frame(FramePool.MIN_POOLED);
        assertThat(atThreshold.capacity()).isEqualTo(FramePool.MIN_POOLED);
        atThreshold.release();
        assertThat(pool.freeArrays()).isOne();
    }

    @Test
    void sizeClassesAreAtMostAnEighthLargerAndNeverSmaller() {
        assertThat(FramePool.classSize(65_536)).isEqualTo(65_536);
        assertThat(FramePool.classSize(65_537)).isEqualTo(65_536 + 8_192);
        assertThat(FramePool.classSize(1_000_000)).isEqualTo(MIB);
        assertThat(FramePool.classSize(50 * MIB + 1)).isEqualTo(52 * MIB);
        for (int size = FramePool.MIN_POOLED; size > 0 && size < Integer.MAX_VALUE / 2; size = size * 3 / 2 + 7) {
            int c = FramePool.classSize(size);
            assertThat(c).as("size %d", size).isBetween(size, size + size / 8 + 1);
            assertThat(FramePool.classSize(c)).as("a class size is its own class").isEqualTo(c);
        }
        assertThat(FramePool.classSize(Integer.MAX_VALUE - 4)).isEqualTo(Integer.MAX_VALUE - 4);
    }

    @Test
    void atMostMaxFreeArraysAreKeptTheNewestOnes() {
        FramePool pool = new FramePool(false);
        List<ByteBuf> inFlight = new ArrayList<>();
        for (int i = 0; i < FramePool.MAX_FREE + 2; i++) {
            inFlight.add(pool.frame(200_000));
        }
        List<byte[]> arrays = inFlight.stream().map(ByteBuf::array).toList();
        inFlight.forEach(ByteBuf::release);
        assertThat(pool.freeArrays()).isEqualTo(FramePool.MAX_FREE);
        assertThat(pool.freeBytes()).isEqualTo((long) FramePool.MAX_FREE * FramePool.classSize(200_000));
        // the newest comes out first (warmest in cache); the two given back first were dropped
        ByteBuf again = pool.frame(200_000);
        assertThat(again.array()).isSameAs(arrays.get(arrays.size() - 1));
        again.release();
    }

    @Test
    void aMuchLargerFreeArrayIsNotTakenForASmallFrameAndIsDroppedOnceUnused() {
        FramePool pool = new FramePool(false);
        ByteBuf huge = pool.frame(8 * MIB);
        byte[] hugeArray = huge.array();
        huge.release();

        ByteBuf small = pool.frame(100_000);
        assertThat(small.array()).as("more than %d times the frame", FramePool.MAX_FIT_RATIO).isNotSameAs(hugeArray);
        small.release();
        assertThat(pool.freeBytes()).isEqualTo(8L * MIB + FramePool.classSize(100_000));

        // frames keep coming (large ones and small ones, as empty fetches): the huge array is never used again
        for (int i = 0; i < FramePool.MAX_IDLE_FRAMES; i++) {
            ByteBuf f = i % 2 == 0 ? pool.frame(100_000) : pool.frame(100);
            f.release();
        }
        ByteBuf last = pool.frame(100);
        last.release();
        assertThat(pool.freeArrays()).as("only the array in use is left").isOne();
        assertThat(pool.freeBytes()).isEqualTo(FramePool.classSize(100_000));

        // a connection that only gets small frames (empty fetches) lets its arrays go too
        for (int i = 0; i <= FramePool.MAX_IDLE_FRAMES; i++) {
            pool.frame(100).release();
        }
        assertThat(pool.freeArrays()).isZero();
    }

    @Test
    void framesReleasedAfterCloseGiveTheirArraysToNobody() {
        FramePool pool = new FramePool(false);
        ByteBuf kept = pool.frame(300_000);
        pool.frame(300_000).release();
        assertThat(pool.freeArrays()).isOne();
        pool.close();
        assertThat(pool.freeArrays()).isZero();
        kept.release(); // e.g. the emitter finishing a result after the connection dropped
        assertThat(pool.freeArrays()).isZero();
        assertThat(pool.freeBytes()).isZero();
    }

    @Test
    void poisoningOverwritesEveryReleasedArrayLargeOrSmall() {
        FramePool pool = new FramePool(true);
        for (int size : new int[] {100, FramePool.MIN_POOLED - 1, 300_000}) {
            ByteBuf frame = filled(pool, size, (byte) 7);
            ByteBuf slice = frame.retainedSlice(10, 20);
            byte[] array = frame.array();
            frame.release();
            assertThat(array[10]).as("a retained slice keeps the array alive").isEqualTo((byte) 7);
            slice.release();
            for (byte b : array) {
                assertThat(b).isEqualTo(FramePool.POISON_BYTE);
            }
        }
    }

    /**
     * As in the consumer: the event loop makes frames and writes them, another thread reads them and releases them.
     * No array may be handed out while a frame still holds it, and every frame reads what was written into it.
     */
    @Test
    void framesReleasedOnAnotherThreadAreReusedWithoutEverBeingSharedWhileInUse() throws Exception {
        FramePool pool = new FramePool(false);
        BlockingQueue<ByteBuf> handOff = new ArrayBlockingQueue<>(3);
        Set<byte[]> inUse = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        Set<byte[]> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        AtomicReference<Throwable> readerError = new AtomicReference<>();
        int frames = 2_000;
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < frames; i++) {
                    ByteBuf frame = handOff.poll(10, TimeUnit.SECONDS);
                    byte expected = (byte) i;
                    for (int at = frame.readerIndex(); at < frame.writerIndex(); at += 997) {
                        if (frame.getByte(at) != expected) {
                            throw new AssertionError("frame " + i + " byte " + at + " was overwritten");
                        }
                    }
                    inUse.remove(frame.array());
                    frame.release();
                }
            } catch (Throwable t) {
                readerError.set(t);
            }
        });
        for (int i = 0; i < frames; i++) {
            int size = FramePool.MIN_POOLED + (i * 7919) % 200_000;
            ByteBuf frame = filled(pool, size, (byte) i);
            assertThat(inUse.add(frame.array())).as("frame %d got an array in use", i).isTrue();
            seen.add(frame.array());
            assertThat(handOff.offer(frame, 10, TimeUnit.SECONDS)).isTrue();
        }
        reader.get(30, TimeUnit.SECONDS);
        assertThat(readerError.get()).isNull();
        // How often an array is reused here depends on how the two threads are scheduled: when the reader lags, the
        // writer finds no free array that fits and allocates. 60 runs on a quiet machine allocated 28-82 arrays for
        // 2,000 frames and a loaded CI run 101, which failed the bound of 100 this test once had. The exact reuse
        // rules are proven single-threaded above; here the bound only says that most frames reused an array.
        assertThat(seen.size()).as("arrays allocated for %d frames", frames).isLessThan(frames / 4);
        assertThat(pool.freeArrays()).isBetween(1, FramePool.MAX_FREE);
    }
}
