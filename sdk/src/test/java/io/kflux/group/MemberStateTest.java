package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The classic member's states and the moves between them. */
class MemberStateTest {

    @Test
    void theJoinPathIsValid() {
        MemberState s = MemberState.UNJOINED;
        for (MemberState next : new MemberState[] {MemberState.DISCOVERING_COORDINATOR, MemberState.REJOINING,
                MemberState.JOINING, MemberState.SYNCING, MemberState.STABLE, MemberState.REDISCOVERING_COORDINATOR,
                MemberState.STABLE, MemberState.LEAVING, MemberState.UNJOINED, MemberState.CLOSED}) {
            s = StateTransitions.check(s, next);
        }
        assertThat(s).isEqualTo(MemberState.CLOSED);
    }

    @Test
    void skippingAStepOrLeavingATerminalStateIsRefused() {
        assertThatThrownBy(() -> StateTransitions.check(MemberState.UNJOINED, MemberState.STABLE))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("UNJOINED -> STABLE");
        assertThatThrownBy(() -> StateTransitions.check(MemberState.REJOINING, MemberState.SYNCING))
                .isInstanceOf(IllegalStateException.class);
        for (MemberState terminal : EnumSet.of(MemberState.FATAL, MemberState.CLOSED)) {
            for (MemberState next : MemberState.values()) {
                assertThat(next.previousValidStates()).doesNotContain(terminal);
            }
        }
    }

    @Test
    void everyStateButUnjoinedHasAWayIn() {
        for (MemberState s : MemberState.values()) {
            assertThat(s.previousValidStates()).as(s.name()).isNotEmpty();
        }
    }
}
