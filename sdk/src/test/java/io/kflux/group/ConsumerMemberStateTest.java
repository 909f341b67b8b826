package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.util.StateTransitions;
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
