package io.kflux.fetch;

import static io.kflux.fetch.FetchState.AWAITING_POSITION;
import static io.kflux.fetch.FetchState.AWAITING_RESET;
import static io.kflux.fetch.FetchState.AWAITING_VALIDATION;
import static io.kflux.fetch.FetchState.FETCHABLE;
import static io.kflux.fetch.FetchState.FETCHING;
import static io.kflux.fetch.FetchState.LEADER_BACKOFF;
import static io.kflux.fetch.FetchState.RESETTING;
import static io.kflux.fetch.FetchState.TRUNCATING;
import static io.kflux.fetch.FetchState.VALIDATING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.TopicPartition;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FetchStateTest {

    private static final TopicPartition TP = new TopicPartition("t", 3);

    /** The transition table, written out independently of the enum: every move the fetch path makes. */
    private static final Map<FetchState, Set<FetchState>> VALID = Map.of(
            AWAITING_POSITION, Set.of(),
            AWAITING_RESET, EnumSet.allOf(FetchState.class),
            RESETTING, Set.of(AWAITING_RESET),
            AWAITING_VALIDATION, EnumSet.allOf(FetchState.class),
            VALIDATING, Set.of(AWAITING_VALIDATION),
            TRUNCATING, Set.of(FETCHABLE, VALIDATING),
            FETCHABLE, EnumSet.allOf(FetchState.class),
            FETCHING, Set.of(FETCHABLE),
            LEADER_BACKOFF, Set.of(FETCHABLE));

    @Test
    void theEnumDeclaresExactlyTheTable() {
        for (FetchState to : FetchState.values()) {
            assertThat(to.previousValidStates()).as("predecessors of %s", to).isEqualTo(VALID.get(to));
        }
    }

    @Test
    void everyValidMoveIsAccepted() {
        int moves = 0;
        for (FetchState to : FetchState.values()) {
            for (FetchState from : VALID.get(to)) {
                PartitionState ps = in(from);
                ps.transitionTo(to);
                assertThat(ps.state()).as("%s -> %s", from, to).isEqualTo(to);
                moves++;
            }
        }
        assertThat(moves).isEqualTo(3 * FetchState.values().length + 6);
    }

    @Test
    void everyInvalidMoveIsRefusedNamingPartitionAndStates() {
        List<String> refused = new ArrayList<>();
        for (FetchState to : FetchState.values()) {
            for (FetchState from : EnumSet.complementOf(enumSet(VALID.get(to)))) {
                PartitionState ps = in(from);
                assertThatThrownBy(() -> ps.transitionTo(to))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageStartingWith("t-3: invalid state transition " + from + " -> " + to + " (FetchState; ");
                assertThat(ps.state()).as("a refused move changes nothing").isEqualTo(from);
                refused.add(from + "->" + to);
            }
        }
        assertThat(refused).contains("FETCHABLE->VALIDATING", "AWAITING_POSITION->FETCHING", "AWAITING_RESET->FETCHING",
                "TRUNCATING->FETCHING", "FETCHING->FETCHING", "FETCHING->LEADER_BACKOFF", "RESETTING->VALIDATING",
                "FETCHABLE->AWAITING_POSITION", "AWAITING_RESET->TRUNCATING", "LEADER_BACKOFF->TRUNCATING");
    }

    @Test
    void positionsBelongToTheStatesThatHaveOne() {
        assertThat(EnumSet.allOf(FetchState.class).stream().filter(FetchState::hasPosition).toList())
                .containsExactly(AWAITING_VALIDATION, VALIDATING, FETCHABLE, FETCHING, LEADER_BACKOFF);
        assertThat(EnumSet.allOf(FetchState.class).stream().filter(FetchState::isFetchable).toList())
                .containsExactly(FETCHABLE);
        assertThat(EnumSet.allOf(FetchState.class).stream().filter(FetchState::awaitsFetch).toList())
                .containsExactly(FETCHING, LEADER_BACKOFF);
    }

    @Test
    void repositioningMovesThroughTheStatesTheFetchPathExpects() {
        PartitionState ps = new PartitionState(TP);
        assertThat(ps.state()).isEqualTo(AWAITING_POSITION);
        assertThat(ps.hasPosition()).isFalse();

        ps.seekUnvalidated(10, 4);
        assertThat(ps.state()).as("a committed epoch is checked first (KIP-320)").isEqualTo(AWAITING_VALIDATION);
        ps.seekUnvalidated(10, -1);
        assertThat(ps.state()).as("no epoch: nothing to check").isEqualTo(FETCHABLE);

        ps.requireReset();
        assertThat(ps.state()).isEqualTo(AWAITING_RESET);
        assertThat(ps.hasPosition()).isFalse();
        ps.seek(7);
        assertThat(ps.state()).isEqualTo(FETCHABLE);
        assertThat(ps.fetchOffset()).isEqualTo(7L);

        ps.beginTruncation(5, 2);
        assertThat(ps.state()).isEqualTo(TRUNCATING);
        assertThat(ps.completeTruncation()).isEqualTo(5L);
        assertThat(ps.state()).isEqualTo(FETCHABLE);
    }

    @Test
    void aNewerLeaderEpochSendsOnlyAFetchedPartitionToValidation() {
        PartitionState ps = new PartitionState(TP);
        ps.seek(0);
        assertThat(ps.leaderEpochSeen(1)).as("never fetched under a known epoch").isEqualTo(-1);
        assertThat(ps.state()).isEqualTo(FETCHABLE);

        ps.fetched(10, 1);
        assertThat(ps.leaderEpochSeen(1)).as("same epoch").isEqualTo(-1);
        assertThat(ps.leaderEpochSeen(2)).isEqualTo(1);
        assertThat(ps.state()).isEqualTo(AWAITING_VALIDATION);

        ps.transitionTo(VALIDATING);
        assertThat(ps.leaderEpochSeen(3)).as("already being validated: only the epoch is noted").isEqualTo(-1);
        assertThat(ps.state()).isEqualTo(VALIDATING);
        ps.transitionTo(FETCHABLE);
        assertThat(ps.leaderEpochSeen(3)).as("epoch 3 was noted while validating").isEqualTo(-1);
    }

    /** An answer or timer for a waiting state the partition left meanwhile must not move it. */
    @Test
    void aLateAnswerLeavesARepositionedPartitionAlone() {
        PartitionState ps = new PartitionState(TP);
        ps.seek(0);
        FetchTarget sent = FetchTarget.of(ps, 0).entering(FETCHING);
        assertThat(sent.isStillIn(FETCHING)).isTrue();

        ps.seek(50); // the user seeks while the Fetch is out
        FetchTarget again = FetchTarget.of(ps, 0).entering(FETCHING);

        assertThat(sent.leave(FETCHING, FETCHABLE)).as("the first Fetch's answer").isFalse();
        assertThat(ps.state()).isEqualTo(FETCHING);
        assertThat(again.leave(FETCHING, FETCHABLE)).isTrue();
        assertThat(ps.state()).isEqualTo(FETCHABLE);
    }

    /**
     * Fetching again from the position is no transition: a validation out for the old fetch offset is no longer
     * current (its answer is not applied) but may still move the partition back to AWAITING_VALIDATION.
     */
    @Test
    void refetchingFromThePositionLeavesAValidationAnswerAbleToRequeue() {
        PartitionState ps = new PartitionState(TP);
        ps.seekUnvalidated(10, 1);
        ps.fetched(30, 1);
        ps.advance(10, 20, 1);
        FetchTarget validation = FetchTarget.of(ps, 2).entering(VALIDATING);

        ps.refetchFromPosition();

        assertThat(validation.isCurrent()).as("the fetch offset it validated moved").isFalse();
        assertThat(validation.isStillIn(VALIDATING)).isTrue();
        assertThat(validation.leave(VALIDATING, AWAITING_VALIDATION)).isTrue();
        assertThat(ps.state()).isEqualTo(AWAITING_VALIDATION);
    }

    private static EnumSet<FetchState> enumSet(Set<FetchState> states) {
        EnumSet<FetchState> set = EnumSet.noneOf(FetchState.class);
        set.addAll(states);
        return set;
    }

    /** A partition in {@code state}, reached by moves the fetch path makes. */
    private static PartitionState in(FetchState state) {
        PartitionState ps = new PartitionState(TP);
        switch (state) {
            case AWAITING_POSITION -> { }
            case AWAITING_RESET -> ps.requireReset();
            case RESETTING -> {
                ps.requireReset();
                ps.transitionTo(RESETTING);
            }
            case AWAITING_VALIDATION -> ps.seekUnvalidated(10, 1);
            case VALIDATING -> {
                ps.seekUnvalidated(10, 1);
                ps.transitionTo(VALIDATING);
            }
            case TRUNCATING -> {
                ps.seek(10);
                ps.beginTruncation(5, 1);
            }
            case FETCHABLE -> ps.seek(10);
            case FETCHING, LEADER_BACKOFF -> {
                ps.seek(10);
                ps.transitionTo(state);
            }
        }
        assertThat(ps.state()).isEqualTo(state);
        return ps;
    }
}
