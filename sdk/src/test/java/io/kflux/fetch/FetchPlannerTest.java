package io.kflux.fetch;

import static io.kflux.fetch.FakeFetchIo.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicAuthorizationException;
import io.kflux.TopicPartition;
import io.kflux.metadata.Cluster;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.MetadataResponse;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseBroker;
import io.kflux.protocol.message.MetadataResponse.MetadataResponsePartition;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseTopic;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link FetchPlanner} on plain values: partition states, a metadata snapshot, buffered bytes and node status in, a
 * {@link FetchPlan} out; nothing is sent and no clock is read.
 */
class FetchPlannerTest {
    static final long MAX_BUFFERED = 1_000;
    static final long NOW = 5_000_000_000L;

    final FetchPlanner planner = new FetchPlanner(new FetchConfig(500, 1, 50 << 20, 1 << 20, (byte) 0, "",
            MAX_BUFFERED, 100, true, 300_000));
    final NodeStatus nodes = new NodeStatus();

    static PartitionState at(int partition, long offset) {
        PartitionState ps = new PartitionState(new TopicPartition(FakeFetchIo.TOPIC, partition));
        ps.seek(offset);
        return ps;
    }

    private FetchPlan plan(Cluster cluster, long bufferedBytes, PartitionState... partitions) {
        return planner.plan(List.of(partitions), cluster, bufferedBytes, nodes, NOW);
    }

    @Test
    void fetchablePartitionsOfOneLeaderGoIntoOneFetchAtTheirOffsetsUnderTheMetadataEpoch() {
        PartitionState p0 = at(0, 5);
        PartitionState p1 = at(1, 9);

        FetchPlan plan = plan(cluster(2, 1, 3), 0, p0, p1);

        assertThat(plan.failure()).isNull();
        assertThat(plan.needMetadata()).isFalse();
        assertThat(plan.needReset()).isFalse();
        assertThat(plan.needValidation()).isFalse();
        assertThat(plan.fetches()).singleElement().satisfies(f -> {
            assertThat(f.node().id()).isEqualTo(1);
            assertThat(f.heldBack()).isFalse();
            assertThat(f.targets()).extracting(FetchTarget::partition).containsExactly(p0, p1);
            assertThat(f.targets()).extracting(FetchTarget::fetchOffset).containsExactly(5L, 9L);
            assertThat(f.targets()).extracting(FetchTarget::leaderEpoch).containsExactly(3, 3);
        });
        assertThat(p0.state()).as("planned, not sent").isEqualTo(FetchState.FETCHABLE);
    }

    @Test
    void aPartitionWithTwoResultsWaitingIsHeldBackAndItsBrokerIsAskedNotToWait() {
        PartitionState waiting = at(0, 0);
        waiting.fetched(10, 0);
        waiting.fetched(20, 0);
        PartitionState free = at(1, 0);

        FetchPlan plan = plan(cluster(2, 1, 0), 0, waiting, free);

        assertThat(FetchPlanner.MAX_PENDING_FETCHES).isEqualTo(2);
        assertThat(plan.fetches()).singleElement().satisfies(f -> {
            assertThat(f.targets()).extracting(FetchTarget::partition).containsExactly(free);
            assertThat(f.heldBack()).isTrue();
        });
        assertThat(planner.hasHeldBack(1, List.of(waiting, free), cluster(2, 1, 0), 0, NOW)).isTrue();
        assertThat(planner.hasHeldBack(2, List.of(waiting, free), cluster(2, 1, 0), 0, NOW)).isFalse();
    }

    @Test
    void aFullBufferHoldsEveryPartitionBack() {
        PartitionState p0 = at(0, 0);

        assertThat(plan(cluster(1, 1, 0), MAX_BUFFERED, p0).fetches()).isEmpty();
        assertThat(plan(cluster(1, 1, 0), MAX_BUFFERED - 1, p0).fetches()).hasSize(1);
    }

    @Test
    void aBrokerWithAFetchInFlightIdleOrThrottledGetsNoFetchUntilItIsReady() {
        PartitionState p0 = at(0, 0);
        nodes.sent(1);
        assertThat(plan(cluster(1, 1, 0), 0, p0).fetches()).as("in flight").isEmpty();
        nodes.answered(1);
        nodes.idle(1);
        assertThat(plan(cluster(1, 1, 0), 0, p0).fetches()).as("idle").isEmpty();
        nodes.wakeAll();
        nodes.throttle(1, NOW + 1);
        assertThat(plan(cluster(1, 1, 0), 0, p0).fetches()).as("throttled for 1 ns more").isEmpty();

        assertThat(planner.plan(List.of(p0), cluster(1, 1, 0), 0, nodes, NOW + 1).fetches()).hasSize(1);
    }

    @Test
    void pausedPartitionsAreNotPlanned() {
        PartitionState p0 = at(0, 0);
        p0.paused(true);

        FetchPlan plan = plan(cluster(1, 1, 0), 0, p0);

        assertThat(plan.fetches()).isEmpty();
        assertThat(plan.needMetadata()).isFalse();
    }

    @Test
    void aPartitionWithoutALeaderAsksForMetadataAndNotesSinceWhenItWaits() {
        PartitionState p0 = at(0, 0);

        FetchPlan plan = plan(cluster(1, -1, 0), 0, p0);

        assertThat(plan.fetches()).isEmpty();
        assertThat(plan.needMetadata()).isTrue();
        assertThat(p0.leaderlessSinceNanos()).isEqualTo(NOW | 1L);
        assertThat(plan(cluster(1, 1, 0), 0, p0).fetches()).as("a leader again").hasSize(1);
        assertThat(p0.leaderlessSinceNanos()).isZero();
    }

    @Test
    void aPartitionAwaitingResetAsksForOneOnlyOnceItsLeaderIsKnown() {
        PartitionState p0 = new PartitionState(new TopicPartition(FakeFetchIo.TOPIC, 0));
        p0.requireReset();

        FetchPlan leaderless = plan(cluster(1, -1, 0), 0, p0);
        assertThat(leaderless.needReset()).isFalse();
        assertThat(leaderless.needMetadata()).isTrue();

        FetchPlan led = plan(cluster(1, 1, 0), 0, p0);
        assertThat(led.needReset()).isTrue();
        assertThat(led.fetches()).isEmpty();
        assertThat(p0.state()).as("the reset moves it, not the planner").isEqualTo(FetchState.AWAITING_RESET);
    }

    /** KIP-320: a higher leader epoch than the one the position was fetched under holds the partition for validation. */
    @Test
    void aHigherLeaderEpochAfterFetchingSendsThePartitionToValidation() {
        PartitionState p0 = at(0, 0);
        assertThat(plan(cluster(1, 1, 1), 0, p0).fetches()).hasSize(1);
        p0.fetched(10, 1);
        p0.fetchConsumed();

        FetchPlan plan = plan(cluster(1, 2, 2), 0, p0);

        assertThat(plan.fetches()).isEmpty();
        assertThat(plan.needValidation()).isTrue();
        assertThat(p0.state()).isEqualTo(FetchState.AWAITING_VALIDATION);
    }

    /** KIP-392: the preferred read replica while its lease runs, then the leader again. */
    @Test
    void aPreferredReadReplicaIsPlannedUntilItsLeaseEnds() {
        PartitionState p0 = at(0, 0);
        p0.preferReadReplica(2, NOW + 1_000);

        assertThat(plan(cluster(1, 1, 0), 0, p0).fetches()).singleElement()
                .satisfies(f -> assertThat(f.node().id()).isEqualTo(2));
        assertThat(planner.plan(List.of(p0), cluster(1, 1, 0), 0, nodes, NOW + 1_000).fetches()).singleElement()
                .satisfies(f -> assertThat(f.node().id()).isEqualTo(1));
        assertThat(p0.preferredReadReplica()).isEqualTo(-1);
    }

    @Test
    void anUnauthorizedTopicFailsThePlanAndPlansNothing() {
        MetadataResponse r = new MetadataResponse(0, List.of(new MetadataResponseBroker(1, "broker1", 9092, null)),
                "cluster", 1, List.of(new MetadataResponseTopic(Errors.TOPIC_AUTHORIZATION_FAILED.code(),
                FakeFetchIo.TOPIC, FakeFetchIo.TOPIC_ID, false, List.<MetadataResponsePartition>of(), 0)), 0, (short) 0);

        FetchPlan plan = plan(Cluster.from(r, Cluster.EMPTY, false, 1L), 0, at(0, 0));

        assertThat(plan.failure()).isInstanceOfSatisfying(TopicAuthorizationException.class,
                e -> assertThat(e.getMessage()).contains("TOPIC_AUTHORIZATION_FAILED"));
        assertThat(plan.fetches()).isEmpty();
        assertThat(plan.needMetadata()).isFalse();
    }
}
