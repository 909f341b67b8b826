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
                MemberState.STABLE, MemberState.LEAVING, MemberState.LEFT, MemberState.CLOSED}) {
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
            if (s != MemberState.UNJOINED) {
                assertThat(s.previousValidStates()).as(s.name()).isNotEmpty();
            }
        }
        assertThat(MemberState.UNJOINED.previousValidStates()).as("where a member starts, never again").isEmpty();
    }

    @Test
    void aPollTimeoutIsStaleWhichRejoinsAndALeftMemberStaysOut() {
        MemberState s = MemberState.STABLE;
        for (MemberState next : new MemberState[] {MemberState.STALE, MemberState.REJOINING}) {
            s = StateTransitions.check(s, next);
        }
        assertThat(s).isEqualTo(MemberState.REJOINING);
        assertThatThrownBy(() -> StateTransitions.check(MemberState.LEFT, MemberState.DISCOVERING_COORDINATOR))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("LEFT -> DISCOVERING_COORDINATOR");
        assertThat(MemberState.LEFT.isActive()).isFalse();
        assertThat(MemberState.STALE.isActive()).isFalse();
    }
}
