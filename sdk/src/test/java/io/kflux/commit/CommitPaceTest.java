package io.kflux.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link CommitPace} on a clock the test moves: the count, the floor, one commit ahead at a time. */
class CommitPaceTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicLong clock = new AtomicLong(1_000 * MS);

    private int acknowledge(CommitPace pace, int n) {
        int due = 0;
        for (int i = 0; i < n; i++) {
            due += pace.acknowledged(clock::get) ? 1 : 0;
        }
        return due;
    }

    @Test
    void aCommitIsDueAtTheCountOnceTheFloorPassedAndOneAtATime() {
        CommitPace pace = new CommitPace(100, 100 * MS, clock.get());
        clock.addAndGet(500 * MS);
        assertThat(acknowledge(pace, 99)).as("below the count").isZero();
        assertThat(acknowledge(pace, 1)).as("the 100th acknowledgement").isOne();
        assertThat(acknowledge(pace, 500)).as("while that commit runs, however many more").isZero();
        pace.commitStarted(clock.get()); // the commit took its offsets
        pace.ended();
        assertThat(pace.counted()).isZero();
        clock.addAndGet(100 * MS);
        assertThat(acknowledge(pace, 100)).as("the next 100, the floor passed").isOne();
    }

    @Test
    void theFloorHoldsAFastConsumerBackAndTheNextAcknowledgementAfterItStartsTheCommit() {
        CommitPace pace = new CommitPace(10, 100 * MS, clock.get());
        clock.addAndGet(40 * MS);
        assertThat(acknowledge(pace, 1_000)).as("100 times the count within 40 ms of the last commit").isZero();
        clock.addAndGet(60 * MS);
        assertThat(acknowledge(pace, 1)).as("the first acknowledgement once the floor passed").isOne();
    }

    @Test
    void anyCommitOfEveryPartitionRestartsTheCountAndTheFloor() {
        CommitPace pace = new CommitPace(100, 100 * MS, clock.get());
        clock.addAndGet(1_000 * MS);
        acknowledge(pace, 90);
        pace.commitStarted(clock.get()); // e.g. the periodic commit
        assertThat(acknowledge(pace, 90)).as("90 + 90, but the count restarted").isZero();
        assertThat(acknowledge(pace, 10)).as("within the floor of the periodic commit").isZero();
        clock.addAndGet(100 * MS);
        assertThat(acknowledge(pace, 1)).isOne();
    }

    @Test
    void offNeverCommitsAndIgnoresCommits() {
        clock.addAndGet(1_000_000 * MS);
        assertThat(acknowledge(CommitPace.OFF, 100_000)).isZero();
        CommitPace.OFF.commitStarted(clock.get());
        assertThat(CommitPace.OFF.counted()).isZero();
    }

    @Test
    void endingWithoutACommitAheadIsABug() {
        CommitPace pace = new CommitPace(1, 0, clock.get());
        assertThatThrownBy(pace::ended).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("COUNTING -> COUNTING");
        assertThatThrownBy(() -> new CommitPace(-1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
