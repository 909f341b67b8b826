package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConfigException;
import io.kflux.group.MemberHarness.TestAssignor;
import io.kflux.group.assignor.PartitionAssignor;
import io.kflux.group.assignor.RebalanceProtocol;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupConfigTest {
    private static final PartitionAssignor EAGER = new TestAssignor("range", RebalanceProtocol.EAGER);
    private static final PartitionAssignor COOP = new TestAssignor("coop", RebalanceProtocol.EAGER,
            RebalanceProtocol.COOPERATIVE);
    private static final PartitionAssignor COOP_ONLY = new TestAssignor("coop-only", RebalanceProtocol.COOPERATIVE);

    private static GroupConfig config(int session, int heartbeat, List<PartitionAssignor> assignors) {
        return new GroupConfig("g", null, session, heartbeat, 300_000, 100, 1000, 30_000, null, true,
                "consumer", assignors);
    }

    @Test
    void invalidValuesAreRejected() {
        assertThatThrownBy(() -> config(10_000, 10_000, List.of(EAGER))).hasMessageContaining("heartbeatIntervalMs");
        assertThatThrownBy(() -> config(0, 10, List.of(EAGER))).hasMessageContaining("sessionTimeoutMs");
        assertThatThrownBy(() -> config(10_000, 3_000, List.of())).hasMessageContaining("assignor");
        assertThatThrownBy(() -> config(10_000, 3_000, List.of(EAGER, new TestAssignor("range"))))
                .hasMessageContaining("distinct");
        assertThatThrownBy(() -> new GroupConfig(" ", null, 10_000, 3_000, 1, 1, 1, 1, null, true, "consumer",
                List.of(EAGER))).hasMessageContaining("groupId");
        assertThatThrownBy(() -> new GroupConfig("g", "", 10_000, 3_000, 1, 1, 1, 1, null, true, "consumer",
                List.of(EAGER))).hasMessageContaining("groupInstanceId");
    }

    @Test
    void aMemberNeedsAssignorsWithARebalanceProtocolInCommon() {
        assertThatThrownBy(() -> new MemberHarness(config(10_000, 3_000, List.of(COOP_ONLY, EAGER))))
                .isInstanceOf(ConfigException.class);
    }
}
