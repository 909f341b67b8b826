package io.kflux.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.protocol.Errors;
import io.kflux.share.ShareSession.Request;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ShareSessionTest {
    private static final UUID JOBS = UUID.fromString("5d6a1f3e-2b47-4c1a-9f0e-7c3b2a1d0e9f");
    private static final SharePartition P0 = new SharePartition(JOBS, 0);
    private static final SharePartition P1 = new SharePartition(JOBS, 1);
    private static final SharePartition P2 = new SharePartition(JOBS, 2);

    private static Set<SharePartition> set(SharePartition... ps) {
        return new LinkedHashSet<>(List.of(ps));
    }

    private static final short NONE = Errors.NONE.code();

    @Test
    void epochZeroOpensWithEveryPartitionThenIncrementsPerAnsweredRequest() {
        ShareSession s = new ShareSession(1);
        Request open = s.fetch(set(P0, P1), set());
        assertThat(open).isEqualTo(new Request(0, List.of(P0, P1), List.of(P0, P1), List.of()));
        assertThat(s.state()).isEqualTo(ShareSessionState.OPENING);
        s.onAnswer(NONE);
        assertThat(s.state()).isEqualTo(ShareSessionState.OPEN);
        assertThat(s.partitions()).containsExactlyInAnyOrder(P0, P1);

        // nothing changed, nothing acknowledged: an empty incremental request with the next epoch
        assertThat(s.fetch(set(P0, P1), set())).isEqualTo(new Request(1, List.of(), List.of(), List.of()));
        s.onAnswer(NONE);
        // a ShareAcknowledge takes an epoch too, and changes no partitions
        assertThat(s.acknowledge(set(P1))).isEqualTo(new Request(2, List.of(P1), List.of(), List.of()));
        s.onAnswer(NONE);
        assertThat(s.epoch()).isEqualTo(3);
        assertThat(s.partitions()).containsExactlyInAnyOrder(P0, P1);
    }

    @Test
    void incrementalRequestsListAddedAndAcknowledgedPartitionsAndForgetTheRest() {
        ShareSession s = open(set(P0, P1));
        Request r = s.fetch(set(P1, P2), set(P0));
        // P2 is new, P0 carries acknowledgements (so it is listed, not forgotten, this time); P1 needs no mention
        assertThat(r.listed()).containsExactly(P2, P0);
        assertThat(r.added()).containsExactly(P2);
        assertThat(r.forgotten()).isEmpty();
        s.onAnswer(NONE);
        Request next = s.fetch(set(P1, P2), set());
        assertThat(next.forgotten()).containsExactly(P0);
        assertThat(next.listed()).isEmpty();
        s.onAnswer(NONE);
        assertThat(s.partitions()).containsExactlyInAnyOrder(P1, P2);
    }

    @Test
    void closingSendsEpochMinusOneWithTheLastAcknowledgements() {
        ShareSession s = open(set(P0));
        Request close = s.close(set(P0)).orElseThrow();
        assertThat(close).isEqualTo(new Request(-1, List.of(P0), List.of(), List.of()));
        s.onAnswer(Errors.SHARE_SESSION_NOT_FOUND.code()); // closed either way
        assertThat(s.state()).isEqualTo(ShareSessionState.CLOSED);
        assertThatThrownBy(() -> s.fetch(set(P0), set())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
    }

    @Test
    void closingWithoutASessionSendsNothing() {
        ShareSession s = new ShareSession(1);
        assertThat(s.close(set())).isEmpty();
        assertThat(s.state()).isEqualTo(ShareSessionState.CLOSED);
    }

    @Test
    void sessionErrorsAndLostAnswersStartANewSession() {
        for (short error : new short[] {Errors.SHARE_SESSION_NOT_FOUND.code(), Errors.INVALID_SHARE_SESSION_EPOCH.code()}) {
            ShareSession s = open(set(P0, P1));
            s.fetch(set(P0, P1), set(P0));
            s.onAnswer(error);
            assertThat(s.state()).isEqualTo(ShareSessionState.NONE);
            assertThat(s.partitions()).isEmpty();
            assertThat(s.canAcknowledge()).isFalse();
            assertThat(s.fetch(set(P0, P1), set()).epoch()).isZero();
        }
        ShareSession s = open(set(P0));
        s.acknowledge(set(P0));
        s.onNoAnswer();
        assertThat(s.state()).isEqualTo(ShareSessionState.NONE);
        assertThat(s.fetch(set(P0), set())).isEqualTo(new Request(0, List.of(P0), List.of(P0), List.of()));
    }

    @Test
    void otherErrorsLeaveTheSessionAsItWas() {
        ShareSession s = open(set(P0));
        s.fetch(set(P0, P1), set());
        s.onAnswer(Errors.GROUP_AUTHORIZATION_FAILED.code());
        assertThat(s.state()).isEqualTo(ShareSessionState.OPEN);
        assertThat(s.epoch()).isEqualTo(1);
        assertThat(s.partitions()).containsExactly(P0);
        assertThat(s.fetch(set(P0, P1), set()).listed()).containsExactly(P1);

        ShareSession opening = new ShareSession(2);
        opening.fetch(set(P0), set());
        opening.onAnswer(Errors.GROUP_AUTHORIZATION_FAILED.code());
        assertThat(opening.state()).isEqualTo(ShareSessionState.NONE);
    }

    @Test
    void oneRequestAtATimeAndNoAcknowledgementsWithoutASession() {
        ShareSession s = new ShareSession(1);
        assertThatThrownBy(() -> s.fetch(set(P0), set(P0))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.acknowledge(set(P0))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> s.onAnswer(NONE)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no request is out");
        s.fetch(set(P0), set());
        assertThatThrownBy(() -> s.fetch(set(P0), set())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("OPENING -> UPDATING");
        assertThatThrownBy(() -> s.close(set())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theEpochWrapsToOneAfterIntegerMax() {
        ShareSession s = open(set(P0));
        assertThat(s.epoch()).isEqualTo(1);
        s.acknowledge(set(P0));
        s.onAnswer(NONE);
        assertThat(s.epoch()).isEqualTo(2);
        assertThat(ShareSession.nextEpoch(Integer.MAX_VALUE)).isEqualTo(1);
    }

    private static ShareSession open(Set<SharePartition> partitions) {
        ShareSession s = new ShareSession(1);
        s.fetch(partitions, Set.of());
        s.onAnswer(NONE);
        return s;
    }
}
