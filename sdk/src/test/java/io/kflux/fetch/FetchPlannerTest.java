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

    final FetchPlanner planner = new FetchPlanner(config((byte) 0));
    /** With {@code isolation.level=read_committed}. */
    final FetchPlanner readCommitted = new FetchPlanner(config((byte) 1));
    final NodeStatus nodes = new NodeStatus();

    static FetchConfig config(byte isolationLevel) {
        return new FetchConfig(500, 1, 50 << 20, 1 << 20, isolationLevel, "", MAX_BUFFERED, 100, true, 300_000);
    }

    static PartitionState at(int partition, long offset) {
        PartitionState ps = new PartitionState(new TopicPartition(FakeFetchIo.TOPIC, partition));
        ps.seek(offset);
        return ps;
    }

    private FetchPlan plan(Cluster cluster, long bufferedBytes, PartitionState... partitions) {
        return planner.plan(List.of(partitions), cluster, bufferedBytes, nodes, NOW);
    }

    /**
     * A partition fetched from 0 up to {@code nextFetchOffset}, its result waiting with the emitter, whose answer
     * reported this high watermark and last stable offset (-1: none).
     */
    static PartitionState fetchedUpTo(int partition, long nextFetchOffset, long highWatermark, long lastStableOffset) {
        PartitionState ps = at(partition, 0);
        ps.logEnd(highWatermark, lastStableOffset, 0);
        ps.fetched(nextFetchOffset, 0);
        return ps;
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

        assertThat(plan(cluster(2, 1, 0), 0, waiting, free).fetches()).as("gathering (issue #32)").isEmpty();
        FetchPlan plan = planner.plan(List.of(waiting, free), cluster(2, 1, 0), 0, nodes,
                NOW + FetchPlanner.GATHER_BOUND_NANOS);

        assertThat(FetchPlanner.MAX_PENDING_FETCHES).isEqualTo(2);
        assertThat(plan.fetches()).singleElement().satisfies(f -> {
            assertThat(f.targets()).extracting(FetchTarget::partition).containsExactly(free);
            assertThat(f.heldBack()).isTrue();
        });
        assertThat(planner.hasHeldBack(1, List.of(waiting, free), cluster(2, 1, 0), 0, NOW)).isTrue();
        assertThat(planner.hasHeldBack(2, List.of(waiting, free), cluster(2, 1, 0), 0, NOW)).isFalse();
    }

    /**
     * Issue #17: at the end of its log with a result waiting, a partition is held back. A prefetch would find nothing
     * new, the broker would hold it for fetch.max.wait.ms, and a seek meanwhile would wait for it.
     */
    @Test
    void aPartitionAtItsEndWithAResultWaitingIsHeldBackAndItsBrokerIsAskedNotToWait() {
        PartitionState atEnd = fetchedUpTo(0, 10, 10, 10);
        PartitionState free = at(1, 0);

        FetchPlan plan = plan(cluster(2, 1, 0), 0, atEnd, free);

        assertThat(atEnd.pendingFetches()).isEqualTo(1);
        assertThat(plan.fetches()).singleElement().satisfies(f -> {
            assertThat(f.targets()).extracting(FetchTarget::partition).containsExactly(free);
            assertThat(f.heldBack()).as("no long poll while tp0 waits").isTrue();
        });
        assertThat(planner.hasHeldBack(1, List.of(atEnd, free), cluster(2, 1, 0), 0, NOW)).isTrue();
        assertThat(plan(cluster(2, 1, 0), 0, atEnd).fetches()).as("alone: no Fetch at all").isEmpty();
    }

    /**
     * A broker holding a partition back whose other partitions are all at their end gets no Fetch: a no-wait one would
     * bring nothing, a long poll would keep the held-back one waiting. One below its end is fetched without a wait.
     */
    @Test
    void aBrokerHoldingAPartitionBackWithTheRestAtTheirEndIsNotAsked() {
        PartitionState atEnd = fetchedUpTo(0, 10, 10, 10);
        PartitionState idle = at(1, 4);
        idle.logEnd(4, 4, 0);

        assertThat(plan(cluster(2, 1, 0), 0, atEnd, idle).fetches()).isEmpty();
        assertThat(planner.hasHeldBack(1, List.of(atEnd, idle), cluster(2, 1, 0), 0, NOW)).isTrue();

        idle.logEnd(6, 6, 0); // an answer told of records past its position
        assertThat(plan(cluster(2, 1, 0), 0, atEnd, idle).fetches()).singleElement().satisfies(f -> {
            assertThat(f.targets()).extracting(FetchTarget::partition).containsExactly(idle);
            assertThat(f.heldBack()).isTrue();
        });
    }

    /** Below the end one waiting result holds nothing back: the next records are fetched while it is emitted. */
    @Test
    void belowItsEndAPartitionWithAResultWaitingIsStillPrefetched() {
        PartitionState behind = fetchedUpTo(0, 10, 11, 11);

        FetchPlan plan = plan(cluster(1, 1, 0), 0, behind);

        assertThat(plan.fetches()).singleElement().satisfies(f -> {
            assertThat(f.targets()).extracting(FetchTarget::fetchOffset).containsExactly(10L);
            assertThat(f.heldBack()).isFalse();
        });
        assertThat(planner.hasHeldBack(1, List.of(behind), cluster(1, 1, 0), 0, NOW)).isFalse();
    }

    /** Once its result is emitted, a partition at its end is fetched (and may be long-polled: nothing waits). */
    @Test
    void aPartitionAtItsEndIsFetchedOnceItsResultIsEmitted() {
        PartitionState atEnd = fetchedUpTo(0, 10, 10, 10);
        assertThat(plan(cluster(1, 1, 0), 0, atEnd).fetches()).isEmpty();

        atEnd.fetchConsumed();

        assertThat(plan(cluster(1, 1, 0), 0, atEnd).fetches()).singleElement().satisfies(f -> {
            assertThat(f.targets()).extracting(FetchTarget::fetchOffset).containsExactly(10L);
            assertThat(f.heldBack()).isFalse();
        });
        assertThat(planner.hasHeldBack(1, List.of(atEnd), cluster(1, 1, 0), 0, NOW)).isFalse();
    }

    /**
     * A seek back while held back at the end is fetched in the next plan, though the old result still waits with the
     * emitter (it is stale and will be dropped). A seek to or past the end stays held back until that result left.
     */
    @Test
    void aSeekBackWhileHeldBackAtTheEndIsPlannedAtOnce() {
        PartitionState atEnd = fetchedUpTo(0, 10, 10, 10);
        assertThat(plan(cluster(1, 1, 0), 0, atEnd).fetches()).isEmpty();

        atEnd.seek(0);

        assertThat(atEnd.pendingFetches()).as("the stale result has not left the emitter yet").isEqualTo(1);
        assertThat(plan(cluster(1, 1, 0), 0, atEnd).fetches()).singleElement().satisfies(f -> {
            assertThat(f.targets()).extracting(FetchTarget::fetchOffset).containsExactly(0L);
            assertThat(f.heldBack()).isFalse();
        });

        PartitionState seekedPast = fetchedUpTo(0, 10, 10, 10);
        seekedPast.seek(12);
        assertThat(plan(cluster(1, 1, 0), 0, seekedPast).fetches()).as("past the known end").isEmpty();
        seekedPast.fetchConsumed();
        assertThat(plan(cluster(1, 1, 0), 0, seekedPast).fetches()).singleElement()
                .satisfies(f -> assertThat(f.targets()).extracting(FetchTarget::fetchOffset).containsExactly(12L));
    }

    /**
     * Under read_committed the end is the last stable offset (as for lag): a partition fetched up to it waits for its
     * emission even though the high watermark (an open transaction) is further on; read_uncommitted prefetches it.
     */
    @Test
    void underReadCommittedTheEndIsTheLastStableOffset() {
        PartitionState atStable = fetchedUpTo(0, 10, 20, 10);

        assertThat(readCommitted.plan(List.of(atStable), cluster(1, 1, 0), 0, nodes, NOW).fetches()).isEmpty();
        assertThat(readCommitted.hasHeldBack(1, List.of(atStable), cluster(1, 1, 0), 0, NOW)).isTrue();
        assertThat(plan(cluster(1, 1, 0), 0, atStable).fetches()).as("read_uncommitted: below the high watermark")
                .singleElement().satisfies(f -> assertThat(f.heldBack()).isFalse());
    }

    /**
     * With no end known (never answered; or a broker before Fetch v4 giving no last stable offset under
     * read_committed) a waiting result does not hold a partition back: it is prefetched as below the end.
     */
    @Test
    void withoutAKnownEndAPartitionIsNotHeldBackByTheEndRule() {
        PartitionState neverAnswered = at(0, 0);
        neverAnswered.fetched(10, 0);
        assertThat(plan(cluster(1, 1, 0), 0, neverAnswered).fetches()).singleElement()
                .satisfies(f -> assertThat(f.targets()).extracting(FetchTarget::fetchOffset).containsExactly(10L));

        PartitionState noStableOffset = fetchedUpTo(0, 10, 10, -1);
        assertThat(readCommitted.plan(List.of(noStableOffset), cluster(1, 1, 0), 0, nodes, NOW).fetches())
                .singleElement().satisfies(f -> assertThat(f.heldBack()).isFalse());
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
        nodes.holdOff(1, NOW + 1);
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

    /** Eight partitions of broker 1: the first {@code drained} hold one result, {@code empty} none, the rest two. */
    static List<PartitionState> slowRound(int drained, int empty) {
        List<PartitionState> ps = new java.util.ArrayList<>();
        for (int p = 0; p < 8; p++) {
            PartitionState s = at(p, 0);
            s.logEnd(1_000_000, 1_000_000, 0); // far below the end: never held back by the end rule
            int results = p < drained ? 1 : p < drained + empty ? 0 : 2;
            for (int r = 1; r <= results; r++) {
                s.fetched(r * 100L, 0);
            }
            ps.add(s);
        }
        return ps;
    }

    private static List<Integer> planned(FetchPlan plan) {
        return plan.fetches().stream().flatMap(f -> f.targets().stream())
                .map(t -> t.partition().topicPartition().partition()).toList();
    }

    /**
     * Issue #32: while the other partitions of its broker still hold two results each, a partition whose older result
     * drained (one still waiting) gets no Fetch of its own; once none holds two, one Fetch carries all eight.
     */
    @Test
    void aDrainedPartitionWaitsForItsBrokersRoundToDrainAndThenOneFetchCarriesAll() {
        for (int drained = 1; drained < 8; drained++) {
            FetchPlan plan = planner.plan(slowRound(drained, 0), cluster(8, 1, 0), 0, nodes, NOW);
            assertThat(plan.fetches()).as("%d of 8 drained", drained).isEmpty();
            assertThat(plan.wakeAtNanos()).as("each has a result waiting: no deadline").isEqualTo(FetchPlan.NO_WAKE);
        }

        FetchPlan round = planner.plan(slowRound(8, 0), cluster(8, 1, 0), 0, nodes, NOW);

        assertThat(round.fetches()).singleElement().satisfies(f -> assertThat(f.heldBack()).isFalse());
        assertThat(planned(round)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    }

    /**
     * Issue #32, the bound: a partition left with no result waiting while the others hold two is not fetched at once,
     * the plan names when it is due, and at that time it is planned (with every partition that may be fetched).
     */
    @Test
    void aPartitionWithNothingWaitingIsFetchedWithinTheGatherBound() {
        List<PartitionState> ps = slowRound(2, 1); // 0 and 1 hold one result, 2 none, 3-7 two

        FetchPlan first = planner.plan(ps, cluster(8, 1, 0), 0, nodes, NOW);
        FetchPlan later = planner.plan(ps, cluster(8, 1, 0), 0, nodes, NOW + FetchPlanner.GATHER_BOUND_NANOS - 1);
        FetchPlan due = planner.plan(ps, cluster(8, 1, 0), 0, nodes, NOW + FetchPlanner.GATHER_BOUND_NANOS);

        assertThat(FetchPlanner.GATHER_BOUND_NANOS).as("a few ms").isBetween(1_000_000L, 10_000_000L);
        assertThat(first.fetches()).isEmpty();
        assertThat(first.wakeAtNanos()).isEqualTo(NOW + FetchPlanner.GATHER_BOUND_NANOS);
        assertThat(later.fetches()).isEmpty();
        assertThat(later.wakeAtNanos()).as("the bound runs from the first plan that left it waiting")
                .isEqualTo(NOW + FetchPlanner.GATHER_BOUND_NANOS);
        assertThat(planned(due)).containsExactly(0, 1, 2);
        assertThat(due.fetches()).singleElement().satisfies(f -> assertThat(f.heldBack()).isTrue());

        nodes.sent(1); // the Fetch went out: a partition left empty later starts a new bound
        nodes.answered(1);
        assertThat(planner.plan(ps, cluster(8, 1, 0), 0, nodes, NOW + 50_000_000L).wakeAtNanos())
                .isEqualTo(NOW + 50_000_000L + FetchPlanner.GATHER_BOUND_NANOS);
    }

    /**
     * Issue #32, the low-water mark: a broker whose partitions' results waiting are down to half a result per
     * partition is asked at once (the answer comes while the rest is emitted), not when half of them are empty.
     */
    @Test
    void aBrokerWhoseResultsAreNearlyDrainedIsAskedAtOnce() {
        assertThat(planner.plan(slowRound(1, 4), cluster(8, 1, 0), 0, nodes, NOW).fetches())
                .as("half empty, 7 results waiting: gathering").isEmpty();
        assertThat(planner.plan(slowRound(0, 5), cluster(8, 1, 0), 0, nodes, NOW).fetches())
                .as("6 results waiting").isEmpty();

        FetchPlan plan = planner.plan(slowRound(0, 6), cluster(8, 1, 0), 0, nodes, NOW);

        assertThat(planned(plan)).as("4 results waiting for 8 partitions").containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(plan.wakeAtNanos()).isEqualTo(FetchPlan.NO_WAKE);
    }

    /**
     * Issue #32: the gathering bound follows the emitter's pace, half a round of results: 5 ms while results drain
     * fast (or no pace is known), 4 x 10 ms for eight partitions whose results take 10 ms each, 50 ms at most.
     */
    @Test
    void theGatherBoundIsHalfARoundAtTheEmittersPace() {
        assertThat(planner.plan(slowRound(2, 1), cluster(8, 1, 0), 0, nodes, NOW).wakeAtNanos())
                .isEqualTo(NOW + FetchPlanner.GATHER_BOUND_NANOS);
        for (int i = 0; i <= 20; i++) {
            nodes.resultDrained(NOW + i * 10_000_000L);
        }
        nodes.stopGathering(1);
        assertThat(planner.plan(slowRound(2, 1), cluster(8, 1, 0), 0, nodes, NOW).wakeAtNanos())
                .isEqualTo(NOW + 40_000_000L);

        for (int i = 21; i <= 40; i++) {
            nodes.resultDrained(NOW + i * 1_000_000_000L); // gaps of a second count as 100 ms
        }
        nodes.stopGathering(1);
        assertThat(planner.plan(slowRound(2, 1), cluster(8, 1, 0), 0, nodes, NOW).wakeAtNanos())
                .isEqualTo(NOW + FetchPlanner.MAX_GATHER_BOUND_NANOS);
    }

    /**
     * Issue #32: gathering is per broker. A partition alone on its broker (here fetched from replica 2, KIP-392) is
     * fetched at once with a result waiting, while broker 1's drained partitions wait for its round.
     */
    @Test
    void aPartitionAloneOnItsBrokerIsNeverDelayedByAnotherBrokersRound() {
        List<PartitionState> ps = slowRound(1, 0);
        PartitionState alone = ps.get(0);
        alone.preferReadReplica(2, NOW + 1_000_000_000L);

        FetchPlan plan = planner.plan(ps, cluster(8, 1, 0), 0, nodes, NOW);

        assertThat(plan.fetches()).singleElement().satisfies(f -> {
            assertThat(f.node().id()).isEqualTo(2);
            assertThat(f.targets()).extracting(FetchTarget::partition).containsExactly(alone);
        });
        assertThat(planner.plan(List.of(slowRound(2, 0).get(1)), cluster(8, 1, 0), 0, nodes, NOW).fetches())
                .as("one partition with one result waiting, alone on broker 1").hasSize(1);
    }

    /**
     * Issue #32 keeps issue #17's rule: a partition at its end with a result waiting is held back and does not count
     * as two results waiting, so the others' round is fetched; the Fetch asks for no wait.
     */
    @Test
    void aPartitionHeldBackAtItsEndDoesNotStopItsBrokersRound() {
        List<PartitionState> ps = new java.util.ArrayList<>(slowRound(7, 0).subList(0, 7));
        ps.add(fetchedUpTo(7, 10, 10, 10));

        FetchPlan plan = planner.plan(ps, cluster(8, 1, 0), 0, nodes, NOW);

        assertThat(planned(plan)).containsExactly(0, 1, 2, 3, 4, 5, 6);
        assertThat(plan.fetches()).singleElement().satisfies(f -> assertThat(f.heldBack()).isTrue());
    }
}
