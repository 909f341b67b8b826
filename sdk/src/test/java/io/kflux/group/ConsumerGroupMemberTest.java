package io.kflux.group;

import static io.kflux.group.MemberHarness.tp;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConfigException;
import io.kflux.FencedInstanceIdException;
import io.kflux.KafkaProtocolException;
import io.kflux.group.FakeGroupIo.Pending;
import io.kflux.group.MemberHarness.RecordingListener;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ConsumerGroupHeartbeatRequest;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse.Assignment;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse.TopicPartitions;
import io.kflux.util.SerialExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The KIP-848 member against a scripted coordinator, on virtual time: joining, reconciliation, each error, leaving. */
class ConsumerGroupMemberTest {
    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final List<Throwable> loopErrors = new CopyOnWriteArrayList<>();
    private final SerialExecutor loop = new SerialExecutor(loopErrors::add);
    private final FakeGroupIo io = new FakeGroupIo();
    private final RecordingListener listener = new RecordingListener();
    private ConsumerGroupMember member;
    private UUID t;
    private UUID u;

    private void create(String instanceId) {
        io.cluster = FakeGroupIo.cluster(Map.of("t", 4, "u", 2));
        t = io.cluster.topic("t").topicId();
        u = io.cluster.topic("u").topicId();
        CoordinatorManager coordinators = new CoordinatorManager("g", io, time, 100, 1_000);
        member = new ConsumerGroupMember(new ConsumerGroupConfig("g", instanceId, "rack-a", "uniform", 60_000, 100,
                1_000, 30_000, 45_000), io, coordinators, loop, listener, time);
    }

    @AfterEach
    void noLoopErrors() {
        assertThat(loopErrors).isEmpty();
    }

    private Pending<?> takeHeartbeat() {
        return io.channel().take(ConsumerGroupHeartbeatRequest.class);
    }

    private ConsumerGroupHeartbeatRequest heartbeat(Pending<?> p) {
        return p.request(ConsumerGroupHeartbeatRequest.class);
    }

    private static ConsumerGroupHeartbeatResponse answer(int epoch, Map<UUID, List<Integer>> assignment) {
        List<TopicPartitions> tps = new ArrayList<>();
        if (assignment != null) {
            new TreeMap<>(assignment).forEach((id, ps) -> tps.add(new TopicPartitions(id, ps)));
        }
        return new ConsumerGroupHeartbeatResponse(0, (short) 0, null, null, epoch, 1_000,
                assignment == null ? null : new Assignment(tps));
    }

    private static ConsumerGroupHeartbeatResponse error(Errors error) {
        return new ConsumerGroupHeartbeatResponse(0, error.code(), "scripted " + error, null, -1, 0, null);
    }

    private static Map<UUID, List<Integer>> owned(ConsumerGroupHeartbeatRequest r) {
        Map<UUID, List<Integer>> m = new TreeMap<>();
        r.topicPartitions().forEach(tp -> m.put(tp.topicId(), tp.partitions()));
        return m;
    }

    /** start, coordinator on node 1, join answered with {@code assignment} at epoch 1, acknowledged: STABLE. */
    private void joinStable(Map<UUID, List<Integer>> assignment) {
        member.subscribe(List.of("t", "u"));
        member.start();
        io.answerFind(1);
        takeHeartbeat().answer(answer(1, assignment));
        if (!assignment.isEmpty()) {
            Pending<?> ack = takeHeartbeat();
            assertThat(owned(heartbeat(ack))).isEqualTo(new TreeMap<>(assignment));
            ack.answer(answer(1, null));
        }
        assertThat(member.state()).isEqualTo(ConsumerMemberState.STABLE);
    }

    @Test
    void joinsWithEpochZeroAndItsOwnMemberIdThenHeartbeatsAtTheIntervalTheBrokerGives() {
        create(null);
        member.subscribe(List.of("t"));
        member.start();
        assertThat(member.state()).isEqualTo(ConsumerMemberState.JOINING);
        io.answerFind(1);
        ConsumerGroupHeartbeatRequest join = heartbeat(takeHeartbeat());
        assertThat(join.memberEpoch()).isZero();
        assertThat(join.memberId()).hasSize(22); // KIP-1082: a UUID in Kafka's base64 form
        assertThat(join.subscribedTopicNames()).containsExactly("t");
        assertThat(join.subscribedTopicRegex()).isNull();
        assertThat(join.serverAssignor()).isEqualTo("uniform");
        assertThat(join.rackId()).isEqualTo("rack-a");
        assertThat(join.rebalanceTimeoutMs()).isEqualTo(60_000);
        assertThat(join.topicPartitions()).isEmpty();
    }

    @Test
    void aJoinAnswerIsReconciledAcknowledgedAndThenHeartbeatsFollowTheInterval() {
        create(null);
        member.subscribe(List.of("t"));
        member.start();
        io.answerFind(1);
        Pending<?> join = takeHeartbeat();
        String memberId = heartbeat(join).memberId();
        join.answer(answer(3, Map.of(t, List.of(0, 1))));
        assertThat(listener.kinds()).containsExactly("assigned");
        assertThat(listener.last().partitions()).containsExactlyInAnyOrder(tp("t", 0), tp("t", 1));
        assertThat(member.state()).isEqualTo(ConsumerMemberState.ACKNOWLEDGING);
        Pending<?> ack = takeHeartbeat(); // sent at once, not after the interval
        assertThat(heartbeat(ack).memberEpoch()).isEqualTo(3);
        assertThat(heartbeat(ack).memberId()).isEqualTo(memberId);
        assertThat(owned(heartbeat(ack))).containsExactly(Map.entry(t, List.of(0, 1)));
        ack.answer(answer(3, null));
        assertThat(member.state()).isEqualTo(ConsumerMemberState.STABLE);
        assertThat(member.generationId()).isEqualTo(3);
        assertThat(member.memberId()).isEqualTo(memberId);

        time.advanceTimeBy(Duration.ofMillis(999));
        assertThat(io.channel().hasPending(ConsumerGroupHeartbeatRequest.class)).isFalse();
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(heartbeat(takeHeartbeat()).memberEpoch()).isEqualTo(3);
    }

    @Test
    void whatLeftTheTargetIsRevokedBeforeAnythingNewIsTakenAndBothAreAcknowledgedAfter() {
        create(null);
        joinStable(Map.of(t, List.of(0, 1)));
        Sinks.Empty<Void> revoking = Sinks.empty();
        listener.revoked = s -> revoking.asMono();
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(answer(4, Map.of(t, List.of(1), u, List.of(0))));
        assertThat(member.state()).isEqualTo(ConsumerMemberState.RECONCILING);
        assertThat(listener.kinds()).containsExactly("assigned", "revoked");
        assertThat(listener.last().partitions()).containsExactly(tp("t", 0));
        assertThat(member.assignment()).as("owned until the revocation completed").contains(tp("t", 0));
        assertThat(io.channel().hasPending(ConsumerGroupHeartbeatRequest.class)).isFalse();

        revoking.tryEmitEmpty();
        assertThat(listener.kinds()).containsExactly("assigned", "revoked", "assigned");
        assertThat(listener.last().partitions()).containsExactly(tp("u", 0));
        assertThat(listener.last().assignment()).containsExactlyInAnyOrder(tp("t", 1), tp("u", 0));
        Pending<?> ack = takeHeartbeat();
        assertThat(owned(heartbeat(ack))).isEqualTo(new TreeMap<>(Map.of(t, List.of(1), u, List.of(0))));
        ack.answer(answer(4, null));
        assertThat(member.state()).isEqualTo(ConsumerMemberState.STABLE);
    }

    @Test
    void heartbeatsGoOnWhileAListenerRuns() {
        create(null);
        joinStable(Map.of(t, List.of(0)));
        listener.revoked = s -> Mono.never();
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(answer(1, Map.of()));
        assertThat(member.state()).isEqualTo(ConsumerMemberState.RECONCILING);
        time.advanceTimeBy(Duration.ofMillis(1_000));
        Pending<?> during = takeHeartbeat();
        assertThat(owned(heartbeat(during))).as("still owned while revoking").containsKey(t);
    }

    /** What the member reports to the metrics: heartbeat answers, rebalances ended and failed. */
    private static final class RecordingMetrics implements io.kflux.util.ClientMetrics {
        final List<Long> heartbeats = new CopyOnWriteArrayList<>();
        final List<Long> rebalances = new CopyOnWriteArrayList<>();
        volatile int failed;

        @Override
        public void heartbeat(long latencyNanos) {
            heartbeats.add(latencyNanos);
        }

        @Override
        public void rebalanced(long latencyNanos) {
            rebalances.add(latencyNanos);
        }

        @Override
        public void rebalanceFailed() {
            failed++;
        }
    }

    /**
     * The answer to an acknowledgement that carries a new target goes on reconciling (ACKNOWLEDGING -> RECONCILING, as
     * the official client), without passing through STABLE: one rebalance, ended once the second acknowledgement is
     * answered.
     */
    @Test
    void anAcknowledgementAnsweredWithANewTargetReconcilesAgainWithoutBecomingStable() {
        create(null);
        RecordingMetrics metrics = new RecordingMetrics();
        member.metrics(metrics);
        member.subscribe(List.of("t"));
        member.start();
        io.answerFind(1);
        takeHeartbeat().answer(answer(1, Map.of(t, List.of(0))));
        takeHeartbeat().answer(answer(2, Map.of(t, List.of(0, 1)))); // the ack's answer moves more partitions
        assertThat(listener.kinds()).containsExactly("assigned", "assigned");
        assertThat(member.state()).isEqualTo(ConsumerMemberState.ACKNOWLEDGING);
        assertThat(metrics.rebalances).as("not STABLE in between").isEmpty();
        Pending<?> ack = takeHeartbeat();
        assertThat(owned(heartbeat(ack))).isEqualTo(new TreeMap<>(Map.of(t, List.of(0, 1))));
        ack.answer(answer(2, null));
        assertThat(member.state()).isEqualTo(ConsumerMemberState.STABLE);
        assertThat(metrics.rebalances).hasSize(1);
    }

    @Test
    void heartbeatAnswersAndReconciliationsAreReportedAsTheOfficialKip848ConsumerCountsThem() {
        create(null);
        RecordingMetrics metrics = new RecordingMetrics();
        member.metrics(metrics);
        joinStable(Map.of(t, List.of(0, 1)));
        assertThat(metrics.heartbeats).as("join and acknowledgement answered").hasSize(2).allMatch(n -> n >= 0);
        assertThat(metrics.rebalances).as("reconciled until STABLE").hasSize(1);
        // a reconciliation the member is fenced in the middle of: a failed rebalance, no ended one
        listener.revoked = s -> Mono.never();
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(answer(2, Map.of(t, List.of(1))));
        assertThat(member.state()).isEqualTo(ConsumerMemberState.RECONCILING);
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(error(Errors.FENCED_MEMBER_EPOCH));
        assertThat(metrics.heartbeats).as("an error answer counts too").hasSize(4);
        assertThat(metrics.rebalances).hasSize(1);
        assertThat(metrics.failed).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(value = Errors.class, names = {"FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID", "GROUP_ID_NOT_FOUND"})
    void fencedPartitionsAreLostAndTheMemberJoinsAgainAtEpochZero(Errors error) {
        create(null);
        joinStable(Map.of(t, List.of(0, 1)));
        String memberId = member.memberId();
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(error(error));
        assertThat(listener.kinds()).containsExactly("assigned", "lost");
        assertThat(listener.last().partitions()).containsExactlyInAnyOrder(tp("t", 0), tp("t", 1));
        assertThat(member.assignment()).isEmpty();
        assertThat(member.state()).isEqualTo(ConsumerMemberState.JOINING);
        ConsumerGroupHeartbeatRequest rejoin = heartbeat(takeHeartbeat());
        assertThat(rejoin.memberEpoch()).isZero();
        assertThat(rejoin.memberId()).isEqualTo(memberId);
        assertThat(rejoin.topicPartitions()).isEmpty();
        assertThat(listener.fatal).isEmpty();
    }

    @Test
    void aFencedMemberWaitsForItsLostListenerBeforeRejoining() {
        create(null);
        joinStable(Map.of(t, List.of(0)));
        Sinks.Empty<Void> losing = Sinks.empty();
        listener.lost = s -> losing.asMono();
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(error(Errors.FENCED_MEMBER_EPOCH));
        assertThat(member.state()).isEqualTo(ConsumerMemberState.FENCED);
        time.advanceTimeBy(Duration.ofMillis(5_000));
        assertThat(io.channel().hasPending(ConsumerGroupHeartbeatRequest.class)).isFalse();
        losing.tryEmitEmpty();
        assertThat(heartbeat(takeHeartbeat()).memberEpoch()).isZero();
    }

    @Test
    void fencedInstanceIdIsFatal() {
        create("pod-1");
        joinStable(Map.of(t, List.of(0)));
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(error(Errors.FENCED_INSTANCE_ID));
        assertThat(member.state()).isEqualTo(ConsumerMemberState.FATAL);
        assertThat(listener.fatal).singleElement().isInstanceOf(FencedInstanceIdException.class);
        time.advanceTimeBy(Duration.ofMillis(10_000));
        assertThat(io.channel().hasPending(ConsumerGroupHeartbeatRequest.class)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(value = Errors.class, names = {"UNRELEASED_INSTANCE_ID", "GROUP_MAX_SIZE_REACHED",
            "GROUP_AUTHORIZATION_FAILED", "GROUP_ID_NOT_FOUND"})
    void groupLevelRefusalsOnJoinAreFatalAndTyped(Errors error) {
        create("pod-1");
        member.subscribe(List.of("t"));
        member.start();
        io.answerFind(1);
        takeHeartbeat().answer(error(error));
        assertThat(member.state()).isEqualTo(ConsumerMemberState.FATAL);
        assertThat(listener.fatal).singleElement().isInstanceOfSatisfying(KafkaProtocolException.class,
                e -> assertThat(e.errorCode()).isEqualTo(error.code()));
    }

    @Test
    void aRegexTheBrokerRefusesIsAConfigException() {
        create(null);
        member.subscribe(Pattern.compile("orders-.*"));
        member.start();
        io.answerFind(1);
        Pending<?> p = takeHeartbeat();
        ConsumerGroupHeartbeatRequest join = heartbeat(p);
        assertThat(join.subscribedTopicRegex()).isEqualTo("orders-.*");
        assertThat(join.subscribedTopicNames()).isNull();
        p.answer(error(Errors.INVALID_REGULAR_EXPRESSION));
        assertThat(listener.fatal).singleElement().isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.getMessage()).contains("orders-.*"));
        assertThat(io.interestAll).isTrue();
    }

    @Test
    void anAssignorTheBrokerLacksIsAConfigException() {
        create(null);
        member.subscribe(List.of("t"));
        member.start();
        io.answerFind(1);
        takeHeartbeat().answer(error(Errors.UNSUPPORTED_ASSIGNOR));
        assertThat(listener.fatal).singleElement().isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.key()).isEqualTo("group.remote.assignor"));
    }

    @Test
    void aCoordinatorMoveKeepsEpochAndPartitions() {
        create(null);
        joinStable(Map.of(t, List.of(0)));
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(error(Errors.NOT_COORDINATOR));
        assertThat(io.finds).hasSize(1);
        io.answerFind(2);
        assertThat(io.channel().nodeId).isEqualTo(2);
        ConsumerGroupHeartbeatRequest again = heartbeat(takeHeartbeat());
        assertThat(again.memberEpoch()).isEqualTo(1);
        assertThat(owned(again)).containsKey(t);
        assertThat(listener.kinds()).containsExactly("assigned");
        assertThat(member.state()).isEqualTo(ConsumerMemberState.STABLE);
    }

    @Test
    void noHeartbeatAnswerForTheSessionTimeoutLosesThePartitionsAndJoinsAgainAtEpochZero() {
        create(null);
        joinStable(Map.of(t, List.of(0))); // the last answer at 0 confirms the session
        time.advanceTimeBy(Duration.ofMillis(1_000));
        Pending<?> unanswered = takeHeartbeat(); // the coordinator goes silent
        time.advanceTimeBy(Duration.ofMillis(43_999));
        assertThat(listener.kinds()).containsExactly("assigned");
        assertThat(member.assignment()).containsExactly(tp("t", 0));
        time.advanceTimeBy(Duration.ofMillis(1));
        // issue #15: the broker may have fenced the member by now; it must not go on emitting its partitions
        assertThat(listener.holdBacks).containsExactly(true);
        assertThat(listener.kinds()).containsExactly("assigned");
        time.advanceTimeBy(Duration.ofMillis(44_999));
        assertThat(listener.kinds()).containsExactly("assigned");
        time.advanceTimeBy(Duration.ofMillis(1)); // as long again without an answer: the session is over
        assertThat(listener.kinds()).containsExactly("assigned", "lost");
        assertThat(member.assignment()).isEmpty();
        assertThat(member.state()).isEqualTo(ConsumerMemberState.JOINING);
        assertThat(io.finds).as("the coordinator is looked up afresh").hasSize(1);
        io.answerFind(2);
        Pending<?> rejoinCall = takeHeartbeat();
        ConsumerGroupHeartbeatRequest rejoin = heartbeat(rejoinCall);
        assertThat(rejoin.memberEpoch()).isZero();
        assertThat(rejoin.topicPartitions()).isEmpty();
        unanswered.answer(answer(1, null)); // a late answer from the old session decides nothing
        assertThat(member.state()).isEqualTo(ConsumerMemberState.JOINING);
        assertThat(listener.holdBacks).containsExactly(true);
        rejoinCall.answer(answer(3, null)); // the new session: records flow again
        assertThat(listener.holdBacks).containsExactly(true, false);
    }

    /**
     * FENCED_INSTANCE_ID from the new coordinator while the session is in doubt: another instance owns the partitions
     * now, so the held-back records stay held while the member fails (the consumer ends with the error).
     */
    @Test
    void aFatalErrorWhileInDoubtKeepsTheRecordsHeldBack() {
        create("i1");
        joinStable(Map.of(t, List.of(0)));
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(answer(1, null));
        io.channel().drop();
        time.advanceTimeBy(Duration.ofMillis(46_000));
        assertThat(listener.holdBacks).containsExactly(true);
        io.answerFind(2);
        takeHeartbeat().answer(error(Errors.FENCED_INSTANCE_ID));
        assertThat(listener.fatal).singleElement().isInstanceOf(FencedInstanceIdException.class);
        assertThat(listener.holdBacks).containsExactly(true);
    }

    /**
     * The coordinator moved (its node died) and the member's lookups found the new one only after the session
     * deadline; the new coordinator loaded the group and kept the member: records were held back from the deadline
     * to its first answer, and the partitions stay (no lost, no rejoin).
     */
    @Test
    void aCoordinatorFoundJustAfterTheSessionDeadlineKeepsThePartitions() {
        create(null);
        joinStable(Map.of(t, List.of(0)));
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(answer(1, null)); // confirmed at 1 s
        io.channel().drop();
        time.advanceTimeBy(Duration.ofMillis(46_000));
        assertThat(listener.holdBacks).containsExactly(true);
        io.answerFind(2);
        Pending<?> firstCall = takeHeartbeat();
        assertThat(heartbeat(firstCall).memberEpoch()).isEqualTo(1);
        assertThat(listener.holdBacks).containsExactly(true);
        firstCall.answer(answer(1, null));
        assertThat(listener.holdBacks).containsExactly(true, false);
        assertThat(listener.kinds()).containsExactly("assigned");
        assertThat(member.assignment()).containsExactly(tp("t", 0));
    }

    @Test
    void aCoordinatorThatCannotBeFoundEndsTheSessionAtItsTimeout() {
        create(null);
        joinStable(Map.of(t, List.of(0)));
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(answer(1, null)); // confirmed at 1 s
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat(); // at 2 s the connection breaks
        io.channel().drop();
        time.advanceTimeBy(Duration.ofMillis(43_999));
        assertThat(listener.kinds()).containsExactly("assigned");
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(listener.holdBacks).containsExactly(true);
        time.advanceTimeBy(Duration.ofMillis(44_999));
        assertThat(listener.kinds()).containsExactly("assigned");
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(listener.kinds()).containsExactly("assigned", "lost");
        assertThat(member.state()).isEqualTo(ConsumerMemberState.JOINING);
    }

    @Test
    void aLoadingCoordinatorIsAskedAgainAfterTheBackoff() {
        create(null);
        member.subscribe(List.of("t"));
        member.start();
        io.answerFind(1);
        takeHeartbeat().answer(error(Errors.COORDINATOR_LOAD_IN_PROGRESS));
        time.advanceTimeBy(Duration.ofMillis(79)); // retry.backoff.ms 100, -20% jitter
        assertThat(io.channel().hasPending(ConsumerGroupHeartbeatRequest.class)).isFalse();
        time.advanceTimeBy(Duration.ofMillis(41));
        assertThat(heartbeat(takeHeartbeat()).memberEpoch()).isZero();
        assertThat(listener.fatal).isEmpty();
    }

    @Test
    void assignedTopicIdsWaitForMetadataThatNamesThem() {
        create(null);
        member.subscribe(List.of("t", "v"));
        member.start();
        io.answerFind(1);
        UUID v = UUID.randomUUID();
        int refreshes = io.refreshCount;
        takeHeartbeat().answer(answer(1, Map.of(v, List.of(0))));
        assertThat(listener.calls).isEmpty();
        assertThat(io.refreshCount).isGreaterThan(refreshes);
        assertThat(member.state()).isEqualTo(ConsumerMemberState.JOINING);
        int afterFirst = io.refreshCount;
        time.advanceTimeBy(Duration.ofMillis(79)); // retry.backoff.ms 100, -20% jitter
        assertThat(io.refreshCount).as("no tight refresh loop").isEqualTo(afterFirst);
        time.advanceTimeBy(Duration.ofMillis(41));
        assertThat(io.refreshCount).isEqualTo(afterFirst + 1);
        // the topic appears in metadata: the assignment is taken
        io.cluster = FakeGroupIo.clusterWithIds(Map.of("t", t, "v", v));
        time.advanceTimeBy(Duration.ofMillis(1_000));
        assertThat(listener.kinds()).containsExactly("assigned");
        assertThat(listener.last().partitions()).containsExactly(tp("v", 0));
    }

    @Test
    void leavingRevokesThenSendsEpochMinusOne() {
        create(null);
        joinStable(Map.of(t, List.of(0)));
        boolean[] done = new boolean[1];
        member.leave("closing").subscribe(null, null, () -> done[0] = true);
        assertThat(listener.kinds()).containsExactly("assigned", "revoked");
        Pending<?> leave = takeHeartbeat();
        assertThat(heartbeat(leave).memberEpoch()).isEqualTo(ConsumerGroupHeartbeatRequest.LEAVE_EPOCH);
        assertThat(done[0]).isFalse();
        leave.answer(answer(-1, null));
        assertThat(done[0]).isTrue();
        assertThat(member.state()).isEqualTo(ConsumerMemberState.LEFT);
        assertThat(member.isOut()).isTrue();
    }

    @Test
    void leavingWhileTheJoinIsUnansweredStillLeaves() {
        create(null);
        member.subscribe(List.of("t"));
        member.start();
        io.answerFind(1);
        Pending<?> join = takeHeartbeat();
        member.leave("closing").subscribe();
        Pending<?> leave = takeHeartbeat();
        assertThat(heartbeat(leave).memberEpoch()).isEqualTo(ConsumerGroupHeartbeatRequest.LEAVE_EPOCH);
        assertThat(heartbeat(leave).memberId()).isEqualTo(heartbeat(join).memberId());
        join.answer(answer(1, Map.of(t, List.of(0)))); // a late join answer changes nothing
        leave.answer(answer(-1, null));
        assertThat(listener.calls).isEmpty();
        assertThat(member.state()).isEqualTo(ConsumerMemberState.LEFT);
    }

    @Test
    void aStaticMemberLeavesWithEpochMinusTwo() {
        create("pod-1");
        joinStable(Map.of(t, List.of(0)));
        member.leave("restart").subscribe();
        ConsumerGroupHeartbeatRequest leave = heartbeat(takeHeartbeat());
        assertThat(leave.memberEpoch()).isEqualTo(ConsumerGroupHeartbeatRequest.STATIC_LEAVE_EPOCH);
        assertThat(leave.instanceId()).isEqualTo("pod-1");
    }

    @Test
    void aPollTimeoutLosesThePartitionsLeavesAndJoinsAgainWhenDemandReturns() {
        create(null);
        joinStable(Map.of(t, List.of(0)));
        member.pollTimeoutExpired();
        assertThat(listener.kinds()).containsExactly("assigned", "lost");
        takeHeartbeat().answer(answer(-1, null));
        assertThat(member.state()).isEqualTo(ConsumerMemberState.STALE);
        member.pollResumed();
        assertThat(member.state()).isEqualTo(ConsumerMemberState.JOINING);
        assertThat(heartbeat(takeHeartbeat()).memberEpoch()).isZero();
    }

    @Test
    void closeStopsHeartbeatsWithoutListenerCalls() {
        create(null);
        joinStable(Map.of(t, List.of(0)));
        member.close();
        time.advanceTimeBy(Duration.ofMillis(10_000));
        assertThat(io.channel().hasPending(ConsumerGroupHeartbeatRequest.class)).isFalse();
        assertThat(listener.kinds()).containsExactly("assigned");
        assertThat(member.state()).isEqualTo(ConsumerMemberState.CLOSED);
    }

    @Test
    void clientGeneratedMemberIdsAreDistinct() {
        Set<String> ids = new java.util.HashSet<>();
        for (int i = 0; i < 100; i++) {
            ids.add(ConsumerGroupMember.newMemberId());
        }
        assertThat(ids).hasSize(100).allSatisfy(id -> assertThat(id).hasSize(22).doesNotContain("=", "+", "/"));
    }
}
