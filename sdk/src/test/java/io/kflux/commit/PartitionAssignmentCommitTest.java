package io.kflux.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.CommitFailedException;
import io.kflux.TopicPartition;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.OffsetCommitRequest;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The commit manager as the owner of each partition's assignment (issue #28), broker-free against a coordinator
 * that accepts every commit synchronously (no timers run): once a revocation started, a record's own commit fails at
 * once unless a commit covered it, while acknowledgements still reach the revocation's commit; a record of an
 * assignment that ended is ignored by the next assignment of the same partition; a seek keeps the assignment.
 */
class PartitionAssignmentCommitTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final Duration WAIT = Duration.ofSeconds(5);

    private final AcceptingGroup group = new AcceptingGroup();
    private final CommitManager commits = new CommitManager(new OffsetCommitter(group, 100, 1000),
            Duration.ofSeconds(30));

    @Test
    void aRecordsCommitAfterTheRevocationStartedFailsAtOnceWhileItsAcknowledgementReachesTheRevocationsCommit() {
        PartitionAssignment a = commits.track(TP, 0);
        commits.commitRecord(a, 0).block(WAIT);
        assertThat(group.committed).containsExactly(Map.of(TP, 1L));

        commits.revoking(List.of(TP));
        assertThat(a.state()).isEqualTo(AssignmentState.REVOKING);
        assertThatThrownBy(() -> commits.commitRecord(a, 4).block(WAIT))
                .isInstanceOf(CommitFailedException.class).hasMessageContaining("revocation started");
        assertThat(group.committed).as("the refused commit sent nothing").hasSize(1);
        assertThat(commits.commitRecord(a, 0).block(WAIT)).as("covered by the commit made before").isNull();

        // records in flight finish during the revocation: their acknowledgements count for its commit
        for (long o = 1; o < 4; o++) {
            commits.acknowledge(a, o);
        }
        commits.commitAcknowledged(Set.of(TP)).block(WAIT);
        assertThat(group.committed).last().isEqualTo(Map.of(TP, 5L)); // 4 was acknowledged by the refused commit

        commits.untrack(List.of(TP));
        assertThat(a.state()).isEqualTo(AssignmentState.ENDED);
        commits.acknowledge(a, 5);
        assertThatThrownBy(() -> commits.commitRecord(a, 5).block(WAIT)).isInstanceOf(CommitFailedException.class);
        assertThat(commits.commitRecord(a, 4).block(WAIT)).as("covered by the revocation's commit").isNull();
        assertThat(group.committed).hasSize(2);
    }

    @Test
    void aRecordOfAnEarlierAssignmentIsIgnoredByTheNextAssignmentOfTheSamePartition() {
        PartitionAssignment first = commits.track(TP, 0);
        commits.revoking(List.of(TP));
        commits.untrack(List.of(TP)); // revoked with nothing acknowledged: nothing committed
        PartitionAssignment second = commits.track(TP, 0); // assigned to this consumer again, from offset 0
        assertThat(second).isNotSameAs(first);
        assertThat(second.state()).isEqualTo(AssignmentState.ACTIVE);

        for (long o = 0; o < 10; o++) {
            commits.acknowledge(first, o); // a stale batch acknowledged late
        }
        assertThat(commits.uncommitted(TP)).as("nothing reached the new tracker").isZero();
        assertThatThrownBy(() -> commits.commitRecord(first, 9).block(WAIT))
                .isInstanceOf(CommitFailedException.class).hasMessageContaining("assignment the record came from");
        commits.commitAcknowledged(null).block(WAIT);
        assertThat(group.committed).as("the new assignment emitted nothing acknowledged yet").isEmpty();

        commits.acknowledge(second, 0);
        commits.acknowledge(second, 1);
        commits.commitRecord(second, 2).block(WAIT);
        assertThat(group.committed).containsExactly(Map.of(TP, 3L));
    }

    @Test
    void aSeekKeepsTheAssignmentSoItsEarlierRecordsStillCount() {
        PartitionAssignment a = commits.track(TP, 0);
        assertThat(commits.track(TP, 100)).as("a seek restarts the tracker, not the assignment").isSameAs(a);
        commits.acknowledge(a, 100);
        commits.commitRecord(a, 101).block(WAIT);
        assertThat(group.committed).containsExactly(Map.of(TP, 102L));
    }

    @Test
    void aLostAssignmentEndsWithoutARevocationAndARevocationCannotStartTwice() {
        PartitionAssignment a = commits.track(TP, 0);
        commits.untrack(List.of(TP)); // lost
        assertThat(a.state()).isEqualTo(AssignmentState.ENDED);
        commits.revoking(List.of(TP)); // nothing tracked any more: no state to move
        assertThat(a.state()).isEqualTo(AssignmentState.ENDED);
        assertThatThrownBy(a::revoking).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ENDED -> REVOKING");
    }

    /** Accepts every OffsetCommit at once and remembers each request's offsets; the member manages no assignment. */
    private static final class AcceptingGroup extends NoGroup {
        private static final UUID T_ID = UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
        final List<Map<TopicPartition, Long>> committed = new CopyOnWriteArrayList<>();

        @SuppressWarnings("unchecked")
        @Override
        public <R> Mono<R> exchange(ApiRequest<R> request) {
            return Mono.fromSupplier(() -> {
                OffsetCommitRequest commit = (OffsetCommitRequest) request;
                Map<TopicPartition, Long> offsets = new java.util.HashMap<>();
                commit.topics().forEach(t -> t.partitions().forEach(p -> offsets.put(
                        new TopicPartition(t.name(), p.partitionIndex()), p.committedOffset())));
                committed.add(offsets);
                return (R) NoGroup.answer(commit, tp -> Errors.NONE);
            });
        }

        @Override
        public Mono<Map<String, UUID>> topicIds(Collection<String> topics, boolean fresh) {
            return Mono.just(Map.of("t", T_ID));
        }
    }
}
