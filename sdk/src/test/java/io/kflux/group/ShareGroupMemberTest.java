package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.KafkaFluxException;
import io.kflux.TopicPartition;
import io.kflux.group.FakeGroupIo.Pending;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse;
import io.kflux.protocol.message.ShareGroupHeartbeatRequest;
import io.kflux.protocol.message.ShareGroupHeartbeatResponse;
import io.kflux.util.Backoff;
import io.kflux.util.SerialExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The share member's driver against a scripted coordinator, on virtual time: its session is timed by the same
 * {@link SessionTimer} as the consumer group members' (session timeout 10 s here).
 */
class ShareGroupMemberTest {
    private static final UUID JOBS = new UUID(0, 7);
    private static final long SESSION_MS = 10_000;

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final List<Throwable> loopErrors = new CopyOnWriteArrayList<>();
    private final SerialExecutor loop = new SerialExecutor(loopErrors::add);
    private final FakeGroupIo io = new FakeGroupIo();
    /** Each assignment the member reported, and whether it said the one before was lost. */
    private final List<Map<TopicPartition, UUID>> assignments = new ArrayList<>();
    private final List<Boolean> lost = new ArrayList<>();
    private final List<KafkaFluxException> fatal = new ArrayList<>();
    private ShareGroupMember member;

    @BeforeEach
    void create() {
        io.cluster = FakeGroupIo.clusterWithIds(Map.of("jobs", JOBS));
        CoordinatorManager coordinators = new CoordinatorManager("workers", io, time, 100, 1_000);
        member = new ShareGroupMember("workers", List.of("jobs"), null, new Backoff(100, 1_000), io, coordinators,
                loop, time, 30_000, SESSION_MS, new ShareGroupMember.Listener() {
                    @Override
                    public void onAssignment(Map<TopicPartition, UUID> partitions, boolean wasLost) {
                        assignments.add(partitions);
                        lost.add(wasLost);
                    }

                    @Override
                    public void onFatalError(KafkaFluxException error) {
                        fatal.add(error);
                    }
                });
    }

    @AfterEach
    void noErrors() {
        assertThat(loopErrors).isEmpty();
        assertThat(fatal).isEmpty();
    }

    private static ShareGroupHeartbeatResponse ok(int epoch, Integer... partitions) {
        ConsumerGroupHeartbeatResponse.Assignment assignment = partitions.length == 0 ? null
                : new ConsumerGroupHeartbeatResponse.Assignment(List.of(
                        new ConsumerGroupHeartbeatResponse.TopicPartitions(JOBS, List.of(partitions))));
        return new ShareGroupHeartbeatResponse(0, Errors.NONE.code(), null, null, epoch, 1_000, assignment);
    }

    private static ShareGroupHeartbeatResponse error(Errors e) {
        return new ShareGroupHeartbeatResponse(0, e.code(), "scripted " + e, null, 0, 0, null);
    }

    private Pending<?> takeHeartbeat() {
        return io.channel().take(ShareGroupHeartbeatRequest.class);
    }

    private static ShareGroupHeartbeatRequest request(Pending<?> p) {
        return p.request(ShareGroupHeartbeatRequest.class);
    }

    /** Joins at t=0 on coordinator node 1 and gets jobs-0 and jobs-1 at epoch 1 (the join sent at 0 confirms). */
    private void joinStable() {
        member.start();
        io.answerFind(1);
        Pending<?> join = takeHeartbeat();
        assertThat(request(join).memberEpoch()).isZero();
        join.answer(ok(1, 0, 1));
        assertThat(assignments).containsExactly(Map.of(new TopicPartition("jobs", 0), JOBS,
                new TopicPartition("jobs", 1), JOBS));
        assertThat(member.memberEpoch()).isEqualTo(1);
    }

    /** Advances to {@code untilMs} in 100 ms steps, answering every heartbeat that goes out with {@code answer}. */
    private void failHeartbeatsUntil(long untilMs, Errors answer) {
        while (time.now(TimeUnit.MILLISECONDS) < untilMs) {
            time.advanceTimeBy(Duration.ofMillis(100));
            while (io.channel().hasPending(ShareGroupHeartbeatRequest.class)) {
                takeHeartbeat().answer(error(answer));
            }
        }
    }

    @Test
    void heartbeatsFailingPastTheSessionTimeoutAndAsLongAgainLoseTheAssignmentAndRejoinWithEpochZero() {
        joinStable();
        failHeartbeatsUntil(2 * SESSION_MS - 100, Errors.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(lost).as("in doubt past the session timeout, but not lost yet").containsExactly(false);
        assertThat(io.finds).as("a retriable error keeps the coordinator").isEmpty();

        time.advanceTimeBy(Duration.ofMillis(100)); // no answer for the session timeout and as long again
        assertThat(assignments).hasSize(2);
        assertThat(assignments.get(1)).as("the assignment is dropped").isEmpty();
        assertThat(lost).as("as lost: its records are not this member's any more").containsExactly(false, true);
        assertThat(member.memberEpoch()).isZero();
        assertThat(io.finds).as("the coordinator is looked up afresh").hasSize(1);

        io.answerFind(2);
        assertThat(io.channel().nodeId).isEqualTo(2);
        Pending<?> rejoin = takeHeartbeat();
        assertThat(request(rejoin).memberEpoch()).as("joins again as a new member").isZero();
        assertThat(request(rejoin).subscribedTopicNames()).containsExactly("jobs");
        rejoin.answer(ok(3, 1));
        assertThat(assignments.get(2)).containsOnlyKeys(new TopicPartition("jobs", 1));
        assertThat(lost).containsExactly(false, true, false);
        assertThat(member.memberEpoch()).isEqualTo(3);
    }

    @Test
    void aSilentCoordinatorEndsTheSessionTooAndALateAnswerFromTheOldSessionDecidesNothing() {
        joinStable();
        time.advanceTimeBy(Duration.ofMillis(1_000));
        Pending<?> unanswered = takeHeartbeat(); // the coordinator goes silent
        time.advanceTimeBy(Duration.ofMillis(2 * SESSION_MS - 1_001));
        assertThat(lost).containsExactly(false);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(lost).containsExactly(false, true);

        io.answerFind(1);
        Pending<?> rejoin = takeHeartbeat();
        assertThat(request(rejoin).memberEpoch()).isZero();
        unanswered.answer(ok(1, 0, 1)); // abandoned with the lost coordinator link: reaches no one
        assertThat(member.memberEpoch()).isZero();
        assertThat(lost).containsExactly(false, true);
        rejoin.answer(ok(2, 0));
        assertThat(member.memberEpoch()).isEqualTo(2);
        assertThat(lost).containsExactly(false, true, false);
    }

    @Test
    void anAnswerWhileTheSessionIsInDoubtKeepsTheAssignmentAndTheNewSessionIsTimedFromIt() {
        joinStable();
        failHeartbeatsUntil(15_000, Errors.COORDINATOR_LOAD_IN_PROGRESS); // past the timeout: in doubt
        while (!io.channel().hasPending(ShareGroupHeartbeatRequest.class)) {
            time.advanceTimeBy(Duration.ofMillis(100)); // the next retry
        }
        takeHeartbeat().answer(ok(1)); // confirmed again, the assignment unchanged
        assertThat(lost).containsExactly(false);
        long confirmedAt = time.now(TimeUnit.MILLISECONDS);

        failHeartbeatsUntil(confirmedAt + 2 * SESSION_MS - 1_200, Errors.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(lost).as("a full session timeout and grace from the last confirmation").containsExactly(false);
        failHeartbeatsUntil(confirmedAt + 2 * SESSION_MS, Errors.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(lost).containsExactly(false, true);
    }

    @Test
    void fencedByTheCoordinatorTheAssignmentIsReportedLostToo() {
        joinStable();
        time.advanceTimeBy(Duration.ofMillis(1_000));
        takeHeartbeat().answer(error(Errors.FENCED_MEMBER_EPOCH));
        assertThat(lost).containsExactly(false, true);
        assertThat(request(takeHeartbeat()).memberEpoch()).isZero();
    }
}
