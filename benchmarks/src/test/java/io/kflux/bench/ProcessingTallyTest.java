package io.kflux.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The processing benchmark's verification: per-key order, completion, re-processing over a seed log (no broker). */
class ProcessingTallyTest {

    @Test
    void aTopicProcessedOnceInKeyOrderCompletesAndVerifies() throws Exception {
        ProcessingTally tally = new ProcessingTally(4, 2, null, null);
        tally.processed(0, 0, 0);
        tally.processed(1, 1, 0);
        tally.processed(1, 1, 1);
        assertThat(tally.isComplete()).isFalse();
        tally.processed(0, 0, 1);
        assertThat(tally.isComplete()).isTrue();
        assertThat(tally.processedAgain()).isZero();
        tally.verify();
    }

    @Test
    void aKeysRecordsCompletingOutOfOffsetOrderFailTheVerification() throws Exception {
        ProcessingTally tally = new ProcessingTally(2, 1, null, null);
        tally.processed(0, 0, 1);
        tally.processed(0, 0, 0);
        assertThat(tally.isComplete()).isTrue();
        assertThatThrownBy(tally::verify).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("key-0: offset 0 of partition 0 completed after offset 1");
    }

    @Test
    void aSecondJvmCountsTheKilledOnesLogAsProcessedAndItsOwnRepeatsAsAgain(@TempDir Path dir) throws Exception {
        Path first = dir.resolve("first.log");
        ProcessingTally killed = new ProcessingTally(4, 1, first, null);
        killed.processed(0, 0, 0);
        killed.processed(0, 0, 1);
        assertThat(ProcessingTally.read(first)).extracting(po -> po[1]).containsExactly(0L, 1L);

        Path second = dir.resolve("second.log");
        ProcessingTally after = new ProcessingTally(4, 1, second, first);
        after.processed(0, 0, 1);
        after.processed(0, 0, 2);
        assertThat(after.isComplete()).isFalse();
        after.processed(0, 0, 3);
        assertThat(after.isComplete()).isTrue();
        assertThat(after.processedAgain()).isEqualTo(1);
        assertThat(after.processedCount()).isEqualTo(3);
        after.verify();
        assertThat(Files.readAllLines(second)).isEqualTo(List.of("0 1", "0 2", "0 3"));
    }

    @Test
    void anOffsetPastTheTopicIsRefused() throws Exception {
        ProcessingTally tally = new ProcessingTally(2, 1, null, null);
        assertThatThrownBy(() -> tally.processed(0, 0, 64)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("past the topic");
    }
}
