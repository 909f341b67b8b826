package io.kflux.group;

import static io.kflux.group.MemberHarness.joined;
import static io.kflux.group.MemberHarness.tp;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import io.kflux.group.MemberHarness.TestAssignor;
import io.kflux.group.assignor.RebalanceProtocol;
import io.kflux.protocol.Errors;
import io.kflux.protocol.consumer.ConsumerProtocolSubscription;
import io.kflux.protocol.message.HeartbeatRequest;
import io.kflux.protocol.message.HeartbeatResponse;
import io.kflux.protocol.message.JoinGroupRequest;
import io.kflux.protocol.message.LeaveGroupRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** leave, max.poll.interval.ms, static membership, subscriptions, the coordinator accessor, listener bounds. */
class ClassicGroupMemberLifecycleTest {
    private MemberHarness h;

    @AfterEach
    void noLoopErrors() {
        if (h != null) {
            assertThat(h.loopErrors).isEmpty();
            h.member.close();
        }
    }

    private static MemberHarness staticMember() {
        return new MemberHarness(MemberHarness.config("i1", new TestAssignor("range", RebalanceProtocol.EAGER)));
    }

    // ------------------------------------------------------------------ leave

    @Test
    void leaveRevokesThenSendsLeaveGroupAndStopsHeartbeats() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(3, "range", tp("t", 0));
        StepVerifier.create(h.member.leave("the consumer is being closed")).verifyComplete();
        assertThat(h.listener.kinds()).containsExactly("assigned", "revoked");
        LeaveGroupRequest leave = h.channel().sent(LeaveGroupRequest.class).get(0);
        assertThat(leave.groupId()).isEqualTo("g");
        assertThat(leave.memberId()).isEqualTo("m1");
        assertThat(leave.members()).singleElement().satisfies(m -> {
            assertThat(m.memberId()).isEqualTo("m1");
            assertThat(m.groupInstanceId()).isNull();
            assertThat(m.reason()).isEqualTo("the consumer is being closed");
        });
        assertThat(h.state()).isEqualTo(MemberState.LEFT);
        assertThat(h.member.assignment()).isEmpty();
        assertThat(h.member.generationId()).isEqualTo(-1);
        int sent = h.channel().sent.size();
        h.advance(60_000);
        assertThat(h.channel().sent).hasSize(sent);
    }

    @Test
    void aReasonLongerThan255CharactersIsCutTo255() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(3, "range", tp("t", 0));
        String reason = "x".repeat(250) + "0123456789";
        StepVerifier.create(h.member.leave(reason)).verifyComplete();
        LeaveGroupRequest leave = h.channel().sent(LeaveGroupRequest.class).get(0);
        assertThat(leave.members()).singleElement().satisfies(m ->
                assertThat(m.reason()).isEqualTo("x".repeat(250) + "01234"));
        assertThat(h.state()).isEqualTo(MemberState.LEFT);
    }

    @Test
    void aReasonOf255CharactersOrNoneIsSentAsGiven() {
        assertThat(ClassicLeave.truncate(null)).isNull();
        String exact = "y".repeat(ClassicLeave.MAX_REASON_LENGTH);
        assertThat(ClassicLeave.truncate(exact)).isSameAs(exact);
    }

    @Test
    void aLeaveAfterTheMemberLeftSendsNothingMoreAndCompletes() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(3, "range", tp("t", 0));
        StepVerifier.create(h.member.leave("first")).verifyComplete();
        StepVerifier.create(h.member.leave("second")).verifyComplete();
        assertThat(h.channel().sent(LeaveGroupRequest.class)).singleElement().satisfies(l ->
                assertThat(l.members()).singleElement().satisfies(m -> assertThat(m.reason()).isEqualTo("first")));
        assertThat(h.listener.kinds()).containsExactly("assigned", "revoked");
        assertThat(h.state()).isEqualTo(MemberState.LEFT);
    }

    @Test
    void aStaticMemberLeavesWithoutLeaveGroup() {
        h = staticMember();
        h.startAndDiscover("t");
        h.joinAsFollower(3, "range", tp("t", 0));
        StepVerifier.create(h.member.leave("closing")).verifyComplete();
        assertThat(h.listener.kinds()).containsExactly("assigned", "revoked");
        assertThat(h.channel().sent(LeaveGroupRequest.class)).isEmpty();
        assertThat(h.state()).isEqualTo(MemberState.LEFT);
    }

    @Test
    void leavingDuringARebalanceReportsThePartitionsLost() {
        h = MemberHarness.cooperative();
        h.startAndDiscover("t");
        h.joinAsFollower(3, "cooperative-sticky", tp("t", 0));
        h.io.heartbeatAnswer = r -> new HeartbeatResponse(0, Errors.REBALANCE_IN_PROGRESS.code());
        h.advance(3_000);
        assertThat(h.state()).isEqualTo(MemberState.JOINING);
        StepVerifier.create(h.member.leave("closing")).verifyComplete();
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost");
        assertThat(h.channel().sent(LeaveGroupRequest.class)).hasSize(1);
    }

    @Test
    void leaveWaitsForASlowRevokeListener() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(3, "range", tp("t", 0));
        h.listener.revoked = s -> Mono.delay(Duration.ofSeconds(5), h.time).then();
        AtomicBoolean done = new AtomicBoolean();
        h.member.leave("closing").subscribe(null, null, () -> done.set(true));
        assertThat(h.state()).isEqualTo(MemberState.LEAVING);
        h.advance(4_999);
        assertThat(done).isFalse();
        assertThat(h.channel().sent(LeaveGroupRequest.class)).isEmpty();
        h.advance(1);
        assertThat(done).isTrue();
        assertThat(h.channel().sent(LeaveGroupRequest.class)).hasSize(1);
    }

    @Test
    void leaveBeforeStartCompletesAtOnce() {
        h = MemberHarness.eager();
        StepVerifier.create(h.member.leave("x")).verifyComplete();
        assertThat(h.listener.calls).isEmpty();
    }

    // ------------------------------------------------------------------ max.poll.interval.ms

    @Test
    void pollTimeoutLeavesTheGroupLosesThePartitionsAndRejoinsWhenDemandReturns() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(3, "range", tp("t", 0));
        h.member.pollTimeoutExpired();
        assertThat(h.channel().sent(LeaveGroupRequest.class)).singleElement()
                .satisfies(l -> assertThat(l.members().get(0).reason()).isEqualTo(ClassicGroupMember.POLL_TIMEOUT_REASON));
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost");
        assertThat(h.member.assignment()).isEmpty();
        assertThat(h.state()).isEqualTo(MemberState.STALE);
        assertThat(h.member.memberId()).isEmpty();
        assertThat(h.member.generationId()).isEqualTo(-1);
        int heartbeats = h.channel().sent(HeartbeatRequest.class).size();
        h.advance(60_000);
        assertThat(h.channel().sent(HeartbeatRequest.class)).hasSize(heartbeats);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();

        h.member.pollResumed();
        assertThat(h.state()).isEqualTo(MemberState.JOINING);
        var pending = h.takeJoin();
        JoinGroupRequest join = pending.request(JoinGroupRequest.class);
        assertThat(join.memberId()).isEmpty();
        assertThat(MemberHarness.subscriptionOf(join, 0).generationId()).isEqualTo(-1);
        h.joinAsFollower(pending, 5, "range", tp("t", 0));
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost", "assigned");
    }

    @Test
    void aStaticMemberDoesNotSendLeaveGroupOnPollTimeout() {
        h = staticMember();
        h.startAndDiscover("t");
        h.joinAsFollower(3, "range", tp("t", 0));
        h.member.pollTimeoutExpired();
        assertThat(h.channel().sent(LeaveGroupRequest.class)).isEmpty();
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost");
        h.member.pollResumed();
        assertThat(h.takeJoin().request(JoinGroupRequest.class).groupInstanceId()).isEqualTo("i1");
    }

    @Test
    void pollTimeoutDuringAJoinAbandonsIt() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        var join = h.takeJoin();
        h.member.pollTimeoutExpired();
        join.answer(joined(1, "m1", "other", "range", List.of()));
        assertThat(h.channel().sent(io.kflux.protocol.message.SyncGroupRequest.class)).isEmpty();
        assertThat(h.state()).isEqualTo(MemberState.STALE);
    }

    // ------------------------------------------------------------------ subscriptions

    @Test
    void patternSubscriptionJoinsWithTheMatchingTopicsAndRejoinsForNewOnes() {
        h = MemberHarness.eager();
        h.io.cluster = FakeGroupIo.cluster(Map.of("orders-eu", 1, "orders-us", 2, "payments", 1, "orders-int", 1),
                "orders-int");
        h.member.subscribe(Pattern.compile("orders-.*"));
        h.member.start();
        assertThat(h.io.interestAll).isTrue();
        h.io.answerFind(1);
        var pending = h.takeJoin();
        JoinGroupRequest join = pending.request(JoinGroupRequest.class);
        assertThat(MemberHarness.subscriptionOf(join, 0).topics()).containsExactly("orders-eu", "orders-us");
        h.joinAsFollower(pending, 1, "range", tp("orders-eu", 0));

        h.advance(3_000);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();

        h.io.cluster = FakeGroupIo.cluster(Map.of("orders-eu", 1, "orders-us", 2, "orders-ap", 1));
        h.advance(3_000); // the next heartbeat answer notices the new snapshot
        JoinGroupRequest again = h.takeJoin().request(JoinGroupRequest.class);
        assertThat(MemberHarness.subscriptionOf(again, 0).topics()).containsExactly("orders-ap", "orders-eu", "orders-us");
    }

    @Test
    void theMemberRefreshesNothingPeriodicallyButChecksEverySnapshotAtOnce() {
        h = MemberHarness.eager();
        h.io.cluster = FakeGroupIo.cluster(Map.of("orders-eu", 1)); // a missing topic would be looked up sooner
        h.member.subscribe(Pattern.compile("orders-.*"));
        h.member.start();
        h.io.answerFind(1);
        h.joinAsFollower(1, "range", tp("orders-eu", 0));
        int before = h.io.refreshCount;
        h.advance(1_000_000);
        assertThat(h.io.refreshCount).as("metadata.max.age.ms belongs to the consumer's MetadataManager")
                .isEqualTo(before);
        h.io.cluster = FakeGroupIo.cluster(Map.of("orders-eu", 1, "orders-us", 1));
        h.io.publish(); // the consumer's periodic refresh: noticed at once, not at the next heartbeat answer
        JoinGroupRequest again = h.takeJoin().request(JoinGroupRequest.class);
        assertThat(MemberHarness.subscriptionOf(again, 0).topics()).containsExactly("orders-eu", "orders-us");
    }

    @Test
    void changingTheTopicsRejoinsAndCooperativeRevokesOnlyTheDroppedTopics() {
        h = MemberHarness.cooperative();
        h.member.subscribe(List.of("t", "u"));
        h.member.start();
        h.io.answerFind(1);
        h.joinAsFollower(1, "cooperative-sticky", tp("t", 0), tp("u", 0));
        h.member.subscribe(List.of("u", "t")); // same set: nothing happens
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();

        h.member.subscribe(List.of("t"));
        assertThat(h.listener.kinds()).containsExactly("assigned", "revoked");
        assertThat(h.listener.last().partitions()).containsExactly(tp("u", 0));
        ConsumerProtocolSubscription sub = MemberHarness.subscriptionOf(h.takeJoin().request(JoinGroupRequest.class), 0);
        assertThat(sub.topics()).containsExactly("t");
        assertThat(sub.ownedPartitions()).singleElement()
                .isEqualTo(new ConsumerProtocolSubscription.TopicPartition("t", List.of(0)));
        assertThat(h.io.interestTopics).containsExactly("t");
    }

    // ------------------------------------------------------------------ the shared coordinator manager

    @Test
    void aLossReportedByCommitsReachesTheMemberWhichKeepsItsAssignment() {
        h = MemberHarness.eager();
        h.member.subscribe(List.of("t"));
        h.member.start();
        AtomicBoolean got = new AtomicBoolean();
        h.coordinators.channel().subscribe(c -> got.set(true));
        assertThat(got).isFalse();
        h.io.answerFind(1);
        assertThat(got).isTrue();
        assertThat(h.io.findCount).as("the member and the commit layer share one lookup").isEqualTo(1);
        h.joinAsFollower(1, "range", tp("t", 0));

        h.coordinators.markUnavailable("NOT_COORDINATOR from OffsetCommit"); // the commit layer's report
        assertThat(h.state()).isEqualTo(MemberState.REDISCOVERING_COORDINATOR);
        CoordinatorChannel[] next = new CoordinatorChannel[1];
        h.coordinators.channel().subscribe(c -> next[0] = c);
        assertThat(next[0]).isNull();
        h.io.answerFind(2);
        assertThat(next[0]).isNotNull();
        assertThat(next[0].nodeId()).isEqualTo(2);
        assertThat(h.member.assignment()).containsExactly(tp("t", 0));
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
    }

    @Test
    void closeStopsTheMemberButNotTheSharedCoordinatorManager() {
        h = MemberHarness.eager();
        h.member.subscribe(List.of("t"));
        h.member.start();
        h.member.close();
        assertThat(h.state()).isEqualTo(MemberState.CLOSED);
        h.io.answerFind(1); // a late answer changes nothing for the member
        assertThat(h.state()).isEqualTo(MemberState.CLOSED);
        assertThat(h.io.channels).hasSize(1);
        assertThat(h.channel().sent).isEmpty();
        StepVerifier.create(h.coordinators.channel()).expectNextCount(1).verifyComplete();
        h.coordinators.close();
        StepVerifier.create(h.coordinators.channel()).expectError(IllegalStateException.class).verify();
    }

    @Test
    void closeWhileStableStopsHeartbeatsAndSendsNothing() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(1, "range", tp("t", 0));
        h.member.close();
        int sent = h.channel().sent.size();
        h.advance(100_000);
        assertThat(h.channel().sent).hasSize(sent);
        assertThat(h.listener.kinds()).containsExactly("assigned");
    }

    // ------------------------------------------------------------------ listener bounds

    @Test
    void aListenerThatNeverCompletesIsBoundedByMaxPollInterval() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(1, "range", tp("t", 0));
        h.listener.revoked = s -> Mono.never();
        h.io.heartbeatAnswer = r -> new HeartbeatResponse(0, Errors.REBALANCE_IN_PROGRESS.code());
        h.advance(3_000);
        assertThat(h.state()).isEqualTo(MemberState.REJOINING);
        h.advance(59_999);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();
        h.advance(1);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isTrue();
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheRebalance() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.listener.assigned = s -> {
            throw new IllegalStateException("boom");
        };
        h.joinAsFollower(1, "range", tp("t", 0));
        assertThat(h.member.assignment()).containsExactly(tp("t", 0));
        h.listener.revoked = s -> Mono.error(new IllegalStateException("boom"));
        h.io.heartbeatAnswer = r -> new HeartbeatResponse(0, Errors.REBALANCE_IN_PROGRESS.code());
        h.advance(3_000);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isTrue();
        assertThat(h.listener.fatal).isEmpty();
    }

    @Test
    void aCoordinatorLostWhileRevokingJoinsTheNewCoordinatorAfterTheListener() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(1, "range", tp("t", 0));
        h.listener.revoked = s -> Mono.delay(Duration.ofSeconds(10), h.time).then();
        h.io.heartbeatAnswer = r -> new HeartbeatResponse(0, Errors.REBALANCE_IN_PROGRESS.code());
        h.advance(3_000);
        h.channel().drop();
        assertThat(h.state()).isEqualTo(MemberState.REDISCOVERING_COORDINATOR);
        h.io.answerFind(2);
        assertThat(h.state()).isEqualTo(MemberState.REJOINING);
        h.advance(10_000);
        assertThat(h.channel().nodeId).isEqualTo(2);
        assertThat(h.takeJoin().request(JoinGroupRequest.class).memberId()).isEqualTo("m1");
    }
}
