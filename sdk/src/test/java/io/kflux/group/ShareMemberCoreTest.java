package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.GroupAuthorizationException;
import io.kflux.TopicPartition;
import io.kflux.group.ShareMemberCore.Action;
import io.kflux.group.ShareMemberCore.Assign;
import io.kflux.group.ShareMemberCore.AwaitTopicIds;
import io.kflux.group.ShareMemberCore.Fail;
import io.kflux.group.ShareMemberCore.FindCoordinator;
import io.kflux.group.ShareMemberCore.Left;
import io.kflux.group.ShareMemberCore.Send;
import io.kflux.network.DisconnectedException;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse;
import io.kflux.protocol.message.ShareGroupHeartbeatRequest;
import io.kflux.protocol.message.ShareGroupHeartbeatResponse;
import io.kflux.util.Backoff;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The share member's decisions in virtual time (ms passed in), without a network, a loop or a timer. */
class ShareMemberCoreTest {
    private static final UUID JOBS = new UUID(0, 7);
    private static final Map<UUID, String> NAMES = Map.of(JOBS, "jobs");

    private final ShareMemberCore core = new ShareMemberCore("workers", "m1", List.of("jobs"), null,
            new Backoff(100, 1_000));

    private static ShareGroupHeartbeatResponse ok(int epoch, int intervalMs, Integer... partitions) {
        ConsumerGroupHeartbeatResponse.Assignment assignment = partitions.length == 0 ? null
                : new ConsumerGroupHeartbeatResponse.Assignment(List.of(
                        new ConsumerGroupHeartbeatResponse.TopicPartitions(JOBS, List.of(partitions))));
        return new ShareGroupHeartbeatResponse(0, Errors.NONE.code(), null, "m1", epoch, intervalMs, assignment);
    }

    private static ShareGroupHeartbeatResponse error(Errors e) {
        return new ShareGroupHeartbeatResponse(0, e.code(), "no", null, 0, 0, null);
    }

    private static ShareGroupHeartbeatRequest sent(List<Action> actions) {
        assertThat(actions).hasSize(1).first().isInstanceOf(Send.class);
        return ((Send) actions.get(0)).request();
    }

    /** Joins at t=0 and gets partitions 0 and 1 at epoch 1 with a 1 s interval; returns the join request. */
    private ShareGroupHeartbeatRequest joinStable() {
        assertThat(core.start(0)).containsExactly(new FindCoordinator("no coordinator known yet"));
        ShareGroupHeartbeatRequest join = sent(core.coordinatorFound(0));
        assertThat(join.memberEpoch()).isZero();
        assertThat(join.subscribedTopicNames()).containsExactly("jobs");
        List<Action> out = core.answered(join, ok(1, 1_000, 0, 1), 10, NAMES::get);
        assertThat(out).containsExactly(new Assign(Map.of(new TopicPartition("jobs", 0), JOBS,
                new TopicPartition("jobs", 1), JOBS)));
        assertThat(core.state()).isEqualTo(ShareMemberState.STABLE);
        return join;
    }

    @Test
    void joinsThenHeartbeatsAtTheIntervalTheBrokerAnswered() {
        joinStable();
        assertThat(core.wakeAtMs()).isEqualTo(1_010);
        assertThat(core.tick(500)).isEmpty();
        ShareGroupHeartbeatRequest next = sent(core.tick(1_010));
        assertThat(next.memberEpoch()).isEqualTo(1);
        assertThat(core.wakeAtMs()).as("nothing timed while a heartbeat is out").isEqualTo(Long.MAX_VALUE);
        assertThat(core.answered(next, ok(1, 2_000), 1_020, NAMES::get)).as("no assignment: unchanged").isEmpty();
        assertThat(core.wakeAtMs()).isEqualTo(3_020);
    }

    @Test
    void unknownTopicIdsWaitForMetadata() {
        core.start(0);
        ShareGroupHeartbeatRequest join = sent(core.coordinatorFound(0));
        assertThat(core.answered(join, ok(1, 1_000, 3), 5, id -> null))
                .containsExactly(new AwaitTopicIds(java.util.Set.of(JOBS)));
        assertThat(core.metadata(NAMES::get)).containsExactly(new Assign(Map.of(new TopicPartition("jobs", 3), JOBS)));
        assertThat(core.metadata(NAMES::get)).as("settled").isEmpty();
    }

    @Test
    void fencedDropsTheAssignmentAndJoinsAgainWithEpochZero() {
        joinStable();
        ShareGroupHeartbeatRequest hb = sent(core.tick(1_010));
        List<Action> out = core.answered(hb, error(Errors.FENCED_MEMBER_EPOCH), 1_020, NAMES::get);
        assertThat(out.get(0)).isEqualTo(new Assign(Map.of(), true));
        assertThat(((Send) out.get(1)).request().memberEpoch()).isZero();
        assertThat(core.state()).isEqualTo(ShareMemberState.JOINING);
    }

    @Test
    void anExpiredSessionLosesTheAssignmentAndJoinsAgainWithEpochZeroOnlyWhileOneIsHeld() {
        assertThat(core.sessionHeld()).isFalse();
        core.start(0);
        ShareGroupHeartbeatRequest join = sent(core.coordinatorFound(0));
        assertThat(core.sessionExpired(5)).as("joining: no session to lose").isEmpty();
        core.answered(join, ok(1, 1_000, 0), 10, NAMES::get);
        assertThat(core.sessionHeld()).isTrue();

        sent(core.tick(1_010)); // out when the session runs out: abandoned with the coordinator by the driver
        core.coordinatorLost("session expired");
        List<Action> out = core.sessionExpired(30_000);
        assertThat(out).containsExactly(new Assign(Map.of(), true), new FindCoordinator("no coordinator known yet"));
        assertThat(core.epoch()).isZero();
        assertThat(core.state()).isEqualTo(ShareMemberState.JOINING);
        assertThat(core.sessionHeld()).isFalse();
        assertThat(core.sessionExpired(30_001)).as("once").isEmpty();
        assertThat(sent(core.coordinatorFound(30_100)).memberEpoch()).isZero();
    }

    @Test
    void coordinatorMovesAndNetworkFailuresLookForItAgain() {
        joinStable();
        ShareGroupHeartbeatRequest hb = sent(core.tick(1_010));
        assertThat(core.answered(hb, error(Errors.NOT_COORDINATOR), 1_020, NAMES::get))
                .containsExactly(new FindCoordinator("NOT_COORDINATOR"));
        hb = sent(core.coordinatorFound(1_500));
        assertThat(core.failed(new DisconnectedException("gone"), 1_600)).singleElement()
                .isInstanceOf(FindCoordinator.class);
        assertThat(core.state()).as("state and assignment kept").isEqualTo(ShareMemberState.STABLE);
        assertThat(core.assigned()).hasSize(2);
    }

    @Test
    void retriableErrorsBackOffGrowing() {
        joinStable();
        ShareGroupHeartbeatRequest hb = sent(core.tick(1_010));
        assertThat(core.answered(hb, error(Errors.COORDINATOR_LOAD_IN_PROGRESS), 1_020, NAMES::get)).isEmpty();
        long first = core.wakeAtMs() - 1_020;
        hb = sent(core.tick(core.wakeAtMs()));
        long at = core.wakeAtMs();
        core.answered(hb, error(Errors.COORDINATOR_LOAD_IN_PROGRESS), 5_000, NAMES::get);
        assertThat(core.wakeAtMs() - 5_000).isGreaterThan(first).isLessThanOrEqualTo(1_000 * 6 / 5);
    }

    @Test
    void groupAuthorizationEndsTheMemberTyped() {
        core.start(0);
        ShareGroupHeartbeatRequest join = sent(core.coordinatorFound(0));
        List<Action> out = core.answered(join, error(Errors.GROUP_AUTHORIZATION_FAILED), 5, NAMES::get);
        assertThat(out).singleElement().isInstanceOf(Fail.class);
        assertThat(((Fail) out.get(0)).error()).isInstanceOf(GroupAuthorizationException.class)
                .hasMessageContaining("workers");
        assertThat(core.state()).isEqualTo(ShareMemberState.FATAL);
        assertThat(core.tick(10_000)).isEmpty();
    }

    @Test
    void aBrokerWithoutShareGroupsEndsTheMemberWithUnsupportedVersion() {
        core.start(0);
        sent(core.coordinatorFound(0));
        List<Action> out = core.failed(new UnsupportedVersionException("SHARE_GROUP_HEARTBEAT: kflux supports 1-1, "
                + "broker: none", ApiKey.SHARE_GROUP_HEARTBEAT), 5);
        assertThat(((Fail) out.get(0)).error()).isInstanceOf(io.kflux.UnsupportedVersionException.class)
                .hasMessageContaining("SHARE_GROUP_HEARTBEAT").hasMessageContaining("Kafka 4.1");
    }

    @Test
    void leaveSendsEpochMinusOneEvenWhenAHeartbeatWasOut() {
        joinStable();
        ShareGroupHeartbeatRequest hb = sent(core.tick(1_010));
        assertThat(core.leave(1_011)).containsExactly(new Assign(Map.of()));
        ShareGroupHeartbeatRequest leave = sent(core.answered(hb, ok(1, 1_000), 1_020, NAMES::get));
        assertThat(leave.memberEpoch()).isEqualTo(ShareGroupHeartbeatRequest.LEAVE_EPOCH);
        assertThat(core.answered(leave, ok(-1, 0), 1_030, NAMES::get)).containsExactly(new Left());
        assertThat(core.state()).isEqualTo(ShareMemberState.LEFT);
    }

    @Test
    void anEmptyClientRackIsSentAsNoRack() {
        // client.rack defaults to ""; a 4.4 broker answers INVALID_REQUEST "RackId can't be empty" to it
        ShareMemberCore withEmptyRack = new ShareMemberCore("workers", "m1", List.of("jobs"), "",
                new Backoff(100, 1_000));
        withEmptyRack.start(0);
        assertThat(sent(withEmptyRack.coordinatorFound(0)).rackId()).isNull();
    }

    @Test
    void leavingBeforeJoiningSendsNothing() {
        assertThat(core.leave(0)).containsExactly(new Left());
        assertThat(core.start(1)).isEmpty();
    }

    @Test
    void transitionsAreChecked() {
        assertThatThrownBy(() -> io.kflux.util.StateTransitions.check(ShareMemberState.LEFT, ShareMemberState.STABLE))
                .isInstanceOf(IllegalStateException.class);
    }
}
