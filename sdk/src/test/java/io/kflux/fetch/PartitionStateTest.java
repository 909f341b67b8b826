package io.kflux.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import org.junit.jupiter.api.Test;

class PartitionStateTest {

    /** Starting the fetch over at the position drops buffered results but is no new start for ack tracking. */
    @Test
    void refetchingFromThePositionKeepsThePositionAndItsTracking() {
        PartitionState ps = new PartitionState(new TopicPartition("t", 0));
        ps.seek(10);
        ps.fetched(40, 2); // 30 records buffered, 10 of them emitted
        ps.advance(20, 3);
        int seekEpoch = ps.seekEpoch();
        int positionEpoch = ps.positionEpoch();

        ps.refetchFromPosition();

        assertThat(ps.position()).isEqualTo(20L);
        assertThat(ps.fetchOffset()).isEqualTo(20L);
        assertThat(ps.lastFetchedEpoch()).isEqualTo(3);
        assertThat(ps.seekEpoch()).as("buffered results are stale").isNotEqualTo(seekEpoch);
        assertThat(ps.positionEpoch()).as("tracking goes on").isEqualTo(positionEpoch);
    }

    @Test
    void aChangedTopicIdIsReportedOnceAndTheFirstIdIsOnlyNoted() {
        PartitionState ps = new PartitionState(new TopicPartition("t", 0));
        java.util.UUID first = java.util.UUID.randomUUID();
        java.util.UUID second = java.util.UUID.randomUUID();

        assertThat(ps.topicIdChanged(io.kflux.protocol.Types.ZERO_UUID)).as("unknown ids are ignored").isFalse();
        assertThat(ps.topicIdChanged(first)).as("the first id seen is no change").isFalse();
        assertThat(ps.topicIdChanged(first)).isFalse();
        assertThat(ps.topicIdChanged(io.kflux.protocol.Types.ZERO_UUID)).isFalse();
        assertThat(ps.topicIdChanged(second)).as("deleted and created again").isTrue();
        assertThat(ps.previousTopicId()).isEqualTo(first);
        assertThat(ps.topicIdChanged(second)).isFalse();
    }

    @Test
    void aSeekStartsTrackingAfresh() {
        PartitionState ps = new PartitionState(new TopicPartition("t", 0));
        ps.seek(10);
        int positionEpoch = ps.positionEpoch();

        ps.seek(5);

        assertThat(ps.positionEpoch()).isNotEqualTo(positionEpoch);
        assertThat(ps.fetchOffset()).isEqualTo(5L);
    }
}
