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
}
