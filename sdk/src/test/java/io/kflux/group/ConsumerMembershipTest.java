package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.TopicPartition;
import io.kflux.group.ConsumerMembership.Answer;
import io.kflux.group.ConsumerMembership.Ask;
import io.kflux.group.ConsumerMembership.Leave;
import io.kflux.group.ConsumerMembership.Move;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ConsumerGroupHeartbeatRequest;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse;
import io.kflux.util.StateTransitions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The KIP-848 member's pure core, event by event, without a member, a network, a clock or a listener: heartbeat
 * answers are records, metadata is a function from topic id to name, the listener's completions are calls.
 */
class ConsumerMembershipTest {
    private static final UUID A = new UUID(1, 1);
    private static final UUID B = new UUID(2, 2);
    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);
    private static final Function<UUID, String> NAMES = id -> id.equals(A) ? "a" : id.equals(B) ? "b" : null;

    private final List<ConsumerPhase> moves = new ArrayList<>();
    /** Every move of every core a test made, as {from, to}. */
    private final List<ConsumerPhase[]> pairs = new ArrayList<>();

    private ConsumerMembership core(String instanceId) {
        ConsumerPhase[] last = {ConsumerPhase.UNSUBSCRIBED};
        return new ConsumerMembership(new ConsumerGroupConfig("g", instanceId, null, "uniform", 60_000, 100, 1_000,
                30_000, 45_000), "m-1", next -> {
                    moves.add(next);
                    pairs.add(new ConsumerPhase[] {last[0], next});
                    last[0] = next;
                });
    }

    private static ConsumerGroupHeartbeatResponse answer(int epoch, Map<UUID, List<Integer>> assignment) {
        return new ConsumerGroupHeartbeatResponse(0, (short) 0, null, "m-broker", epoch, 3_000,
                assignment == null ? null : new ConsumerGroupHeartbeatResponse.Assignment(assignment.entrySet().stream()
                        .map(e -> new ConsumerGroupHeartbeatResponse.TopicPartitions(e.getKey(), e.getValue()))
                        .toList()));
    }

    /** Sends a heartbeat and has it answered with {@code response}; returns what the core judged. */
    private static Answer heartbeat(ConsumerMembership m, ConsumerGroupHeartbeatResponse response) {
        assertThat(m.heartbeatAsked()).isEqualTo(Ask.SEND);
        ConsumerGroupHeartbeatRequest sent = m.sending();
        Set<TopicPartition> reported = m.owned();
        Answer a = m.judge(sent, Errors.forCode(response.errorCode()), true);
        if (a == Answer.ACCEPT) {
            m.accept(reported, response, NAMES);
        }
        m.heartbeatEnded();
        return a;
    }

    /** Joins, is assigned {@code a-0}, {@code a-1} at epoch 1, reconciles and acknowledges: STABLE. */
    private ConsumerMembership stable() {
        ConsumerMembership m = core(null);
        m.subscribe(Set.of("a", "b"));
        assertThat(m.start()).isTrue();
        assertThat(heartbeat(m, answer(1, Map.of(A, List.of(0, 1))))).isEqualTo(Answer.ACCEPT);
        Move move = (Move) m.reconcile(NAMES);
        assertThat(move.move().revoked()).isEmpty();
        assertThat(move.move().added()).containsExactlyInAnyOrder(A0, A1);
        m.dropped(Set.of());
        assertThat(m.take(move)).isTrue();
        assertThat(m.acknowledge(move)).isTrue();
        assertThat(heartbeat(m, answer(1, null))).isEqualTo(Answer.ACCEPT);
        assertThat(m.phase()).isEqualTo(ConsumerPhase.STABLE);
        return m;
    }

    @Test
    void theJoinPathMovesThroughCheckedPhasesAndShowsTheMemberStates() {
        ConsumerMembership m = stable();
        assertThat(moves).containsExactly(ConsumerPhase.JOINING, ConsumerPhase.JOIN_SENT, ConsumerPhase.RECONCILING,
                ConsumerPhase.ACKNOWLEDGING, ConsumerPhase.STABLE);
        assertThat(moves.stream().map(ConsumerPhase::visible)).containsExactly(ConsumerMemberState.JOINING,
                ConsumerMemberState.JOINING, ConsumerMemberState.RECONCILING, ConsumerMemberState.ACKNOWLEDGING,
                ConsumerMemberState.STABLE);
        assertThat(m.owned()).containsExactlyInAnyOrder(A0, A1);
        assertThat(m.memberId()).as("the broker's id wins").isEqualTo("m-broker");
        assertThat(m.epoch()).isEqualTo(1);
        assertThat(m.everJoined()).isTrue();
        assertThat(m.sessionHeld()).isTrue();
        assertThat(m.intervalMs()).isEqualTo(3_000);
        assertThat(m.start()).as("started once").isFalse();
    }

    @Test
    void everyPhaseShowsAsAMemberStateWhoseTableAllowsEachPhaseMove() {
        for (ConsumerPhase to : ConsumerPhase.values()) {
            for (ConsumerPhase from : to.previousValidStates()) {
                if (from.visible() != to.visible()) {
                    assertThat(to.visible().previousValidStates()).as(from + " -> " + to).contains(from.visible());
                }
            }
        }
        for (ConsumerPhase p : ConsumerPhase.values()) {
            assertThat(p.isActive()).as(p.name()).isEqualTo(p.visible().isActive());
            assertThat(p.isTerminal()).as(p.name()).isEqualTo(p.visible().isTerminal());
        }
        assertThat(ConsumerPhase.UNSUBSCRIBED.previousValidStates()).isEmpty();
    }

    @Test
    void everyMoveTheTestsMadeIsAnAllowedMoveAndEveryPhaseIsReached() {
        // each scenario below, run again here, records its moves; all of them together reach every phase
        for (Runnable scenario : List.<Runnable>of(this::theJoinPathMovesThroughCheckedPhasesAndShowsTheMemberStates,
                this::aNewTargetRevokesFirstThenTakesAndAcknowledges, this::fencedReportsLostAndJoinsAgainAtEpochZero,
                this::leaveRevokesThenSendsTheLeaveHeartbeatAndEndsLeft,
                this::aPollTimeoutReportsLostLeavesAndEndsStaleThenJoinsAgain,
                this::aMemberThatNeverSentAJoinLeavesWithoutAHeartbeat, this::terminalPhasesFollowFailAndClose,
                this::unknownTopicIdsWaitForMetadataAndSettledJoinsGoStraightToStable)) {
            scenario.run();
        }
        EnumSet<ConsumerPhase> reached = EnumSet.of(ConsumerPhase.UNSUBSCRIBED);
        for (ConsumerPhase[] move : pairs) {
            assertThat(move[1].previousValidStates()).as(move[0] + " -> " + move[1]).contains(move[0]);
            reached.add(move[1]);
        }
        assertThat(reached).containsExactlyInAnyOrder(ConsumerPhase.values());
    }

    @Test
    void aNewTargetRevokesFirstThenTakesAndAcknowledges() {
        ConsumerMembership m = stable();
        assertThat(heartbeat(m, answer(2, Map.of(A, List.of(0), B, List.of(0))))).isEqualTo(Answer.ACCEPT);
        Move move = (Move) m.reconcile(NAMES);
        assertThat(m.phase()).isEqualTo(ConsumerPhase.RECONCILING);
        assertThat(move.move().revoked()).containsExactly(A1);
        assertThat(move.move().added()).containsExactly(B0);
        assertThat(m.reconcile(NAMES)).as("one reconciliation at a time").isInstanceOf(ConsumerMembership.Idle.class);
        m.dropped(move.move().revoked());
        assertThat(m.owned()).containsExactly(A0);
        assertThat(m.take(move)).isTrue();
        assertThat(m.owned()).containsExactlyInAnyOrder(A0, B0);
        assertThat(m.acknowledge(move)).isTrue();
        ConsumerGroupHeartbeatRequest ack = m.sending();
        assertThat(ack.memberEpoch()).isEqualTo(2);
        assertThat(ack.topicPartitions()).extracting(ConsumerGroupHeartbeatRequest.TopicPartitions::topicId)
                .containsExactlyInAnyOrder(A, B);
        m.heartbeatEnded();
        // an answer that reports less than owned now does not settle; the one after the acknowledgement does
        m.accept(Set.of(A0), answer(2, null), NAMES);
        assertThat(m.phase()).isEqualTo(ConsumerPhase.ACKNOWLEDGING);
        m.accept(Set.of(A0, B0), answer(2, null), NAMES);
        assertThat(m.phase()).isEqualTo(ConsumerPhase.STABLE);
    }

    @Test
    void unknownTopicIdsWaitForMetadataAndSettledJoinsGoStraightToStable() {
        ConsumerMembership m = core(null);
        m.subscribe(Pattern.compile("a.*"));
        m.start();
        UUID unknown = new UUID(9, 9);
        heartbeat(m, answer(1, Map.of(unknown, List.of(0))));
        assertThat(m.reconcile(NAMES)).isEqualTo(new ConsumerMembership.AwaitTopicIds(Set.of(unknown)));
        assertThat(m.phase()).isEqualTo(ConsumerPhase.JOIN_SENT);
        heartbeat(m, answer(1, Map.of()));
        assertThat(m.reconcile(NAMES)).isInstanceOf(ConsumerMembership.Settled.class);
        assertThat(m.phase()).isEqualTo(ConsumerPhase.STABLE);
        assertThat(m.sending().subscribedTopicRegex()).isEqualTo("a.*");
    }

    @Test
    void theHeartbeatLoopKeepsOneOutAndOneAskedForMeanwhile() {
        ConsumerMembership m = core(null);
        m.start();
        assertThat(m.heartbeatAsked()).isEqualTo(Ask.SEND);
        ConsumerGroupHeartbeatRequest join = m.sending();
        assertThat(join.memberEpoch()).isZero();
        assertThat(m.heartbeatAsked()).isEqualTo(Ask.AFTER_THE_ONE_OUT);
        assertThat(m.heartbeat()).isEqualTo(HeartbeatPhase.IN_FLIGHT_THEN_AGAIN);
        assertThat(m.heartbeatAsked()).isEqualTo(Ask.AFTER_THE_ONE_OUT);
        assertThat(m.heartbeatEnded()).as("the one asked for goes next").isTrue();
        assertThat(m.heartbeatEnded()).isFalse();
        assertThat(m.heartbeatFailed()).isEqualTo(1);
        assertThat(m.heartbeatFailed()).isEqualTo(2);
        m.coordinatorFound();
        assertThat(m.heartbeatFailed()).as("a coordinator found starts the backoff again").isEqualTo(1);
    }

    @Test
    void answersAreJudgedByErrorAndStaleOnesDecideNothing() {
        ConsumerMembership m = stable();
        ConsumerGroupHeartbeatRequest sent = m.sending();
        assertThat(m.judge(sent, Errors.NONE, false)).as("from a coordinator no longer current")
                .isEqualTo(Answer.STALE_ANSWER);
        assertThat(m.judge(sent, Errors.FENCED_MEMBER_EPOCH, true)).isEqualTo(Answer.FENCED);
        assertThat(m.judge(sent, Errors.UNKNOWN_MEMBER_ID, true)).isEqualTo(Answer.FENCED);
        assertThat(m.judge(sent, Errors.NOT_COORDINATOR, true)).isEqualTo(Answer.COORDINATOR_LOST);
        assertThat(m.judge(sent, Errors.COORDINATOR_NOT_AVAILABLE, true)).isEqualTo(Answer.COORDINATOR_LOST);
        assertThat(m.judge(sent, Errors.COORDINATOR_LOAD_IN_PROGRESS, true)).isEqualTo(Answer.RETRY);
        assertThat(m.judge(sent, Errors.FENCED_INSTANCE_ID, true)).isEqualTo(Answer.FENCED_INSTANCE);
        assertThat(m.judge(sent, Errors.INVALID_REGULAR_EXPRESSION, true)).isEqualTo(Answer.INVALID_PATTERN);
        assertThat(m.judge(sent, Errors.UNSUPPORTED_ASSIGNOR, true)).isEqualTo(Answer.UNSUPPORTED_ASSIGNOR);
        assertThat(m.judge(sent, Errors.TOPIC_AUTHORIZATION_FAILED, true)).isEqualTo(Answer.TOPIC_AUTHORIZATION);
        assertThat(m.judge(sent, Errors.GROUP_AUTHORIZATION_FAILED, true)).isEqualTo(Answer.FATAL);
        assertThat(m.judge(sent, Errors.UNRELEASED_INSTANCE_ID, true)).isEqualTo(Answer.FATAL);
        m.heartbeatEnded();
        m.fenced();
        assertThat(m.judge(sent, Errors.NONE, true)).as("an answer for the membership given up")
                .isEqualTo(Answer.STALE_ANSWER);
    }

    /**
     * The cluster behind {@code bootstrap.servers} was replaced (KIP-899 rebootstrap) and the new cluster's
     * coordinator knows no such group: at an epoch that is GROUP_ID_NOT_FOUND, and the member joins the new cluster
     * anew at epoch 0 with nothing owned (which creates the group there). At epoch 0 the same code means a group of
     * another type: fatal, not a join loop.
     */
    @Test
    void aCoordinatorWithoutTheGroupFencesAMemberWithAnEpochAndRefusesAJoin() {
        ConsumerMembership m = stable();
        ConsumerGroupHeartbeatRequest sent = m.sending();
        assertThat(sent.memberEpoch()).isPositive();
        assertThat(m.judge(sent, Errors.GROUP_ID_NOT_FOUND, true)).isEqualTo(Answer.FENCED);
        m.heartbeatEnded();
        m.fenced();
        m.dropped(m.owned());
        assertThat(m.lostReported()).isTrue();
        ConsumerGroupHeartbeatRequest join = m.sending();
        assertThat(join.memberEpoch()).isZero();
        assertThat(join.topicPartitions()).isEmpty();
        assertThat(m.judge(join, Errors.GROUP_ID_NOT_FOUND, true)).as("at epoch 0: a group of another type")
                .isEqualTo(Answer.FATAL);
    }

    @Test
    void fencedReportsLostAndJoinsAgainAtEpochZero() {
        ConsumerMembership m = stable();
        long flow = m.flowEpoch();
        m.fenced();
        assertThat(m.phase()).isEqualTo(ConsumerPhase.FENCED);
        assertThat(m.flowEpoch()).as("continuations of the reconciliation retired").isGreaterThan(flow);
        assertThat(m.epoch()).isZero();
        assertThat(m.sessionHeld()).isFalse();
        assertThat(m.heartbeatAllowed()).isFalse();
        m.dropped(m.owned());
        assertThat(m.lostReported()).isTrue();
        assertThat(m.phase()).isEqualTo(ConsumerPhase.JOINING);
        assertThat(m.sending().memberEpoch()).isZero();
        assertThat(m.phase()).isEqualTo(ConsumerPhase.JOIN_SENT);
        assertThat(m.lostReported()).as("only from FENCED").isFalse();
    }

    @Test
    void aReconciliationRetiredByFencingTakesNothing() {
        ConsumerMembership m = stable();
        heartbeat(m, answer(2, Map.of(A, List.of(0, 1), B, List.of(0))));
        Move move = (Move) m.reconcile(NAMES);
        m.fenced();
        assertThat(m.take(move)).isFalse();
        assertThat(m.acknowledge(move)).isFalse();
        assertThat(m.owned()).doesNotContain(B0);
    }

    @Test
    void leaveRevokesThenSendsTheLeaveHeartbeatAndEndsLeft() {
        ConsumerMembership m = stable();
        Leave plan = m.leave(false);
        assertThat(plan).isEqualTo(new Leave(false, true));
        assertThat(m.phase()).isEqualTo(ConsumerPhase.PREPARE_LEAVING);
        assertThat(m.phase().visible()).isEqualTo(ConsumerMemberState.LEAVING);
        assertThat(m.heartbeatAllowed()).isFalse();
        m.dropped(m.owned());
        assertThat(m.phase().isPreparingToLeave()).isTrue();
        assertThat(m.leaveSending().memberEpoch()).isEqualTo(ConsumerGroupHeartbeatRequest.LEAVE_EPOCH);
        assertThat(m.phase()).isEqualTo(ConsumerPhase.LEAVING);
        m.leaveDone();
        assertThat(m.phase()).isEqualTo(ConsumerPhase.LEFT);
        assertThat(m.epoch()).isZero();
        assertThat(m.pollResumed()).as("LEFT is for good").isFalse();
        assertThatThrownBy(() -> StateTransitions.check(ConsumerPhase.LEFT, ConsumerPhase.JOINING))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aStaticMemberLeavesWithEpochMinusTwo() {
        ConsumerMembership m = core("instance-1");
        m.start();
        heartbeat(m, answer(4, null));
        m.leave(false);
        assertThat(m.leaveSending().memberEpoch()).isEqualTo(ConsumerGroupHeartbeatRequest.STATIC_LEAVE_EPOCH);
    }

    @Test
    void aPollTimeoutReportsLostLeavesAndEndsStaleThenJoinsAgain() {
        ConsumerMembership m = stable();
        assertThat(m.leave(true)).isEqualTo(new Leave(true, true));
        assertThat(m.phase()).isEqualTo(ConsumerPhase.PREPARE_STALE);
        m.dropped(m.owned());
        assertThat(m.leaveSending().memberEpoch()).isEqualTo(ConsumerGroupHeartbeatRequest.LEAVE_EPOCH);
        assertThat(m.phase()).isEqualTo(ConsumerPhase.LEAVING_TO_STALE);
        m.leaveDone();
        assertThat(m.phase()).isEqualTo(ConsumerPhase.STALE);
        assertThat(m.pollResumed()).isTrue();
        assertThat(m.phase()).isEqualTo(ConsumerPhase.JOINING);
        assertThat(m.epoch()).isZero();
    }

    @Test
    void aMemberThatNeverSentAJoinLeavesWithoutAHeartbeat() {
        ConsumerMembership m = core(null);
        m.start();
        assertThat(m.leave(false)).as("JOINING, nothing sent: lost, nothing to tell").isEqualTo(new Leave(true, false));
        m.leaveDone();
        assertThat(m.phase()).isEqualTo(ConsumerPhase.LEFT);

        ConsumerMembership sent = core(null);
        sent.start();
        sent.sending();
        assertThat(sent.leave(false)).as("a join the coordinator may have taken is left too")
                .isEqualTo(new Leave(true, true));

        ConsumerMembership stale = core(null);
        stale.start();
        stale.sending();
        assertThat(stale.leave(true)).as("a poll timeout without an epoch").isEqualTo(new Leave(true, false));
        stale.leaveDone();
        assertThat(stale.phase()).isEqualTo(ConsumerPhase.STALE);
    }

    @Test
    void terminalPhasesFollowFailAndClose() {
        ConsumerMembership m = stable();
        m.terminated(ConsumerPhase.FATAL);
        assertThat(m.phase()).isEqualTo(ConsumerPhase.FATAL);
        m.leaveDone();
        assertThat(m.phase()).as("a leave ending after the member failed changes nothing").isEqualTo(ConsumerPhase.FATAL);
        ConsumerMembership c = core(null);
        c.terminated(ConsumerPhase.CLOSED);
        assertThat(c.phase()).isEqualTo(ConsumerPhase.CLOSED);
        assertThatThrownBy(() -> c.terminated(ConsumerPhase.STABLE)).isInstanceOf(IllegalArgumentException.class);
    }
}
