package io.kflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AcknowledgeTypeTest {
    /** The ids the official share consumer sends for the types kafka-clients 4.1.1 knows (RENEW came in 4.2). */
    @Test
    void wireIdsAreTheOfficialOnes() {
        for (org.apache.kafka.clients.consumer.AcknowledgeType official : org.apache.kafka.clients.consumer.AcknowledgeType.values()) {
            AcknowledgeType ours = AcknowledgeType.valueOf(official.name());
            assertThat(ours.id()).as(official.name()).isEqualTo(official.id);
            assertThat(AcknowledgeType.forId(official.id)).isSameAs(ours);
        }
        assertThat(AcknowledgeType.RENEW.id()).isEqualTo((byte) 4);
        assertThatThrownBy(() -> AcknowledgeType.forId((byte) 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no acknowledge type has id 0");
    }
}
