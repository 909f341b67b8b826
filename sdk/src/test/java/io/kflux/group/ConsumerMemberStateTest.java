package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import static io.kflux.group.ConsumerMemberState.ACKNOWLEDGING;
import static io.kflux.group.ConsumerMemberState.CLOSED;
import static io.kflux.group.ConsumerMemberState.FATAL;
import static io.kflux.group.ConsumerMemberState.FENCED;
import static io.kflux.group.ConsumerMemberState.JOINING;
import static io.kflux.group.ConsumerMemberState.LEAVING;
import static io.kflux.group.ConsumerMemberState.LEFT;
import static io.kflux.group.ConsumerMemberState.RECONCILING;
import static io.kflux.group.ConsumerMemberState.STABLE;
import static io.kflux.group.ConsumerMemberState.STALE;
import static io.kflux.group.ConsumerMemberState.UNSUBSCRIBED;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The KIP-848 member's states: leaving for good and leaving on a poll timeout are states of their own. */
class ConsumerMemberStateTest {

    @Test
    void aPollTimeoutLeavesIntoStaleWhichJoinsAgain() {
        ConsumerMemberState s = ConsumerMemberState.UNSUBSCRIBED;
        for (ConsumerMemberState next : new ConsumerMemberState[] {ConsumerMemberState.JOINING,
                ConsumerMemberState.RECONCILING, ConsumerMemberState.ACKNOWLEDGING, ConsumerMemberState.STABLE,
                ConsumerMemberState.LEAVING, ConsumerMemberState.STALE, ConsumerMemberState.JOINING}) {
            s = StateTransitions.check(s, next);
        }
        assertThat(s).isEqualTo(ConsumerMemberState.JOINING);
    }

    @Test
    void aMemberThatLeftDoesNotJoinAgainAndNothingLeadsBackToNotStarted() {
        assertThatThrownBy(() -> StateTransitions.check(ConsumerMemberState.LEFT, ConsumerMemberState.JOINING))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("LEFT -> JOINING");
        assertThat(ConsumerMemberState.UNSUBSCRIBED.previousValidStates()).isEmpty();
        for (ConsumerMemberState s : new ConsumerMemberState[] {ConsumerMemberState.LEFT, ConsumerMemberState.STALE}) {
            assertThat(s.isActive()).isFalse();
            assertThat(s.isTerminal()).isFalse();
            assertThat(s.previousValidStates()).containsExactly(ConsumerMemberState.LEAVING);
            assertThat(StateTransitions.check(s, ConsumerMemberState.CLOSED)).isEqualTo(ConsumerMemberState.CLOSED);
        }
    }

    @Test
    void theTableDerivedFromThePhasesIsTheMemberStatesTable() {
        Set<ConsumerMemberState> active = EnumSet.of(JOINING, RECONCILING, ACKNOWLEDGING, STABLE, FENCED);
        Set<ConsumerMemberState> allButTerminal = EnumSet.complementOf(EnumSet.of(FATAL, CLOSED));
        Map<ConsumerMemberState, Set<ConsumerMemberState>> expected = Map.ofEntries(
                Map.entry(UNSUBSCRIBED, Set.of()),
                Map.entry(JOINING, Set.of(UNSUBSCRIBED, FENCED, STALE)),
                Map.entry(RECONCILING, Set.of(JOINING, ACKNOWLEDGING, STABLE)),
                Map.entry(ACKNOWLEDGING, Set.of(RECONCILING)),
                Map.entry(STABLE, Set.of(JOINING, ACKNOWLEDGING)),
                Map.entry(FENCED, Set.of(JOINING, RECONCILING, ACKNOWLEDGING, STABLE)),
                Map.entry(LEAVING, active),
                Map.entry(LEFT, Set.of(LEAVING)),
                Map.entry(STALE, Set.of(LEAVING)),
                Map.entry(FATAL, allButTerminal),
                Map.entry(CLOSED, allButTerminal));
        for (ConsumerMemberState s : ConsumerMemberState.values()) {
            assertThat(s.previousValidStates()).as(s.name()).containsExactlyInAnyOrderElementsOf(expected.get(s));
        }
    }

    @Test
    void oneHeartbeatIsOutAtATimeAndOneAskedForMeanwhileFollowsIt() {
        HeartbeatPhase h = HeartbeatPhase.IDLE;
        for (HeartbeatPhase next : new HeartbeatPhase[] {HeartbeatPhase.IN_FLIGHT, HeartbeatPhase.IN_FLIGHT_THEN_AGAIN,
                HeartbeatPhase.IDLE, HeartbeatPhase.IN_FLIGHT, HeartbeatPhase.IDLE}) {
            h = StateTransitions.check(h, next);
        }
        assertThat(h).isEqualTo(HeartbeatPhase.IDLE);
        assertThatThrownBy(() -> StateTransitions.check(HeartbeatPhase.IN_FLIGHT, HeartbeatPhase.IN_FLIGHT))
                .as("a second heartbeat beside the one out").isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> StateTransitions.check(HeartbeatPhase.IDLE, HeartbeatPhase.IN_FLIGHT_THEN_AGAIN))
                .isInstanceOf(IllegalStateException.class);
    }
}
