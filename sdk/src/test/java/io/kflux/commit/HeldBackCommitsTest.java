package io.kflux.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The WARN about a record that holds its partition's commits back: when it comes, how often, and when not. */
class HeldBackCommitsTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final long SECOND = 1_000_000_000L;

    private final CommitManager commits = new CommitManager(new OffsetCommitter(new NoGroup(), 100, 1000),
            Duration.ofSeconds(1));

    @Test
    void anUnacknowledgedRecordWithLaterAcknowledgedOnesIsReportedAfterTheThresholdThenWithDoublingIntervals() {
        commits.track(TP, 0);
        for (long o = 0; o < 10; o++) {
            if (o != 5) {
                commits.acknowledge(TP, o);
            }
        }
        long threshold = 2 * SECOND;
        assertThat(commits.checkHeldBack(threshold, 0)).as("first seen").isEmpty();
        assertThat(commits.checkHeldBack(threshold, SECOND)).as("before the threshold").isEmpty();
        assertThat(commits.checkHeldBack(threshold, 2 * SECOND)).containsExactly(Map.entry(TP, 5L));
        assertThat(commits.checkHeldBack(threshold, 3 * SECOND)).as("not again at once").isEmpty();
        assertThat(commits.checkHeldBack(threshold, 4 * SECOND)).containsExactly(Map.entry(TP, 5L));
        assertThat(commits.checkHeldBack(threshold, 7 * SECOND)).isEmpty();
        assertThat(commits.checkHeldBack(threshold, 8 * SECOND)).containsExactly(Map.entry(TP, 5L));

        commits.acknowledge(TP, 5);
        assertThat(commits.checkHeldBack(threshold, 100 * SECOND)).as("acknowledged: nothing holds back").isEmpty();
    }

    @Test
    void aPrefixThatMovesOrNothingAcknowledgedAboveItIsNotReported() {
        commits.track(TP, 0);
        commits.acknowledge(TP, 0);
        long threshold = SECOND;
        assertThat(commits.checkHeldBack(threshold, 0)).isEmpty();
        assertThat(commits.checkHeldBack(threshold, 10 * SECOND)).as("in order: nothing above the prefix").isEmpty();

        commits.acknowledge(TP, 3); // 1 and 2 still in processing
        assertThat(commits.checkHeldBack(threshold, 10 * SECOND)).isEmpty();
        commits.acknowledge(TP, 1); // the prefix moved to 2: the clock starts again
        assertThat(commits.checkHeldBack(threshold, 10 * SECOND + SECOND / 2)).isEmpty();
        assertThat(commits.checkHeldBack(threshold, 11 * SECOND + SECOND / 2)).containsExactly(Map.entry(TP, 2L));

        commits.untrack(java.util.List.of(TP));
        assertThat(commits.checkHeldBack(threshold, 100 * SECOND)).as("revoked").isEmpty();
    }
}
