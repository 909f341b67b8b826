package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.TopicPartition;
import io.kflux.group.ClassicGroupMember.Generation;
import io.kflux.group.ClassicMembership.AfterPrepare;
import io.kflux.group.ClassicAnswers.HeartbeatVerdict;
import io.kflux.group.ClassicAnswers.JoinVerdict;
import io.kflux.group.ClassicMembership.Leave;
import io.kflux.group.ClassicMembership.Next;
import io.kflux.group.ClassicAnswers.SyncVerdict;
import io.kflux.group.assignor.RebalanceProtocol;
import io.kflux.protocol.Errors;
import io.kflux.util.StateTransitions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The classic member's pure core, event by event, without a member, a network or a clock: times are numbers passed in
 * (nanoseconds on a virtual clock), the coordinator and the listener are booleans.
 */
class ClassicMembershipTest {
    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);

    private final List<ClassicPhase> moves = new ArrayList<>();

    private ClassicMembership core(RebalanceProtocol protocol) {
        return new ClassicMembership(protocol, moves::add);
    }

    /** Start with the coordinator known, join as {@code generationId}, get {@code assigned}: STABLE. */
    private ClassicMembership stable(RebalanceProtocol protocol, int generationId, Set<TopicPartition> assigned) {
        ClassicMembership m = core(protocol);
        m.subscribe(Set.of("a", "b"));
        assertThat(m.start()).isTrue();
        long epoch = m.prepareJoin();
        assertThat(m.toDropBeforeJoin(true)).isEmpty();
        assertThat(m.afterPrepare(epoch, Generation.NONE, true)).isEqualTo(AfterPrepare.SEND_JOIN);
        m.joinSent(1_000);
        m.joined(new Generation(generationId, "m-1", "range"));
        m.syncSent(2_000);
        assertThat(ClassicAnswers.sync(Errors.NONE, m.generation(), m.generation())).isEqualTo(SyncVerdict.ASSIGNED);
        assertThat(m.settled(5_000)).as("rebalance time from the first JoinGroup").isEqualTo(4_000);
        assertThat(m.revokedBy(assigned)).isEmpty();
        m.take(assigned);
        assertThat(m.proceed(true, false)).isEqualTo(Next.SETTLED);
        return m;
    }

    @Test
    void theJoinPathMovesThroughCheckedPhasesAndShowsTheMemberStates() {
        ClassicMembership m = stable(RebalanceProtocol.EAGER, 3, Set.of(A0, B0));
        assertThat(moves).containsExactly(ClassicPhase.REJOINING, ClassicPhase.JOIN_SENT, ClassicPhase.SYNCING,
                ClassicPhase.STABLE);
        assertThat(moves.stream().map(ClassicPhase::visible)).containsExactly(MemberState.REJOINING,
                MemberState.JOINING, MemberState.SYNCING, MemberState.STABLE);
        assertThat(m.owned()).containsExactlyInAnyOrder(A0, B0);
        assertThat(m.everJoined()).isTrue();
        assertThat(m.sessionHeld()).isTrue();
        assertThat(m.heartbeatAllowed(true)).isTrue();
        assertThat(m.heartbeatAllowed(false)).as("no coordinator, no heartbeat").isFalse();
        assertThat(m.joinedTopics()).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void everyPhaseShowsAsAMemberStateWhoseTableAllowsEachPhaseMove() {
        for (ClassicPhase to : ClassicPhase.values()) {
            for (ClassicPhase from : to.previousValidStates()) {
                if (from.visible() != to.visible()) {
                    assertThat(to.visible().previousValidStates()).as(from + " -> " + to)
                            .contains(from.visible());
                }
            }
        }
        assertThatThrownBy(() -> StateTransitions.check(ClassicPhase.REJOINING, ClassicPhase.SYNCING))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("REJOINING -> SYNCING");
        for (ClassicPhase terminal : EnumSet.of(ClassicPhase.FATAL, ClassicPhase.CLOSED)) {
            for (ClassicPhase next : ClassicPhase.values()) {
                assertThat(next.previousValidStates()).doesNotContain(terminal);
            }
        }
    }

    @Test
    void aRejoinAskedForWhileSyncingIsCarriedIntoStableAndTakenWhenTheListenerIsDone() {
        ClassicMembership m = core(RebalanceProtocol.EAGER);
        m.subscribe(Set.of("a"));
        m.start();
        long epoch = m.prepareJoin();
        m.afterPrepare(epoch, Generation.NONE, true);
        m.joinSent(0);
        m.joined(new Generation(1, "m-1", "range"));
        assertThat(m.requestRejoin("the subscription changed")).isTrue();
        assertThat(m.requestRejoin("again")).as("logged once").isFalse();
        assertThat(m.phase()).isEqualTo(ClassicPhase.SYNCING_REJOIN_DUE);
        assertThat(m.proceed(true, false)).as("SyncGroup is out").isEqualTo(Next.NOTHING);
        m.settled(10);
        assertThat(m.phase()).isEqualTo(ClassicPhase.STABLE_REJOIN_DUE);
        assertThat(m.phase().visible()).isEqualTo(MemberState.STABLE);
        m.take(Set.of(A0));
        assertThat(m.proceed(true, true)).as("a listener call still runs").isEqualTo(Next.NOTHING);
        assertThat(m.proceed(true, false)).isEqualTo(Next.PREPARE_JOIN);
        assertThat(m.rejoinReason()).isEqualTo("again");
    }

    @Test
    void aHeartbeatAnswerDecidesByGenerationAndPhase() {
        ClassicMembership m = stable(RebalanceProtocol.EAGER, 2, Set.of(A0));
        Generation current = m.generation();
        Generation old = new Generation(1, "m-1", "range");
        assertThat(ClassicAnswers.heartbeat(Errors.NONE, current, m.generation(), m.phase()))
                .isEqualTo(HeartbeatVerdict.CONFIRMED);
        assertThat(ClassicAnswers.heartbeat(Errors.REBALANCE_IN_PROGRESS, current, m.generation(), m.phase()))
                .isEqualTo(HeartbeatVerdict.CONFIRMED_REBALANCING);
        assertThat(ClassicAnswers.heartbeat(Errors.ILLEGAL_GENERATION, current, m.generation(), m.phase()))
                .isEqualTo(HeartbeatVerdict.RESET_AND_REJOIN);
        assertThat(ClassicAnswers.heartbeat(Errors.UNKNOWN_MEMBER_ID, old, m.generation(), m.phase()))
                .as("an answer for an older generation").isEqualTo(HeartbeatVerdict.STALE_ANSWER);
        assertThat(ClassicAnswers.heartbeat(Errors.FENCED_INSTANCE_ID, current, m.generation(), m.phase()))
                .isEqualTo(HeartbeatVerdict.FENCED);
        assertThat(ClassicAnswers.heartbeat(Errors.FENCED_INSTANCE_ID, old, m.generation(), m.phase()))
                .isEqualTo(HeartbeatVerdict.IGNORED);
        assertThat(ClassicAnswers.heartbeat(Errors.NOT_COORDINATOR, current, m.generation(), m.phase()))
                .isEqualTo(HeartbeatVerdict.COORDINATOR_LOST);
        assertThat(ClassicAnswers.heartbeat(Errors.GROUP_AUTHORIZATION_FAILED, current, m.generation(), m.phase()))
                .isEqualTo(HeartbeatVerdict.FATAL);
        assertThat(ClassicAnswers.heartbeat(Errors.UNKNOWN_SERVER_ERROR, current, m.generation(), m.phase()))
                .isEqualTo(HeartbeatVerdict.RETRY);

        // once rejoining, REBALANCE_IN_PROGRESS asks nothing more; while a JoinGroup is out its answer decides
        m.requestRejoin("the group is rebalancing");
        assertThat(m.proceed(true, false)).isEqualTo(Next.PREPARE_JOIN);
        long epoch = m.prepareJoin();
        assertThat(ClassicAnswers.heartbeat(Errors.REBALANCE_IN_PROGRESS, current, m.generation(), m.phase()))
                .isEqualTo(HeartbeatVerdict.CONFIRMED_IN_REBALANCE);
        m.afterPrepare(epoch, current, true);
        m.joinSent(0);
        assertThat(ClassicAnswers.heartbeat(Errors.UNKNOWN_MEMBER_ID, current, m.generation(), m.phase()))
                .isEqualTo(HeartbeatVerdict.STALE_ANSWER);
    }

    @Test
    void answersOfAJoinGroupAndASyncGroupMapToVerdicts() {
        assertThat(ClassicAnswers.join(Errors.NONE)).isEqualTo(JoinVerdict.JOINED);
        assertThat(ClassicAnswers.join(Errors.MEMBER_ID_REQUIRED)).isEqualTo(JoinVerdict.JOIN_AGAIN);
        assertThat(ClassicAnswers.join(Errors.REBALANCE_IN_PROGRESS)).isEqualTo(JoinVerdict.JOIN_AGAIN);
        assertThat(ClassicAnswers.join(Errors.ILLEGAL_GENERATION)).isEqualTo(JoinVerdict.RESET_AND_PREPARE);
        assertThat(ClassicAnswers.join(Errors.COORDINATOR_NOT_AVAILABLE))
                .isEqualTo(JoinVerdict.COORDINATOR_LOST);
        assertThat(ClassicAnswers.join(Errors.GROUP_MAX_SIZE_REACHED)).isEqualTo(JoinVerdict.FATAL);
        assertThat(ClassicAnswers.join(Errors.COORDINATOR_LOAD_IN_PROGRESS))
                .isEqualTo(JoinVerdict.RETRY_LATER);
        assertThat(ClassicAnswers.join(Errors.FENCED_INSTANCE_ID)).isEqualTo(JoinVerdict.FENCED);

        ClassicMembership m = stable(RebalanceProtocol.EAGER, 4, Set.of(A0));
        Generation sent = m.generation();
        m.resetGeneration(false);
        assertThat(m.generation().memberId()).as("ILLEGAL_GENERATION keeps the member id").isEqualTo("m-1");
        assertThat(ClassicAnswers.sync(Errors.NONE, sent, m.generation())).isEqualTo(SyncVerdict.GENERATION_CHANGED);
        assertThat(ClassicAnswers.sync(Errors.REBALANCE_IN_PROGRESS, sent, m.generation()))
                .isEqualTo(SyncVerdict.PREPARE_JOIN);
        assertThat(ClassicAnswers.sync(Errors.UNKNOWN_MEMBER_ID, sent, m.generation()))
                .isEqualTo(SyncVerdict.RESET_AND_PREPARE);
        assertThat(ClassicAnswers.sync(Errors.REQUEST_TIMED_OUT, sent, m.generation()))
                .isEqualTo(SyncVerdict.RETRY_LATER);
        assertThat(ClassicAnswers.sync(Errors.INVALID_GROUP_ID, sent, m.generation())).isEqualTo(SyncVerdict.FATAL);
    }

    @Test
    void aCoordinatorLostWhileJoiningRejoinsOnceFoundAndASettledMemberKeepsItsAssignment() {
        ClassicMembership settled = stable(RebalanceProtocol.EAGER, 5, Set.of(A0));
        settled.coordinatorLost();
        assertThat(settled.phase()).isEqualTo(ClassicPhase.REDISCOVERING_COORDINATOR);
        assertThat(settled.sessionHeld()).as("the session runs while the coordinator is looked for").isTrue();
        assertThat(settled.proceed(true, false)).isEqualTo(Next.SETTLED);
        assertThat(settled.owned()).containsExactly(A0);

        ClassicMembership joining = stable(RebalanceProtocol.EAGER, 5, Set.of(A0));
        joining.requestRejoin("the group is rebalancing");
        long epoch = joining.prepareJoin();
        joining.afterPrepare(epoch, joining.generation(), true);
        joining.joinSent(0);
        assertThat(joining.joinAwaited()).isTrue();
        long before = joining.flowEpoch();
        joining.coordinatorLost();
        assertThat(joining.flowEpoch()).as("the JoinGroup's answer is retired").isGreaterThan(before);
        assertThat(joining.phase()).isEqualTo(ClassicPhase.REDISCOVERING_TO_REJOIN);
        assertThat(joining.phase().visible()).isEqualTo(MemberState.REDISCOVERING_COORDINATOR);
        assertThat(joining.proceed(true, true)).as("found while a listener call runs").isEqualTo(Next.HEARTBEAT);
        assertThat(joining.phase()).isEqualTo(ClassicPhase.REJOINING);

        ClassicMembership fresh = core(RebalanceProtocol.EAGER);
        fresh.start();
        assertThat(fresh.proceed(false, false)).isEqualTo(Next.NOTHING); // not active yet: the driver activates
        fresh.awaitCoordinator();
        assertThat(fresh.phase()).as("nothing to keep").isEqualTo(ClassicPhase.DISCOVERING_COORDINATOR);
        assertThat(fresh.proceed(true, false)).isEqualTo(Next.PREPARE_JOIN);
    }

    @Test
    void aRetriableJoinFailureWaitsInBackoffWhichIsNoJoinGroupOut() {
        ClassicMembership m = core(RebalanceProtocol.EAGER);
        m.start();
        long epoch = m.prepareJoin();
        m.afterPrepare(epoch, Generation.NONE, true);
        m.joinSent(100);
        assertThat(m.joinRetryScheduled()).isEqualTo(1);
        assertThat(m.phase()).isEqualTo(ClassicPhase.JOIN_BACKOFF);
        assertThat(m.joinAwaited()).isFalse();
        assertThat(m.joinRetryScheduled()).isEqualTo(2);
        m.joinSent(900);
        assertThat(m.joinAwaited()).isTrue();
        m.joined(new Generation(1, "m-1", "range"));
        m.syncSent(1_000);
        assertThat(m.stepNanos(1_250)).isEqualTo(250);
        assertThat(m.settled(2_000)).as("timed from the first JoinGroup of the rebalance").isEqualTo(1_900);
    }

    @Test
    void cooperativeDropsOnlyUnsubscribedTopicsAndRejoinsAfterARevocation() {
        ClassicMembership m = stable(RebalanceProtocol.COOPERATIVE, 1, Set.of(A0, A1, B0));
        m.subscribe(Set.of("a"));
        assertThat(m.subscriptionChanged()).isTrue();
        assertThat(m.toDropBeforeJoin(false)).containsExactly(B0);
        assertThat(m.toDropBeforeJoin(true)).as("lost: everything").containsExactlyInAnyOrder(A0, A1, B0);
        m.dropped(Set.of(B0));
        assertThat(m.owned()).containsExactlyInAnyOrder(A0, A1);

        ClassicMembership eager = stable(RebalanceProtocol.EAGER, 1, Set.of(A0, B0));
        eager.subscribe(Set.of("a"));
        assertThat(eager.toDropBeforeJoin(false)).containsExactlyInAnyOrder(A0, B0);

        ClassicMembership second = stable(RebalanceProtocol.COOPERATIVE, 1, Set.of(A0, A1));
        second.requestRejoin("the group is rebalancing");
        long epoch = second.prepareJoin();
        second.afterPrepare(epoch, second.generation(), true);
        second.joinSent(0);
        second.joined(new Generation(2, "m-1", "cooperative-sticky"));
        second.settled(1);
        assertThat(second.revokedBy(Set.of(A0))).containsExactly(A1);
        assertThat(second.phase()).as("a second round gives A1 to its new owner")
                .isEqualTo(ClassicPhase.STABLE_REJOIN_DUE);
        second.subscribe(Set.of("a"));
        assertThat(second.unexpectedTopics(Set.of(A0, B0))).containsExactly("b");
    }

    @Test
    void aPollTimeoutIsStaleAndDemandBringsTheMemberBack() {
        ClassicMembership m = stable(RebalanceProtocol.EAGER, 7, Set.of(A0));
        Generation had = m.pollExpired();
        assertThat(had.generationId()).isEqualTo(7);
        assertThat(m.phase()).isEqualTo(ClassicPhase.STALE);
        assertThat(m.generation()).isEqualTo(Generation.NONE);
        assertThat(m.sessionHeld()).isFalse();
        assertThat(m.pollExpired()).as("only from an active state").isNull();
        assertThat(m.pollResumed()).isTrue();
        m.awaitCoordinator();
        assertThat(m.phase()).as("the lost partitions are still being dropped")
                .isEqualTo(ClassicPhase.REDISCOVERING_TO_REJOIN);
        assertThat(m.proceed(true, false)).isEqualTo(Next.PREPARE_JOIN);
        assertThat(m.rejoinReason()).isEqualTo("consumer poll resumed");
    }

    @Test
    void leavingRevokesWhenSettledLosesWhenNotAndLeftIsForGood() {
        ClassicMembership settled = stable(RebalanceProtocol.EAGER, 2, Set.of(A0));
        assertThat(settled.leave()).isEqualTo(Leave.REVOKE);
        assertThat(settled.leave()).as("a second leave() waits for the first").isEqualTo(Leave.JOIN_WAITERS);
        settled.left();
        assertThat(settled.phase()).isEqualTo(ClassicPhase.LEFT);
        assertThat(settled.generation()).isEqualTo(Generation.NONE);
        assertThat(settled.leave()).isEqualTo(Leave.DONE);
        assertThat(settled.pollResumed()).isFalse();
        assertThat(settled.start()).isFalse();

        ClassicMembership syncing = core(RebalanceProtocol.EAGER);
        syncing.start();
        long epoch = syncing.prepareJoin();
        syncing.afterPrepare(epoch, Generation.NONE, true);
        syncing.joinSent(0);
        syncing.joined(new Generation(1, "m-1", "range"));
        assertThat(syncing.leave()).as("mid-rebalance").isEqualTo(Leave.LOSE);

        assertThat(core(RebalanceProtocol.EAGER).leave()).as("never started").isEqualTo(Leave.DONE);
    }

    @Test
    void aStepAbandonedWhileTheListenerRanDoesNotSendItsJoin() {
        ClassicMembership m = stable(RebalanceProtocol.EAGER, 3, Set.of(A0));
        m.requestRejoin("the subscription changed");
        long epoch = m.prepareJoin();
        Generation atStart = m.generation();
        assertThat(m.afterPrepare(epoch, atStart, false)).as("the coordinator moved").isEqualTo(AfterPrepare.PROCEED);

        long again = m.prepareJoin();
        m.resetGeneration(true);
        assertThat(m.afterPrepare(again, atStart, true)).as("reset while revoking, A0 still owned")
                .isEqualTo(AfterPrepare.PREPARE_AGAIN);

        long third = m.prepareJoin();
        m.abortFlow();
        assertThat(m.afterPrepare(third, m.generation(), true)).isEqualTo(AfterPrepare.NOTHING);

        m.terminated(ClassicPhase.CLOSED);
        assertThat(m.phase().visible()).isEqualTo(MemberState.CLOSED);
        assertThat(m.inactive()).isTrue();
        assertThatThrownBy(() -> m.terminated(ClassicPhase.STABLE)).isInstanceOf(IllegalArgumentException.class);
    }
}
