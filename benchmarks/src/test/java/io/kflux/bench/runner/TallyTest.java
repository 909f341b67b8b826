package io.kflux.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The benchmark's per-drain verification: offsets, passes, checksums (no broker needed). */
class TallyTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Two partitions of 3 records, read in {@code passes} passes, interleaved as a fetcher would. */
    private static Tally read(int passes, String valueOfLastRecordInLastPass) {
        Tally tally = new Tally("test", 2, 3, passes, 0, false, false);
        tally.created();
        for (int pass = 1; pass <= passes; pass++) {
            for (int offset = 0; offset < 3; offset++) {
                for (int p = 0; p < 2; p++) {
                    String value = pass == passes && offset == 2 && p == 1 ? valueOfLastRecordInLastPass
                            : "v" + p + "-" + offset;
                    boolean seekBack = tally.add(p, offset, bytes("k" + offset), bytes(value));
                    assertThat(seekBack).isEqualTo(offset == 2 && pass < passes);
                }
            }
        }
        return tally;
    }

    @Test
    void everyPassReadToTheEndCompletesTheDrainWithTheSameChecksumAsOnePass() {
        Tally three = read(3, "v1-2");
        assertThat(three.complete()).isTrue();
        assertThat(three.records()).isEqualTo(18);
        assertThat(three.passes()).isEqualTo(3);
        assertThat(three.verify()).isEqualTo(read(1, "v1-2").verify());
    }

    @Test
    void otherBytesGiveAnotherChecksum() {
        assertThat(read(1, "changed").verify()).isNotEqualTo(read(1, "v1-2").verify());
    }

    @Test
    void headersReadByTheDrainAreInTheChecksum() {
        Tally plain = new Tally("test", 1, 2, 1, 0, false, false);
        Tally same = new Tally("test", 1, 2, 1, 0, false, false);
        Tally other = new Tally("test", 1, 2, 1, 0, false, false);
        for (int offset = 0; offset < 2; offset++) {
            plain.add(0, offset, null, bytes("v"));
            same.add(0, offset, null, bytes("v"), 7);
            other.add(0, offset, null, bytes("v"), offset == 1 ? 8 : 7);
        }
        assertThat(same.verify()).isNotEqualTo(plain.verify()).isNotEqualTo(other.verify());
        Tally again = new Tally("test", 1, 2, 1, 0, false, false);
        again.add(0, 0, null, bytes("v"), 7);
        again.add(0, 1, null, bytes("v"), 7);
        assertThat(again.verify()).isEqualTo(same.verify());
    }

    @Test
    void aPassThatDiffersFromTheFirstFailsTheDrain() {
        assertThatThrownBy(() -> read(2, "changed"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("partition 1 pass 2 has checksum");
    }

    @Test
    void aDuplicateOrAGapFailsAtOnceNamingBothOffsets() {
        Tally duplicate = new Tally("test", 1, 5, 1, 0, false, false);
        duplicate.add(0, 0, null, bytes("a"));
        duplicate.add(0, 1, null, bytes("b"));
        assertThatThrownBy(() -> duplicate.add(0, 1, null, bytes("b")))
                .hasMessageContaining("partition 0 gave offset 1 where offset 2 was due");
        Tally gap = new Tally("test", 1, 5, 1, 0, false, false);
        gap.add(0, 0, null, bytes("a"));
        assertThatThrownBy(() -> gap.add(0, 2, null, bytes("c")))
                .hasMessageContaining("gave offset 2 where offset 1 was due");
    }

    @Test
    void aRecordAfterTheLastPassFails() {
        Tally tally = new Tally("test", 1, 1, 1, 0, false, false);
        assertThat(tally.add(0, 0, null, bytes("a"))).isFalse();
        assertThat(tally.complete()).isTrue();
        assertThatThrownBy(() -> tally.add(0, 0, null, bytes("a")))
                .hasMessageContaining("no record (all passes read)");
    }

    @Test
    void anIncompleteDrainFailsVerificationNamingThePartitionsBehind() {
        Tally tally = new Tally("test", 2, 2, 1, 0, false, false);
        tally.add(0, 0, null, bytes("a"));
        tally.add(0, 1, null, bytes("b"));
        tally.add(1, 0, null, bytes("c"));
        assertThatThrownBy(tally::verify)
                .hasMessageContaining("read 3 records and stopped")
                .hasMessageContaining(" 1@1 pass 1");
    }

    @Test
    void withAWindowEachPartitionIsReadAgainUntilTheWindowIsOverThenEndsItsPass() throws InterruptedException {
        long window = 150_000_000L;
        Tally tally = new Tally("test", 2, 2, Integer.MAX_VALUE, window, false, false);
        boolean[] reading = {true, true};
        int[] passes = new int[2];
        long start = System.nanoTime();
        while (!tally.complete()) {
            for (int p = 0; p < 2; p++) {
                if (reading[p]) {
                    tally.add(p, 0, null, bytes("a"));
                    reading[p] = tally.add(p, 1, null, bytes("b"));
                    passes[p]++;
                }
            }
            Thread.sleep(20);
        }
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(window);
        assertThat(tally.windowNanos()).isGreaterThanOrEqualTo(window);
        assertThat(passes[0]).isGreaterThan(1);
        assertThat(passes[1]).isGreaterThan(1);
        assertThat(tally.passes()).isEqualTo(Math.min(passes[0], passes[1]));
        assertThat(tally.records()).isEqualTo(2L * (passes[0] + passes[1]));
        tally.verify();
    }

    @Test
    void aStaggeredDrainReadsALeadInPerPartitionThenWholePassesAndDropsRecordsSentBeforeASeek() {
        Tally tally = new Tally("test", 2, 6, 1, 0, true, false);
        // lead-ins: partition 0 to offset 2 (exclusive), partition 1 to offset 4
        assertThat(tally.add(0, 0, null, bytes("x0"))).isFalse();
        assertThat(tally.add(0, 1, null, bytes("x1"))).isTrue();
        assertThat(tally.add(0, 2, null, bytes("already fetched"))).isFalse();
        for (int offset = 0; offset < 3; offset++) {
            assertThat(tally.add(1, offset, null, bytes("y" + offset))).isFalse();
        }
        assertThat(tally.add(1, 3, null, bytes("y3"))).isTrue();
        for (int offset = 0; offset < 6; offset++) {
            assertThat(tally.add(0, offset, null, bytes("x" + offset))).isFalse();
            assertThat(tally.add(1, offset, null, bytes("y" + offset))).isFalse();
        }
        assertThat(tally.complete()).isTrue();
        assertThat(tally.discarded).isEqualTo(1);
        assertThat(tally.records()).isEqualTo(2 + 4 + 12);
        Tally plain = new Tally("test", 2, 6, 1, 0, false, false);
        for (int offset = 0; offset < 6; offset++) {
            plain.add(0, offset, null, bytes("x" + offset));
            plain.add(1, offset, null, bytes("y" + offset));
        }
        assertThat(tally.verify()).as("the lead-in is not in the checksum").isEqualTo(plain.verify());
    }

    @Test
    void batchesPastTheEndOffsetFail() {
        Tally tally = new Tally("test", 1, 10, 2, 0, false, false);
        assertThat(tally.addBatch(0, 0, 6, 600)).isFalse();
        assertThatThrownBy(() -> tally.addBatch(0, 6, 5, 500)).hasMessageContaining("read past its end offset 10");
    }

    @Test
    void gapsOfAtLeastTheStallThresholdCountAsStalls() throws InterruptedException {
        Tally tally = new Tally("test", 1, 3, 1, 0, false, false);
        tally.add(0, 0, null, bytes("a"));
        Thread.sleep(Tally.STALL_NANOS / 1_000_000 + 20);
        tally.add(0, 1, null, bytes("b"));
        tally.add(0, 2, null, bytes("c"));
        assertThat(tally.stalls).isEqualTo(1);
        assertThat(tally.stallNanos).isGreaterThanOrEqualTo(Tally.STALL_NANOS);
        assertThat(tally.maxGapAt).isEqualTo(1);
        assertThat(tally.windowNanos()).isGreaterThanOrEqualTo(tally.stallNanos);
    }

    @Test
    void aMeasuredWindowReadsProcessCpuAndAllocation() {
        Tally tally = new Tally("test", 1, 2, 1, 0, false, true);
        tally.add(0, 0, null, bytes("a"));
        long spin = System.nanoTime() + 50_000_000L;
        long sink = 0;
        while (System.nanoTime() < spin) {
            sink += new byte[64].length;
        }
        tally.add(0, 1, null, bytes("b" + sink));
        assertThat(tally.cpuNanos).isGreaterThanOrEqualTo(30_000_000L);
        assertThat(tally.allocated).isGreaterThan(0);
        assertThat(tally.cpuByGroup).containsKeys("jit", "gc", "other");
    }
}
