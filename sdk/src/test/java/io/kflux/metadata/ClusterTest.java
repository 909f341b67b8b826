package io.kflux.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.protocol.message.MetadataResponse;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseBroker;
import io.kflux.protocol.message.MetadataResponse.MetadataResponsePartition;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseTopic;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Snapshots from Metadata answers: a leader epoch that goes down is not followed (issue #15). */
class ClusterTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final UUID ID = UUID.randomUUID();

    private static MetadataResponse answer(UUID topicId, int leader, int epoch) {
        return new MetadataResponse(0, List.of(new MetadataResponseBroker(1, "h", 1, null),
                new MetadataResponseBroker(2, "h", 2, null)), "c", 1,
                List.of(new MetadataResponseTopic((short) 0, "t", topicId, false,
                        List.of(new MetadataResponsePartition((short) 0, 0, leader, epoch, List.of(1, 2), List.of(1, 2),
                                List.of())), MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED)),
                MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED, (short) 0);
    }

    private static Cluster next(Cluster previous, MetadataResponse response) {
        return Cluster.from(response, previous, false, 0L);
    }

    @Test
    void aLowerLeaderEpochKeepsThePreviousLeader() {
        Cluster first = next(null, answer(ID, 2, 5));
        Cluster stale = next(first, answer(ID, 1, 3)); // a broker whose metadata lags names the former leader
        assertThat(stale.partition(TP).leaderId()).isEqualTo(2);
        assertThat(stale.partition(TP).leaderEpoch()).isEqualTo(5);
        assertThat(stale.leader(TP).id()).isEqualTo(2);
    }

    @Test
    void theSameOrAHigherEpochIsTaken() {
        Cluster first = next(null, answer(ID, 2, 5));
        assertThat(next(first, answer(ID, 1, 5)).partition(TP).leaderId()).isEqualTo(1);
        Cluster higher = next(first, answer(ID, 1, 6));
        assertThat(higher.partition(TP).leaderId()).isEqualTo(1);
        assertThat(higher.partition(TP).leaderEpoch()).isEqualTo(6);
    }

    @Test
    void noEpochOrATopicCreatedAgainIsTakenAsItIs() {
        Cluster first = next(null, answer(ID, 2, 5));
        assertThat(next(first, answer(ID, -1, -1)).partition(TP).leaderId()).as("no epoch: no leader now").isEqualTo(-1);
        Cluster recreated = next(first, answer(UUID.randomUUID(), 1, 0)); // same name, new id: epochs start again
        assertThat(recreated.partition(TP).leaderId()).isEqualTo(1);
        assertThat(recreated.partition(TP).leaderEpoch()).isZero();
    }
}
