package io.kflux.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.network.NodeLoad;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerChoiceTest {
    private static final Node A = new Node(1, "a", 9092, null);
    private static final Node B = new Node(2, "b", 9092, null);
    private static final Node C = new Node(3, "c", 9092, null);
    private static final List<Node> ALL = List.of(A, B, C);

    private final Map<Integer, NodeLoad> loads = new HashMap<>();

    private Node choose(int start) {
        return BrokerChoice.leastLoaded(ALL, id -> loads.getOrDefault(id, NodeLoad.UNKNOWN), start);
    }

    private static NodeLoad connected(int waiting) {
        return new NodeLoad(true, waiting, false, 0);
    }

    private static NodeLoad troubled(long failedAtNanos) {
        return new NodeLoad(false, 0, true, failedAtNanos);
    }

    @Test
    void amongEqualBrokersTheSearchStartDecides() {
        assertThat(choose(0)).isEqualTo(A);
        assertThat(choose(1)).isEqualTo(B);
        assertThat(choose(5)).isEqualTo(C);
        assertThat(choose(-1)).isEqualTo(C);
    }

    @Test
    void aConnectedIdleBrokerBeatsOneToConnectTo() {
        loads.put(3, connected(0));
        for (int start = 0; start < 3; start++) {
            assertThat(choose(start)).isEqualTo(C);
        }
    }

    @Test
    void aLongPollingFetchTiesWithAConnectAndTheOpenConnectionWins() {
        loads.put(2, connected(1));
        assertThat(choose(0)).isEqualTo(B);
    }

    @Test
    void aConnectionWithRequestsPilingUpLosesToANewConnection() {
        loads.put(1, connected(3));
        loads.put(2, connected(2));
        assertThat(choose(0)).isEqualTo(C);
        loads.put(3, connected(2));
        assertThat(choose(0)).as("then the fewest waiting, first from the start").isEqualTo(B);
    }

    @Test
    void aTroubledBrokerComesAfterEveryOtherWhateverItsLoad() {
        loads.put(1, troubled(100));
        loads.put(2, connected(7));
        loads.put(3, new NodeLoad(true, 0, true, 50)); // connected and idle, but its last event was a failure
        for (int start = 0; start < 3; start++) {
            assertThat(choose(start)).isEqualTo(B);
        }
    }

    @Test
    void whenEveryBrokerIsTroubledTheOneThatFailedLongestAgoIsTried() {
        loads.put(1, troubled(300));
        loads.put(2, troubled(100));
        loads.put(3, troubled(200));
        for (int start = 0; start < 3; start++) {
            assertThat(choose(start)).isEqualTo(B);
        }
    }
}
