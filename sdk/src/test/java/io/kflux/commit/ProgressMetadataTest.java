package io.kflux.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The progress kept in commit metadata by process(): its encoding, and how the commit path writes and reads it. */
class ProgressMetadataTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    /** Relative completed offsets as [start, end) runs, the form encode() takes. */
    private static long[] runs(TreeSet<Long> offsets) {
        List<Long> out = new ArrayList<>();
        Long start = null;
        long end = -1;
        for (long o : offsets) {
            if (start != null && o == end) {
                end++;
                continue;
            }
            if (start != null) {
                out.add(start);
                out.add(end);
            }
            start = o;
            end = o + 1;
        }
        if (start != null) {
            out.add(start);
            out.add(end);
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    @Test
    void roundTripsOfBothFormsAndTheSmallerIsChosen() {
        long[] sparse = {1, 2, 1000, 1001, 50_000, 50_010};
        String s = ProgressMetadata.encode(sparse).metadata();
        assertThat(s).startsWith(ProgressMetadata.PREFIX).hasSizeLessThan(30);
        assertThat(ProgressMetadata.decode(s)).containsExactly(sparse);

        // every other offset: 500 runs, each two bytes as runs, a quarter byte as a bitmap
        TreeSet<Long> alternate = new TreeSet<>();
        for (long o = 1; o < 1000; o += 2) {
            alternate.add(o);
        }
        long[] dense = runs(alternate);
        String d = ProgressMetadata.encode(dense).metadata();
        assertThat(d.length()).as("bitmap: 1000 bits in base64").isLessThan(ProgressMetadata.PREFIX.length() + 180);
        assertThat(ProgressMetadata.decode(d)).containsExactly(dense);

        assertThat(ProgressMetadata.encode(new long[0]).metadata()).isEmpty();
        assertThat(ProgressMetadata.decode("")).isEmpty();
    }

    @Test
    void randomizedRoundTrips() {
        Random random = new Random(27);
        for (int round = 0; round < 2_000; round++) {
            TreeSet<Long> offsets = new TreeSet<>();
            int n = random.nextInt(300);
            long span = 1 + random.nextInt(random.nextBoolean() ? 400 : 1_000_000);
            for (int i = 0; i < n; i++) {
                offsets.add(1 + (long) (random.nextDouble() * span));
            }
            long[] runs = runs(offsets);
            String encoded = ProgressMetadata.encode(runs).metadata();
            assertThat(encoded.length()).isLessThanOrEqualTo(ProgressMetadata.MAX_CHARS);
            assertThat(ProgressMetadata.decode(encoded)).as("round %d", round).containsExactly(runs);
        }
    }

    @Test
    void tooLargeForTheBrokersDefaultLimitKeepsTheLowestOffsetsThatFit() {
        // 3,000 runs spread over 3 million offsets: neither runs (>= 2 bytes each) nor a bitmap fit in 4,096 chars
        TreeSet<Long> offsets = new TreeSet<>();
        for (long o = 1; o < 3_000_000; o += 1000) {
            offsets.add(o);
        }
        ProgressMetadata.Encoded cut = ProgressMetadata.encode(runs(offsets));
        assertThat(cut.complete()).isFalse();
        assertThat(cut.metadata().length()).isLessThanOrEqualTo(ProgressMetadata.MAX_CHARS);
        long[] kept = ProgressMetadata.decode(cut.metadata());
        // the runs form of single offsets 1,000 apart: 3 bytes each (gap 2, length 1), about 1,000 of them
        assertThat(kept.length / 2).isBetween(1000, 1021);
        assertThat(kept).containsExactly(java.util.Arrays.copyOf(runs(offsets), kept.length));

        // a dense prefix past the bitmap's capacity: the bitmap cut at its capacity keeps more than the runs form
        TreeSet<Long> dense = new TreeSet<>();
        for (long o = 1; o < 60_000; o += 2) {
            dense.add(o);
        }
        ProgressMetadata.Encoded bitmap = ProgressMetadata.encode(runs(dense));
        assertThat(bitmap.complete()).isFalse();
        assertThat(bitmap.metadata().length()).isLessThanOrEqualTo(ProgressMetadata.MAX_CHARS);
        long[] keptBits = ProgressMetadata.decode(bitmap.metadata());
        assertThat(keptBits.length / 2).as("every other offset of about 24,000 bits").isBetween(12_000, 12_300);
        assertThat(keptBits).containsExactly(java.util.Arrays.copyOf(runs(dense), keptBits.length));

        // the largest that fit whole stay whole
        TreeSet<Long> fewer = new TreeSet<>(offsets.headSet(1_000_000L));
        ProgressMetadata.Encoded fits = ProgressMetadata.encode(runs(fewer));
        assertThat(fits.complete()).isTrue();
        assertThat(fits.metadata().length()).isLessThanOrEqualTo(ProgressMetadata.MAX_CHARS);
        assertThat(ProgressMetadata.decode(fits.metadata())).containsExactly(runs(fewer));
    }

    @Test
    void foreignMetadataIsNotProgressAndMalformedProgressIsRefused() {
        assertThat(ProgressMetadata.decode("my app's note")).isEmpty();
        assertThat(ProgressMetadata.decode(null)).isEmpty();
        assertThatThrownBy(() -> ProgressMetadata.decode(ProgressMetadata.PREFIX + "AP8"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProgressMetadata.decode(ProgressMetadata.PREFIX + "Bw"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown form");
        assertThatThrownBy(() -> ProgressMetadata.encode(new long[] {0, 1}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProgressMetadata.encode(new long[] {1, 3, 3, 4}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theTrackerListsCompletedRunsAboveThePrefix() {
        AckTracker t = new AckTracker(100);
        for (long o : new long[] {100, 101, 103, 104, 105, 4200, 9000, 9001}) {
            t.acknowledge(o);
        }
        assertThat(t.committable()).isEqualTo(102);
        assertThat(t.completedRuns(100)).containsExactly(1, 4, 4098, 4099, 8898, 8900);
        assertThat(t.completedRuns(2)).as("more runs than asked for: the lowest").containsExactly(1, 4, 4098, 4099);
        t.acknowledge(102);
        assertThat(t.completedRuns(100)).containsExactly(4094, 4095, 8894, 8896);
    }

    @Test
    void progressThatDoesNotFitKeepsTheLowestCompletedOffsetsForTheNextOwner() {
        CommitManager first = new CommitManager(new OffsetCommitter(new NoGroup(), 100, 1000), Duration.ofSeconds(1));
        first.keepProgress(true);
        first.track(TP, 10);
        // 3,000 scattered records completed above offset 10, which is still running: far more than 4,096 chars hold
        for (long o = 11; o < 3_000_011; o += 1000) {
            first.acknowledge(TP, o);
        }
        CommitOffset offset = first.uncommitted((Set<TopicPartition>) null).get(TP);
        assertThat(offset.offset()).isEqualTo(10);
        assertThat(offset.metadata().length()).isBetween(1, ProgressMetadata.MAX_CHARS);

        CommitManager next = new CommitManager(new OffsetCommitter(new NoGroup(), 100, 1000), Duration.ofSeconds(1));
        next.keepProgress(true);
        next.rememberProgress(Map.of(TP, offset));
        next.track(TP, 10);
        long kept = java.util.stream.LongStream.iterate(11, o -> o < 3_000_011, o -> o + 1000)
                .filter(o -> next.completedEarlier(TP, o)).count();
        assertThat(kept).as("the lowest ~1,000 of the 3,000 are not processed again").isBetween(1000L, 1021L);
        assertThat(next.completedEarlier(TP, 11)).isTrue();
        assertThat(next.completedEarlier(TP, 2_999_011)).as("the highest did not fit").isFalse();
        assertThat(next.completedEarlier(TP, 12)).as("never completed").isFalse();
    }

    @Test
    void underProcessTheCommitCarriesTheProgressAndTheNextOwnerRestoresIt() {
        CommitManager first = new CommitManager(new OffsetCommitter(new NoGroup(), 100, 1000), Duration.ofSeconds(1));
        first.keepProgress(true);
        first.track(TP, 10);
        for (long o : new long[] {12, 13, 15}) {
            first.acknowledge(TP, o);
        }
        Map<TopicPartition, CommitOffset> commit = first.uncommitted((Set<TopicPartition>) null);
        assertThat(commit).as("nothing contiguous, yet progress to keep").containsKey(TP);
        CommitOffset offset = commit.get(TP);
        assertThat(offset.offset()).isEqualTo(10);
        assertThat(ProgressMetadata.decode(offset.metadata())).containsExactly(2, 4, 5, 6);

        CommitManager next = new CommitManager(new OffsetCommitter(new NoGroup(), 100, 1000), Duration.ofSeconds(1));
        next.keepProgress(true);
        next.rememberProgress(Map.of(TP, offset));
        next.track(TP, 10);
        assertThat(List.of(10L, 11L, 12L, 13L, 14L, 15L, 16L)).filteredOn(o -> next.completedEarlier(TP, o))
                .containsExactly(12L, 13L, 15L);
        next.acknowledge(TP, 10);
        next.acknowledge(TP, 11);
        next.acknowledge(TP, 14);
        assertThat(next.uncommitted((Set<TopicPartition>) null).get(TP))
                .as("the restored offsets count for the commit").isEqualTo(new CommitOffset(16, -1, ""));
    }

    @Test
    void plainReceiveCommitsKeepEmptyMetadataAndIgnoreProgress() {
        CommitManager commits = new CommitManager(new OffsetCommitter(new NoGroup(), 100, 1000), Duration.ofSeconds(1));
        commits.rememberProgress(Map.of(TP, new CommitOffset(10, -1, ProgressMetadata.encode(new long[] {1, 3})
                .metadata())));
        commits.track(TP, 10);
        assertThat(commits.completedEarlier(TP, 11)).isFalse();
        commits.acknowledge(TP, 12);
        assertThat(commits.uncommitted((Set<TopicPartition>) null)).as("the start, without progress")
                .containsEntry(TP, new CommitOffset(10, -1, ""));
        commits.acknowledge(TP, 10);
        assertThat(commits.uncommitted((Set<TopicPartition>) null)).containsEntry(TP, new CommitOffset(11, -1, ""));
    }

    @Test
    void progressReadForAnotherOffsetThanWherethePartitionStartsIsNotUsed() {
        CommitManager commits = new CommitManager(new OffsetCommitter(new NoGroup(), 100, 1000), Duration.ofSeconds(1));
        commits.keepProgress(true);
        commits.rememberProgress(Map.of(TP, new CommitOffset(10, -1, ProgressMetadata.encode(new long[] {1, 3})
                .metadata())));
        commits.track(TP, 0); // a seek elsewhere in the listener, say
        assertThat(commits.completedEarlier(TP, 11)).isFalse();
    }
}
