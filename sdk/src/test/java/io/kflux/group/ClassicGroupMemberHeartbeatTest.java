package io.kflux.group;

import static io.kflux.group.MemberHarness.joined;
import static io.kflux.group.MemberHarness.synced;
import static io.kflux.group.MemberHarness.tp;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.FencedInstanceIdException;
import io.kflux.KafkaProtocolException;
import io.kflux.group.MemberHarness.TestAssignor;
import io.kflux.group.assignor.RebalanceProtocol;
import io.kflux.network.RequestTimeoutException;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.Errors;
import io.kflux.protocol.consumer.ConsumerProtocolSubscription;
import io.kflux.protocol.message.HeartbeatRequest;
import io.kflux.protocol.message.HeartbeatResponse;
import io.kflux.protocol.message.JoinGroupRequest;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Sinks;

/** Heartbeats, the rebalances they trigger, and coordinator loss. */
class ClassicGroupMemberHeartbeatTest {
    private MemberHarness h;

    @AfterEach
    void noLoopErrors() {
        if (h != null) {
            assertThat(h.loopErrors).isEmpty();
            h.member.close();
        }
    }

    private static HeartbeatResponse hb(Errors e) {
        return new HeartbeatResponse(0, e.code());
    }

    private int heartbeats() {
        return h.channel().sent(HeartbeatRequest.class).size();
    }

    private void answerHeartbeatsWith(Errors e) {
        h.io.heartbeatAnswer = req -> hb(e);
    }

    /**
     * A cooperative member owning t-0 and t-1 in generation 1; the Heartbeat sent at 3 s is answered
     * REBALANCE_IN_PROGRESS (confirming the session as of 3 s) and the JoinGroup goes out at 3 s, keeping both.
     */
    private FakeGroupIo.Pending<?> cooperativeRebalanceWithTheJoinGroupOut() {
        h = MemberHarness.cooperative();
        h.startAndDiscover("t");
        h.joinAsFollower(1, "cooperative-sticky", tp("t", 0), tp("t", 1));
        answerHeartbeatsWith(Errors.REBALANCE_IN_PROGRESS);
        h.advance(3_000);
        return h.takeJoin();
    }

    @Test
    void heartbeatsEveryIntervalWhileStableWithTheGeneration() {
        h = new MemberHarness(MemberHarness.config("i1", new TestAssignor("range", RebalanceProtocol.EAGER)));
        h.startAndDiscover("t");
        h.joinAsFollower(7, "range", tp("t", 0));
        assertThat(heartbeats()).isZero();
        h.advance(2_999);
        assertThat(heartbeats()).isZero();
        h.advance(1);
        assertThat(heartbeats()).isEqualTo(1);
        HeartbeatRequest first = h.channel().sent(HeartbeatRequest.class).get(0);
        assertThat(first.groupId()).isEqualTo("g");
        assertThat(first.generationId()).isEqualTo(7);
        assertThat(first.memberId()).isEqualTo("m1");
        assertThat(first.groupInstanceId()).isEqualTo("i1");
        h.advance(30_000);
        assertThat(heartbeats()).isEqualTo(11);
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
    }

    @Test
    void eagerRebalanceRevokesEverythingFirstAndKeepsHeartbeatingWhileTheListenerRuns() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(1, "range", tp("t", 0), tp("t", 1));
        Sinks.Empty<Void> revokeDone = Sinks.empty();
        h.listener.revoked = s -> revokeDone.asMono();
        answerHeartbeatsWith(Errors.REBALANCE_IN_PROGRESS);

        h.advance(3_000);
        assertThat(h.state()).isEqualTo(MemberState.REJOINING);
        assertThat(h.listener.last().kind()).isEqualTo("revoked");
        assertThat(h.listener.last().partitions()).containsExactlyInAnyOrder(tp("t", 0), tp("t", 1));
        // still owned until the listener is done: commits made meanwhile are accepted
        assertThat(h.member.assignment()).hasSize(2);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();

        int before = heartbeats();
        h.advance(20_000); // a slow revoke (longer than the session timeout) does not cost the membership
        assertThat(heartbeats()).isGreaterThanOrEqualTo(before + 6);
        assertThat(h.state()).isEqualTo(MemberState.REJOINING);

        revokeDone.tryEmitEmpty();
        assertThat(h.member.assignment()).isEmpty();
        assertThat(h.state()).isEqualTo(MemberState.JOINING);
        JoinGroupRequest join = h.takeJoin().request(JoinGroupRequest.class);
        ConsumerProtocolSubscription sub = MemberHarness.subscriptionOf(join, 0);
        assertThat(sub.ownedPartitions()).isEmpty();
        assertThat(sub.generationId()).isEqualTo(1);
        assertThat(join.memberId()).isEqualTo("m1");
        assertThat(join.reason()).isEqualTo("the group is rebalancing");
    }

    @Test
    void noHeartbeatsAndTheSessionNotEndedWhileTheBrokerHoldsTheJoinGroup() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(1, "range", tp("t", 0));
        answerHeartbeatsWith(Errors.REBALANCE_IN_PROGRESS);
        h.advance(3_000);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isTrue();
        int before = heartbeats();
        h.advance(50_000);
        assertThat(heartbeats()).isEqualTo(before);
        assertThat(h.state()).isEqualTo(MemberState.JOINING);
        assertThat(h.io.findCount).isEqualTo(1);
        assertThat(h.listener.holdBacks).containsExactly(true); // in doubt past the deadline, not ended
        assertThat(h.listener.kinds()).containsExactly("assigned", "revoked");
    }

    /**
     * Issue #15, cooperative: the member keeps emitting the partitions it keeps while its JoinGroup is out. The
     * broker completed the join and answered, but the answer was lost (a black-holed connection): from then the broker
     * runs the member's new session and expires it a session timeout later, since no SyncGroup or heartbeat comes.
     * Waiting in JoinGroup must not stop the member's own deadline (it held back nothing until the JoinGroup timed
     * out, a rebalance timeout later), and the JoinGroup's failure is no answer from the coordinator (it counted as a
     * confirmation, and the member emitted for another session timeout: 75 s from the last confirmation here).
     */
    @Test
    void aJoinGroupWhoseAnswerIsLostHoldsBackTheKeptPartitionsFromTheSessionDeadline() {
        var join = cooperativeRebalanceWithTheJoinGroupOut();
        assertThat(h.state()).isEqualTo(MemberState.JOINING);
        assertThat(h.member.assignment()).containsExactlyInAnyOrder(tp("t", 0), tp("t", 1)); // kept, still emitted
        h.advance(9_999);
        assertThat(h.listener.holdBacks).isEmpty();
        h.advance(2); // 10 s after the last confirmation: the broker may have expired the member by now
        assertThat(h.listener.holdBacks).containsExactly(true);

        h.advance(55_000); // 65 s after the send the JoinGroup times out, its answer never having come
        join.fail(new RequestTimeoutException("timed out", ApiKey.JOIN_GROUP, 65_000));
        assertThat(h.state()).isEqualTo(MemberState.REDISCOVERING_COORDINATOR);
        assertThat(h.listener.holdBacks).containsExactly(true); // the failure confirmed nothing: still held back
        assertThat(h.listener.kinds()).containsExactly("assigned");
        h.advance(9_999); // the coordinator is not found again: the grace runs from the failure
        assertThat(h.listener.kinds()).containsExactly("assigned");
        h.advance(1);
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost");
        assertThat(h.listener.last().partitions()).containsExactlyInAnyOrder(tp("t", 0), tp("t", 1));
        assertThat(h.listener.holdBacks).containsExactly(true);
    }

    /**
     * The broker may hold a JoinGroup for up to the rebalance timeout, keeping the member meanwhile: past the session
     * deadline the member holds its records back (it cannot tell a held JoinGroup from a lost answer), but the grace
     * does not end the session while the JoinGroup is out; its answer confirms the new generation's session.
     */
    @Test
    void aJoinGroupHeldPastTheSessionTimeoutIsNotAbandonedAndItsAnswerEndsTheHoldBack() {
        var join = cooperativeRebalanceWithTheJoinGroupOut();
        answerHeartbeatsWith(Errors.NONE);
        h.advance(40_000); // four session timeouts
        assertThat(h.listener.holdBacks).containsExactly(true);
        assertThat(h.state()).isEqualTo(MemberState.JOINING);
        assertThat(h.io.findCount).isEqualTo(1);
        assertThat(h.listener.kinds()).containsExactly("assigned");
        assertThat(h.channel().sent(JoinGroupRequest.class)).hasSize(2); // the first join and this one, not abandoned

        join.answer(joined(2, "m1", "other", "cooperative-sticky", List.of()));
        assertThat(h.listener.holdBacks).containsExactly(true, false);
        h.takeSync().answer(synced("cooperative-sticky", tp("t", 0), tp("t", 1)));
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
        assertThat(h.listener.kinds()).containsExactly("assigned", "assigned");
        h.advance(30_000);
        assertThat(h.listener.holdBacks).containsExactly(true, false);
    }

    @Test
    void cooperativeRebalanceKeepsOwnedPartitionsAndRevokesOnlyWhatMovesThenRejoins() {
        JoinGroupRequest join = cooperativeRebalanceWithTheJoinGroupOut().request(JoinGroupRequest.class);
        assertThat(h.listener.kinds()).containsExactly("assigned"); // nothing revoked up front
        assertThat(h.member.assignment()).hasSize(2);
        ConsumerProtocolSubscription sub = MemberHarness.subscriptionOf(join, 0);
        assertThat(sub.ownedPartitions()).singleElement()
                .isEqualTo(new ConsumerProtocolSubscription.TopicPartition("t", List.of(0, 1)));
        assertThat(sub.generationId()).isEqualTo(1);

    }

    @Test
    void cooperativeSecondRoundAfterRevokingMovedPartitions() {
        h = MemberHarness.cooperative();
        h.startAndDiscover("t");
        h.joinAsFollower(1, "cooperative-sticky", tp("t", 0), tp("t", 1));
        answerHeartbeatsWith(Errors.REBALANCE_IN_PROGRESS);
        h.advance(3_000);
        answerHeartbeatsWith(Errors.NONE);
        h.takeJoin().answer(joined(2, "m1", "other", "cooperative-sticky", List.of()));
        h.takeSync().answer(synced("cooperative-sticky", tp("t", 0)));

        assertThat(h.listener.kinds()).containsExactly("assigned", "revoked", "assigned");
        assertThat(h.listener.calls.get(1).partitions()).containsExactly(tp("t", 1));
        assertThat(h.listener.calls.get(2).partitions()).isEmpty();
        assertThat(h.listener.calls.get(2).assignment()).containsExactly(tp("t", 0));
        assertThat(h.member.assignment()).containsExactly(tp("t", 0));
        // KIP-429: rejoin at once so t-1 can go to its new owner
        JoinGroupRequest again = h.takeJoin().request(JoinGroupRequest.class);
        assertThat(MemberHarness.subscriptionOf(again, 0).ownedPartitions()).singleElement()
                .isEqualTo(new ConsumerProtocolSubscription.TopicPartition("t", List.of(0)));
        assertThat(MemberHarness.subscriptionOf(again, 0).generationId()).isEqualTo(2);
    }

    @Test
    void cooperativeRoundWithoutRevocationsDoesNotRejoin() {
        h = MemberHarness.cooperative();
        h.startAndDiscover("t");
        h.joinAsFollower(1, "cooperative-sticky", tp("t", 0));
        answerHeartbeatsWith(Errors.REBALANCE_IN_PROGRESS);
        h.advance(3_000);
        answerHeartbeatsWith(Errors.NONE);
        h.takeJoin().answer(joined(2, "m1", "other", "cooperative-sticky", List.of()));
        h.takeSync().answer(synced("cooperative-sticky", tp("t", 0), tp("t", 1)));
        assertThat(h.listener.kinds()).containsExactly("assigned", "assigned");
        assertThat(h.listener.last().partitions()).containsExactly(tp("t", 1));
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
    }

    @Test
    void illegalGenerationLosesThePartitionsAndRejoinsWithTheSameMemberId() {
        h = MemberHarness.cooperative();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "cooperative-sticky", tp("t", 0));
        answerHeartbeatsWith(Errors.ILLEGAL_GENERATION);
        h.advance(3_000);
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost");
        assertThat(h.listener.last().partitions()).containsExactly(tp("t", 0));
        assertThat(h.member.assignment()).isEmpty();
        assertThat(h.member.generationId()).isEqualTo(-1);
        JoinGroupRequest join = h.takeJoin().request(JoinGroupRequest.class);
        assertThat(join.memberId()).isEqualTo("m1");
        assertThat(MemberHarness.subscriptionOf(join, 0).ownedPartitions()).isEmpty();
        assertThat(MemberHarness.subscriptionOf(join, 0).generationId()).isEqualTo(-1);
    }

    @Test
    void unknownMemberIdLosesThePartitionsAndRejoinsWithoutMemberId() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        answerHeartbeatsWith(Errors.UNKNOWN_MEMBER_ID);
        h.advance(3_000);
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost"); // lost, not revoked
        assertThat(h.member.memberId()).isEmpty();
        assertThat(h.takeJoin().request(JoinGroupRequest.class).memberId()).isEmpty();
    }

    @Test
    void fencedInstanceIdOnHeartbeatIsFatal() {
        h = new MemberHarness(MemberHarness.config("i1", new TestAssignor("range", RebalanceProtocol.EAGER)));
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        answerHeartbeatsWith(Errors.FENCED_INSTANCE_ID);
        h.advance(3_000);
        assertThat(h.state()).isEqualTo(MemberState.FATAL);
        assertThat(h.listener.fatal).singleElement().isInstanceOf(FencedInstanceIdException.class);
        int sent = h.channel().sent.size();
        h.advance(60_000);
        assertThat(h.channel().sent).hasSize(sent); // stopped
    }

    @Test
    void groupAuthorizationFailureOnHeartbeatIsFatal() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        answerHeartbeatsWith(Errors.GROUP_AUTHORIZATION_FAILED);
        h.advance(3_000);
        assertThat(h.listener.fatal).singleElement().isInstanceOf(KafkaProtocolException.class);
    }

    @ParameterizedTest
    @EnumSource(value = Errors.class, names = {"NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE"})
    void coordinatorErrorsRediscoverWhileKeepingTheAssignment(Errors error) {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        answerHeartbeatsWith(error);
        h.advance(3_000);
        assertThat(h.state()).isEqualTo(MemberState.REDISCOVERING_COORDINATOR);
        assertThat(h.member.assignment()).containsExactly(tp("t", 0));
        assertThat(h.member.generationId()).isEqualTo(4);
        assertThat(h.listener.kinds()).containsExactly("assigned"); // no revoke: ownership has not changed

        answerHeartbeatsWith(Errors.NONE);
        h.io.answerFind(2);
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
        h.advance(3_000);
        List<HeartbeatRequest> onNew = h.channel().sent(HeartbeatRequest.class);
        // one at once (the session must be confirmed while time is left of it), one an interval later
        assertThat(onNew).hasSize(2).allSatisfy(r -> assertThat(r.generationId()).isEqualTo(4));
        assertThat(h.channel().sent(JoinGroupRequest.class)).isEmpty();
        assertThat(h.listener.kinds()).containsExactly("assigned");
    }

    @Test
    void aDroppedCoordinatorConnectionRediscoversWithoutRevoking() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        h.channel().drop();
        assertThat(h.state()).isEqualTo(MemberState.REDISCOVERING_COORDINATOR);
        assertThat(h.member.assignment()).containsExactly(tp("t", 0));
        h.io.answerFind(1);
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
        assertThat(h.io.channels).hasSize(2);
    }

    @Test
    void aTimedOutHeartbeatRediscovers() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        h.io.heartbeatAnswer = r -> new RequestTimeoutException("timed out", ApiKey.HEARTBEAT, 30_000);
        h.advance(3_000);
        assertThat(h.state()).isEqualTo(MemberState.REDISCOVERING_COORDINATOR);
    }

    @Test
    void noHeartbeatAnswerWithinTheSessionTimeoutLosesThePartitionsAndJoinsAnew() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        h.io.heartbeatAnswer = r -> null; // the coordinator never answers
        h.advance(9_999);
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
        assertThat(heartbeats()).isEqualTo(1); // one in flight at a time
        assertThat(h.listener.holdBacks).isEmpty();
        h.advance(2);
        // issue #15: the coordinator may have removed the member by now; it must not go on emitting its partitions
        assertThat(h.listener.holdBacks).containsExactly(true);
        assertThat(h.listener.kinds()).containsExactly("assigned");
        h.advance(9_998);
        assertThat(h.listener.kinds()).containsExactly("assigned");
        h.advance(2); // as long again without an answer: the session is over
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost");
        assertThat(h.listener.holdBacks).containsExactly(true); // held back until a new session is confirmed
        assertThat(h.member.assignment()).isEmpty();
        assertThat(h.member.generationId()).isEqualTo(-1);
        assertThat(h.state()).isEqualTo(MemberState.DISCOVERING_COORDINATOR);
        assertThat(h.io.findCount).isEqualTo(2);

        h.io.heartbeatAnswer = r -> hb(Errors.NONE);
        h.io.answerFind(1);
        // the member id is kept: a coordinator that was frozen still holds the member and waits for it to rejoin
        var joinCall = h.takeJoin();
        JoinGroupRequest join = joinCall.request(JoinGroupRequest.class);
        assertThat(join.memberId()).isEqualTo("m1");
        assertThat(join.reason()).isEqualTo("the session expired");
        assertThat(MemberHarness.subscriptionOf(join, 0).ownedPartitions()).isEmpty();
        joinCall.answer(joined(5, "m1", "other", "range", List.of()));
        assertThat(h.listener.holdBacks).containsExactly(true, false); // the new generation's session
    }

    @Test
    void aMemberTheCoordinatorDidExpireJoinsAnewAfterItsSessionRanOut() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        h.io.heartbeatAnswer = r -> null;
        h.advance(20_001);
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost");
        h.io.heartbeatAnswer = r -> hb(Errors.NONE);
        h.io.answerFind(1);
        h.takeJoin().answer(MemberHarness.joinError(Errors.UNKNOWN_MEMBER_ID, ""));
        assertThat(h.takeJoin().request(JoinGroupRequest.class).memberId()).isEmpty();
        assertThat(h.member.memberId()).isEmpty();
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost");
    }

    @Test
    void theSessionExpiresWhileTheCoordinatorCannotBeFound() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        h.advance(3_000); // answered: the session is confirmed at 3 s
        h.channel().drop();
        assertThat(h.state()).isEqualTo(MemberState.REDISCOVERING_COORDINATOR);
        h.advance(9_999); // FindCoordinator gets no answer
        assertThat(h.member.assignment()).containsExactly(tp("t", 0));
        assertThat(h.listener.kinds()).containsExactly("assigned");
        h.advance(1);
        assertThat(h.listener.holdBacks).containsExactly(true);
        h.advance(9_999);
        assertThat(h.listener.kinds()).containsExactly("assigned");
        h.advance(1);
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost");
        assertThat(h.member.assignment()).isEmpty();
        assertThat(h.state()).isEqualTo(MemberState.DISCOVERING_COORDINATOR);
    }

    @Test
    void aCoordinatorFoundAgainWithinTheSessionKeepsThePartitions() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        h.channel().drop();
        h.advance(8_000);
        h.io.answerFind(2);
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
        h.advance(30_000); // heartbeats answered by the new coordinator confirm the session
        assertThat(h.listener.kinds()).containsExactly("assigned");
        assertThat(h.member.generationId()).isEqualTo(4);
    }

    /**
     * The coordinator's node died: the member's lookups waited on it past the session deadline, and the new
     * coordinator, which loaded the group with fresh sessions, is found only then. The records are held back from the
     * deadline until its first answer, and the member keeps its partitions (no rebalance, nothing repeated).
     */
    @Test
    void aCoordinatorFoundJustAfterTheSessionDeadlineKeepsThePartitions() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        h.advance(3_000); // answered: the session is confirmed at 3 s
        h.channel().drop();
        h.advance(10_500);
        assertThat(h.listener.holdBacks).containsExactly(true);
        answerHeartbeatsWith(Errors.NONE);
        h.io.answerFind(2);
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
        assertThat(h.listener.holdBacks).containsExactly(true, false);
        h.advance(30_000);
        assertThat(h.listener.kinds()).containsExactly("assigned");
        assertThat(h.member.generationId()).isEqualTo(4);
    }

    /** The new coordinator did expire the member: its UNKNOWN_MEMBER_ID takes the loss path; records stay held. */
    @Test
    void aCoordinatorFoundAfterTheDeadlineThatExpiredTheMemberLosesThePartitions() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        h.channel().drop();
        h.advance(10_500);
        assertThat(h.listener.holdBacks).containsExactly(true);
        answerHeartbeatsWith(Errors.UNKNOWN_MEMBER_ID);
        h.io.answerFind(2);
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost");
        assertThat(h.listener.holdBacks).containsExactly(true); // still held: no session until the rejoin
        h.takeJoin().answer(joined(5, "m2", "other", "range", List.of()));
        assertThat(h.listener.holdBacks).containsExactly(true, false);
    }

    /**
     * The grace's check fires on the timer thread while the loop is still taking the heartbeat answer that confirms
     * the session: it runs after the confirmation, which armed a new deadline check. That late check must not start a
     * second chain of checks beside it: two chains both fire at the next deadline, the first puts the session in doubt
     * and the second, finding it in doubt, ends it at once (no grace, the partitions lost a session timeout early).
     */
    @Test
    void aGraceCheckThatFiresBehindAConfirmationLeavesOneDeadline() {
        h = MemberHarness.eager();
        h.io.heartbeatAnswer = r -> null; // heartbeats stay in flight until the test answers
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0)); // confirmed at 0
        h.advance(10_000);
        assertThat(h.listener.holdBacks).containsExactly(true);
        h.advance(9_000);
        h.channel().drop(); // the Heartbeat sent at 3 s fails; the coordinator is found again and heartbeated at once
        h.io.answerFind(2);
        var inFlight = h.channel().take(HeartbeatRequest.class); // sent at 19 s
        // at 20 s the grace ends on the timer thread while the loop takes the answer: the check runs second
        h.loop.execute(() -> {
            inFlight.answer(hb(Errors.NONE));
            h.advance(1_000);
        });
        assertThat(h.listener.holdBacks).containsExactly(true, false);
        assertThat(h.listener.kinds()).containsExactly("assigned");
        answerHeartbeatsWith(Errors.NONE);
        h.advance(9_500); // answered when sent at 22, 25 and 28 s
        h.io.heartbeatAnswer = r -> null;
        h.advance(9_501); // 39.001 s: past a session timeout after the last send
        assertThat(h.listener.holdBacks).containsExactly(true, false, true);
        assertThat(h.listener.kinds()).containsExactly("assigned"); // in doubt, not lost: the grace runs
        h.advance(10_000);
        assertThat(h.listener.kinds()).containsExactly("assigned", "lost");
    }

    /**
     * A fatal error while the session is in doubt (a static member's new coordinator says another instance took its
     * id): the partitions are someone else's, so the records held back must not be released on the way out.
     */
    @Test
    void aFatalErrorWhileInDoubtKeepsTheRecordsHeldBack() {
        h = new MemberHarness(MemberHarness.config("i1", new TestAssignor("range", RebalanceProtocol.EAGER)));
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        h.channel().drop();
        h.advance(10_500);
        assertThat(h.listener.holdBacks).containsExactly(true);
        answerHeartbeatsWith(Errors.FENCED_INSTANCE_ID);
        h.io.answerFind(2);
        assertThat(h.listener.fatal).singleElement().isInstanceOf(FencedInstanceIdException.class);
        assertThat(h.listener.holdBacks).containsExactly(true);
    }

    /**
     * The broker restarts its session clock when it handles a Heartbeat, somewhere between the send and the answer:
     * dated at a slow answer, the member's deadline fell after the broker's, and it emitted past the broker's expiry.
     */
    @Test
    void theSessionIsDatedWhenTheConfirmedHeartbeatWasSent() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        h.io.heartbeatAnswer = r -> null; // answered by hand
        h.advance(3_000); // a Heartbeat goes out at 3 s
        h.advance(4_000);
        h.channel().take(HeartbeatRequest.class).answer(hb(Errors.NONE)); // its answer arrives at 7 s
        h.advance(5_999);
        assertThat(h.listener.holdBacks).isEmpty();
        h.advance(2); // 10 s after the send, not after the answer
        assertThat(h.listener.holdBacks).containsExactly(true);
    }

    /**
     * An answer that comes after the session ran out from its own send (a request timeout longer than the session):
     * it proves the session as of the send only, which is already past; the records stay held back.
     */
    @Test
    void aConfirmationDatedPastTheDeadlineDoesNotReleaseTheRecords() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        h.io.heartbeatAnswer = r -> null;
        h.advance(3_000); // a Heartbeat goes out at 3 s
        h.advance(11_000);
        assertThat(h.listener.holdBacks).containsExactly(true); // in doubt since 10 s
        h.channel().take(HeartbeatRequest.class).answer(hb(Errors.NONE)); // at 14 s: dated 3 s, stale
        assertThat(h.listener.holdBacks).containsExactly(true);
        assertThat(h.listener.kinds()).containsExactly("assigned");
    }

    @Test
    void rebalanceInProgressWhileSyncingIsIgnored() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(2, "m1", "other", "range", List.of()));
        answerHeartbeatsWith(Errors.REBALANCE_IN_PROGRESS);
        h.advance(3_000);
        assertThat(heartbeats()).isEqualTo(1);
        assertThat(h.state()).isEqualTo(MemberState.SYNCING);
        answerHeartbeatsWith(Errors.NONE);
        h.takeSync().answer(synced("range", tp("t", 0)));
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();
    }

    @Test
    void otherHeartbeatErrorsAreRetriedAfterTheRetryBackoff() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.joinAsFollower(4, "range", tp("t", 0));
        answerHeartbeatsWith(Errors.UNKNOWN_SERVER_ERROR);
        h.advance(3_000);
        assertThat(heartbeats()).isEqualTo(1);
        answerHeartbeatsWith(Errors.NONE);
        h.advance(100);
        assertThat(heartbeats()).isEqualTo(2);
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
    }

    @Test
    void aGenerationResetDuringTheRevokeListenerTurnsTheRestIntoLost() {
        h = MemberHarness.cooperative();
        h.member.subscribe(List.of("t", "u"));
        h.member.start();
        h.io.answerFind(1);
        h.joinAsFollower(1, "cooperative-sticky", tp("t", 0), tp("u", 0));
        Sinks.Empty<Void> revokeDone = Sinks.empty();
        h.listener.revoked = s -> revokeDone.asMono();
        h.member.subscribe(List.of("t")); // cooperative: revoke u-0 only
        assertThat(h.listener.last().kind()).isEqualTo("revoked");
        assertThat(h.listener.last().partitions()).containsExactly(tp("u", 0));
        answerHeartbeatsWith(Errors.UNKNOWN_MEMBER_ID);
        h.advance(3_000);
        revokeDone.tryEmitEmpty();
        assertThat(h.listener.kinds()).containsExactly("assigned", "revoked", "lost");
        assertThat(h.listener.last().partitions()).containsExactly(tp("t", 0));
        JoinGroupRequest join = h.takeJoin().request(JoinGroupRequest.class);
        assertThat(join.memberId()).isEmpty();
        assertThat(MemberHarness.subscriptionOf(join, 0).topics()).containsExactly("t");
    }
}
