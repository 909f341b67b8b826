package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.group.TargetAssignment.AwaitTopicIds;
import io.kflux.group.TargetAssignment.IdPartition;
import io.kflux.group.TargetAssignment.Move;
import io.kflux.group.TargetAssignment.Settled;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Reconciliation's decision, without a member, a network or a clock. */
class TargetAssignmentTest {
    private static final UUID A = new UUID(0, 1);
    private static final UUID B = new UUID(0, 2);
    private static final Map<UUID, String> NAMES = Map.of(A, "a", B, "b");

    private static TargetAssignment target(IdPartition... partitions) {
        return new TargetAssignment(Set.of(partitions));
    }

    @Test
    void ownedExactlyIsSettled() {
        TargetAssignment t = target(new IdPartition(A, 0), new IdPartition(B, 1));
        assertThat(t.against(Set.of(new TopicPartition("a", 0), new TopicPartition("b", 1)), NAMES::get))
                .isInstanceOf(Settled.class);
    }

    @Test
    void aDifferenceRevokesWhatLeftAndTakesWhatIsNewWithItsTopicId() {
        TargetAssignment t = target(new IdPartition(A, 0), new IdPartition(B, 1));
        TargetAssignment.Step step = t.against(Set.of(new TopicPartition("a", 0), new TopicPartition("a", 1)),
                NAMES::get);
        assertThat(step).isEqualTo(new Move(Set.of(new TopicPartition("a", 1)), Set.of(new TopicPartition("b", 1)),
                Map.of(new TopicPartition("b", 1), B)));
    }

    @Test
    void anIdMetadataDoesNotKnowWaitsBeforeAnythingMoves() {
        UUID unknown = new UUID(0, 9);
        TargetAssignment t = target(new IdPartition(A, 0), new IdPartition(unknown, 0));
        assertThat(t.against(Set.of(new TopicPartition("b", 0)), NAMES::get))
                .as("nothing revoked while part of the target cannot be named")
                .isEqualTo(new AwaitTopicIds(Set.of(unknown)));
    }

    @Test
    void anEmptyTargetRevokesEverything() {
        assertThat(target().against(Set.of(new TopicPartition("a", 0)), NAMES::get))
                .isEqualTo(new Move(Set.of(new TopicPartition("a", 0)), Set.of(), Map.of()));
    }
}
