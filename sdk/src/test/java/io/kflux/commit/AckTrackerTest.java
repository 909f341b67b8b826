package io.kflux.commit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AckTrackerTest {

    @Test
    void inOrderAcknowledgementsMoveThePrefixAndStoreNothing() {
        AckTracker t = new AckTracker(10);
        for (long o = 10; o < 1000; o++) {
            t.acknowledge(o);
            assertThat(t.committable()).isEqualTo(o + 1);
        }
        assertThat(t.pendingIntervals()).isZero();
    }

    @Test
    void onlyTheContiguousPrefixCounts() {
        AckTracker t = new AckTracker(0);
        t.acknowledge(1);
        t.acknowledge(2);
        t.acknowledge(4);
        assertThat(t.committable()).isZero();
        t.acknowledge(0);
        assertThat(t.committable()).isEqualTo(3);
        t.acknowledge(3);
        assertThat(t.committable()).isEqualTo(5);
        assertThat(t.pendingIntervals()).isZero();
    }

    @Test
    void skippedOffsetsCountAsDone() {
        AckTracker t = new AckTracker(0);
        t.acknowledge(0);
        t.skip(1, 3); // a commit marker and a compacted record
        t.acknowledge(4);
        assertThat(t.committable()).isEqualTo(3);
        t.acknowledge(3);
        assertThat(t.committable()).isEqualTo(5);
    }

    @Test
    void acknowledgementsBelowTheStartOrRepeatedChangeNothing() {
        AckTracker t = new AckTracker(100);
        t.acknowledge(5);
        t.acknowledge(100);
        t.acknowledge(100);
        assertThat(t.committable()).isEqualTo(101);
    }

    @Test
    void shuffledAcknowledgementsOfAMillionRecordsEndAtTheEnd() {
        int n = 1_000_000;
        List<Long> offsets = new ArrayList<>(n);
        for (long o = 0; o < n; o++) {
            offsets.add(o);
        }
        Collections.shuffle(offsets, new Random(42));
        AckTracker t = new AckTracker(0);
        long previous = 0;
        for (long o : offsets) {
            t.acknowledge(o);
            long c = t.committable();
            assertThat(c).isGreaterThanOrEqualTo(previous);
            previous = c;
        }
        assertThat(t.committable()).isEqualTo(n);
        assertThat(t.pendingIntervals()).isZero();
    }

    @Test
    void randomOrderMatchesAReferenceModel() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            int n = 1 + random.nextInt(200);
            boolean[] done = new boolean[n];
            AckTracker t = new AckTracker(0);
            for (int step = 0; step < n * 2; step++) {
                int o = random.nextInt(n);
                if (random.nextInt(10) == 0) {
                    int to = Math.min(n, o + 1 + random.nextInt(3));
                    t.skip(o, to);
                    for (int i = o; i < to; i++) {
                        done[i] = true;
                    }
                } else {
                    t.acknowledge(o);
                    done[o] = true;
                }
                int expected = 0;
                while (expected < n && done[expected]) {
                    expected++;
                }
                assertThat(t.committable()).isEqualTo(expected);
            }
        }
    }

    @Test
    void randomOrderAcrossManyChunksWithSkipsMatchesAReferenceModel() {
        Random random = new Random(11);
        for (int round = 0; round < 20; round++) {
            int n = 20_000 + random.nextInt(20_000);
            long base = random.nextInt(3) == 0 ? 0 : random.nextInt(1 << 20);
            boolean[] done = new boolean[n];
            AckTracker t = new AckTracker(base);
            int expected = 0;
            for (int step = 0; step < n * 2 && expected < n; step++) {
                int o = random.nextInt(n);
                if (random.nextInt(50) == 0) {
                    int to = Math.min(n, o + 1 + random.nextInt(9_000)); // may span chunks
                    t.skip(base + o, base + to);
                    for (int i = o; i < to; i++) {
                        done[i] = true;
                    }
                } else {
                    t.acknowledge(base + o);
                    done[o] = true;
                }
                while (expected < n && done[expected]) {
                    expected++;
                }
                assertThat(t.committable()).isEqualTo(base + expected);
            }
        }
    }

    @Test
    void hugeGapsCostNoMemory() {
        AckTracker t = new AckTracker(0);
        long far = 1L << 40;
        t.acknowledge(far + 1);   // beyond a compaction gap of 2^40 offsets
        t.skip(1, far);           // the gap itself
        t.acknowledge(far);
        assertThat(t.committable()).isZero();
        t.acknowledge(0);
        assertThat(t.committable()).isEqualTo(far + 2);
        assertThat(t.pendingIntervals()).isZero();
    }

    @Test
    void anInterleavedWindowMovesThePrefixAndFreesMemory() {
        AckTracker t = new AckTracker(0);
        int n = 100_000;
        // acknowledge odd offsets first, then even ones: the prefix moves only with the even ones
        for (int o = 1; o < n; o += 2) {
            t.acknowledge(o);
        }
        assertThat(t.committable()).isZero();
        for (int o = 0; o < n; o += 2) {
            t.acknowledge(o);
            assertThat(t.committable()).isEqualTo(o + 2);
        }
        assertThat(t.pendingIntervals()).isZero();
    }

    @Test
    void theCommittedEpochIsTheOneOfTheLastRecordBeforeTheCommittableOffset() {
        AckTracker t = new AckTracker(10, 3);
        assertThat(t.epochBefore(t.committable())).as("nothing acknowledged: the start's epoch").isEqualTo(3);
        t.epochFrom(10, 4);
        t.epochFrom(15, 6);
        for (long o = 14; o >= 11; o--) {
            t.acknowledge(o); // out of order
        }
        t.acknowledge(16);
        assertThat(t.epochBefore(t.committable())).isEqualTo(3);
        t.acknowledge(10);
        assertThat(t.committable()).isEqualTo(15);
        assertThat(t.epochBefore(t.committable())).isEqualTo(4);
        t.acknowledge(15);
        assertThat(t.committable()).isEqualTo(17);
        assertThat(t.epochBefore(t.committable())).isEqualTo(6);
        assertThat(t.epochBefore(t.committable())).as("asking again after pruning").isEqualTo(6);
    }

    @Test
    void withoutAnyKnownEpochTheCommitCarriesNone() {
        AckTracker t = new AckTracker(0);
        t.acknowledge(0);
        assertThat(t.epochBefore(t.committable())).isEqualTo(-1);
    }
}
