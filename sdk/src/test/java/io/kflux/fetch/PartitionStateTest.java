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
        assertThat(ps.advance(10, 20, 3)).isTrue();
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

    /**
     * The emitter moves the position from where it chose its record; a seek that landed in between wins (the record
     * is stale), unless the seek was to that very position. The epoch is written only when it changes.
     */
    @Test
    void anAdvanceFromAPositionASeekHasMovedIsRefusedAndLeavesTheSeekIntact() {
        PartitionState ps = new PartitionState(new TopicPartition("t", 0));
        ps.seekUnvalidated(10, 4);
        assertThat(ps.advance(10, 11, 4)).isTrue();
        assertThat(ps.position()).isEqualTo(11L);

        ps.seekUnvalidated(50, 2); // lands while the record at 11 is built
        assertThat(ps.advance(11, 12, 4)).as("same epoch: the compare-and-set path").isFalse();
        assertThat(ps.advance(11, 12, 5)).as("new epoch: the locked path").isFalse();
        assertThat(ps.position()).isEqualTo(50L);
        assertThat(ps.lastEmittedEpoch()).as("the seek's epoch stays").isEqualTo(2);

        ps.seek(50); // a seek to where the emitter already is: emitting the record at 50 satisfies it
        assertThat(ps.advance(50, 51, 5)).isTrue();
        assertThat(ps.position()).isEqualTo(51L);
        assertThat(ps.lastEmittedEpoch()).isEqualTo(5);
        assertThat(ps.advance(51, 52, -1)).as("an unknown epoch leaves the last known one").isTrue();
        assertThat(ps.lastEmittedEpoch()).isEqualTo(5);
    }
}
