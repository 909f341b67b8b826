package io.kflux.group;

import static io.kflux.group.MemberHarness.joinError;
import static io.kflux.group.MemberHarness.joined;
import static io.kflux.group.MemberHarness.syncError;
import static io.kflux.group.MemberHarness.synced;
import static io.kflux.group.MemberHarness.tp;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.FencedInstanceIdException;
import io.kflux.InvalidTopicException;
import io.kflux.KafkaFluxException;
import io.kflux.KafkaProtocolException;
import io.kflux.group.FakeGroupIo.Pending;
import io.kflux.group.MemberHarness.TestAssignor;
import io.kflux.group.assignor.Assignment;
import io.kflux.group.assignor.GroupAssignment;
import io.kflux.group.assignor.RebalanceProtocol;
import io.kflux.group.assignor.Subscription;
import io.kflux.network.ConnectionFailedException;
import io.kflux.network.DisconnectedException;
import io.kflux.protocol.Errors;
import io.kflux.protocol.consumer.ConsumerProtocolAssignment;
import io.kflux.protocol.consumer.ConsumerProtocolSubscription;
import io.kflux.protocol.message.JoinGroupRequest;
import io.kflux.protocol.message.JoinGroupResponse;
import io.kflux.protocol.message.JoinGroupResponse.JoinGroupResponseMember;
import io.kflux.protocol.message.SyncGroupRequest;
import io.kflux.protocol.message.SyncGroupResponse;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;

/** Coordinator discovery, JoinGroup, SyncGroup and the leader's assignment. */
class ClassicGroupMemberJoinTest {
    private MemberHarness h;

    @AfterEach
    void noLoopErrors() {
        if (h != null) {
            assertThat(h.loopErrors).isEmpty();
            h.member.close();
        }
    }

    // ------------------------------------------------------------------ discovery

    @Test
    void startDiscoversTheCoordinatorThenJoinsWithTheSubscription() {
        h = MemberHarness.eager();
        h.member.subscribe(List.of("t2", "t1"));
        assertThat(h.state()).isEqualTo(MemberState.UNJOINED);
        h.member.start();
        assertThat(h.state()).isEqualTo(MemberState.DISCOVERING_COORDINATOR);
        assertThat(h.io.findCount).isEqualTo(1);
        assertThat(h.io.interestTopics).containsExactlyInAnyOrder("t1", "t2");
        assertThat(h.io.interestAll).isFalse();

        h.io.answerFind(1);

        assertThat(h.state()).isEqualTo(MemberState.JOINING);
        Pending<?> join = h.takeJoin();
        JoinGroupRequest req = join.request(JoinGroupRequest.class);
        assertThat(req.groupId()).isEqualTo("g");
        assertThat(req.memberId()).isEmpty();
        assertThat(req.groupInstanceId()).isNull();
        assertThat(req.sessionTimeoutMs()).isEqualTo(10_000);
        assertThat(req.rebalanceTimeoutMs()).isEqualTo(60_000);
        assertThat(req.protocolType()).isEqualTo("consumer");
        assertThat(req.protocols()).extracting(JoinGroupRequest.JoinGroupRequestProtocol::name).containsExactly("range");
        // the broker holds JoinGroup up to the rebalance timeout
        assertThat(join.timeoutMs()).isEqualTo(65_000);
        ConsumerProtocolSubscription sub = MemberHarness.subscriptionOf(req, 0);
        assertThat(sub.topics()).containsExactly("t1", "t2");
        assertThat(sub.ownedPartitions()).isEmpty();
        assertThat(sub.generationId()).isEqualTo(-1);
        assertThat(sub.rackId()).isEqualTo("rack-a");
        assertThat(ConsumerProtocolSubscription.version(java.nio.ByteBuffer.wrap(req.protocols().get(0).metadata())))
                .isEqualTo((short) 3);
    }

    @Test
    void everyAssignorIsOfferedInPreferenceOrderWithItsUserData() {
        TestAssignor first = new TestAssignor("cooperative-sticky", RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE);
        first.userData = new byte[] {0, 0, 0, 7};
        TestAssignor second = new TestAssignor("range", RebalanceProtocol.EAGER);
        h = new MemberHarness(MemberHarness.config(null, first, second));
        h.startAndDiscover("t");
        JoinGroupRequest req = h.takeJoin().request(JoinGroupRequest.class);
        assertThat(req.protocols()).extracting(JoinGroupRequest.JoinGroupRequestProtocol::name)
                .containsExactly("cooperative-sticky", "range");
        assertThat(MemberHarness.subscriptionOf(req, 0).userData()).containsExactly(0, 0, 0, 7);
        assertThat(MemberHarness.subscriptionOf(req, 1).userData()).isNull();
    }

    @ParameterizedTest
    @EnumSource(value = Errors.class, names = {"COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS", "NOT_COORDINATOR"})
    void retriableFindCoordinatorErrorsAreRetriedWithGrowingBackoff(Errors error) {
        h = MemberHarness.eager();
        h.member.subscribe(List.of("t"));
        h.member.start();
        h.io.answerFind(1, error);
        assertThat(h.io.findCount).isEqualTo(1);
        h.advance(79); // retry.backoff.ms 100, -20% jitter
        assertThat(h.io.findCount).isEqualTo(1);
        h.advance(41);
        assertThat(h.io.findCount).isEqualTo(2);
        h.io.answerFind(1, error);
        h.advance(159); // second retry: 200 ms -20%
        assertThat(h.io.findCount).isEqualTo(2);
        h.advance(81);
        assertThat(h.io.findCount).isEqualTo(3);
        h.io.answerFind(1);
        assertThat(h.state()).isEqualTo(MemberState.JOINING);
        assertThat(h.listener.fatal).isEmpty();
    }

    @Test
    void networkFailuresOfTheLookupAndTheConnectAreRetried() {
        h = MemberHarness.eager();
        h.member.subscribe(List.of("t"));
        h.member.start();
        h.io.failFind(new DisconnectedException("down"));
        h.advance(120);
        assertThat(h.io.findCount).isEqualTo(2);
        var normal = h.io.connector;
        h.io.connector = node -> Mono.error(new ConnectionFailedException(null, "refused", null));
        h.io.answerFind(1);
        assertThat(h.state()).isEqualTo(MemberState.DISCOVERING_COORDINATOR);
        h.io.connector = normal;
        h.advance(240);
        assertThat(h.io.findCount).isEqualTo(3);
        h.io.answerFind(2);
        assertThat(h.channel().nodeId).isEqualTo(2);
        assertThat(h.state()).isEqualTo(MemberState.JOINING);
    }

    @Test
    void groupAuthorizationFailureInFindCoordinatorIsFatal() {
        h = MemberHarness.eager();
        h.member.subscribe(List.of("t"));
        h.member.start();
        h.io.answerFind(1, Errors.GROUP_AUTHORIZATION_FAILED);
        assertThat(h.state()).isEqualTo(MemberState.FATAL);
        assertThat(h.listener.fatal).singleElement().isInstanceOfSatisfying(KafkaProtocolException.class,
                e -> assertThat(e.errorCode()).isEqualTo((short) 30));
        h.advance(10_000);
        assertThat(h.io.findCount).isEqualTo(1);
    }

    // ------------------------------------------------------------------ join and sync (follower)

    @Test
    void followerJoinsSyncsAndGetsItsAssignment() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(5, "m1", "leader-id", "range", List.of()));
        assertThat(h.state()).isEqualTo(MemberState.SYNCING);
        assertThat(h.member.generationId()).isEqualTo(5);
        assertThat(h.member.memberId()).isEqualTo("m1");

        Pending<?> sync = h.takeSync();
        SyncGroupRequest req = sync.request(SyncGroupRequest.class);
        assertThat(req.generationId()).isEqualTo(5);
        assertThat(req.memberId()).isEqualTo("m1");
        assertThat(req.protocolType()).isEqualTo("consumer");
        assertThat(req.protocolName()).isEqualTo("range");
        assertThat(req.assignments()).isEmpty();
        assertThat(sync.timeoutMs()).isEqualTo(30_000);

        sync.answer(synced("range", tp("t", 0), tp("t", 1)));
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
        assertThat(h.member.assignment()).containsExactlyInAnyOrder(tp("t", 0), tp("t", 1));
        assertThat(h.listener.calls).singleElement().satisfies(c -> {
            assertThat(c.kind()).isEqualTo("assigned");
            assertThat(c.partitions()).containsExactlyInAnyOrder(tp("t", 0), tp("t", 1));
            assertThat(c.assignment()).containsExactlyInAnyOrder(tp("t", 0), tp("t", 1));
        });
        TestAssignor assignor = (TestAssignor) h.config.assignors().get(0);
        assertThat(assignor.onAssignment).singleElement()
                .satisfies(a -> assertThat(a.partitions()).containsExactlyInAnyOrder(tp("t", 0), tp("t", 1)));
    }

    @Test
    void anEmptyAssignmentIsStillReported() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(1, "m1", "other", "range", List.of()));
        h.takeSync().answer(new SyncGroupResponse(0, (short) 0, "consumer", "range", new byte[0]));
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
        assertThat(h.member.assignment()).isEmpty();
        assertThat(h.listener.kinds()).containsExactly("assigned");
    }

    @Test
    void memberIdRequiredIsAnsweredByJoiningAgainWithThatId() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joinError(Errors.MEMBER_ID_REQUIRED, "given-id"));
        assertThat(h.state()).isEqualTo(MemberState.JOINING);
        JoinGroupRequest second = h.takeJoin().request(JoinGroupRequest.class);
        assertThat(second.memberId()).isEqualTo("given-id");
        assertThat(h.io.findCount).isEqualTo(1);
    }

    @Test
    void coordinatorLoadInProgressOnJoinIsRetriedWithBackoffOnTheSameCoordinator() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joinError(Errors.COORDINATOR_LOAD_IN_PROGRESS, ""));
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();
        h.advance(79);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();
        h.advance(41);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isTrue();
        assertThat(h.io.findCount).isEqualTo(1);
        assertThat(h.state()).isEqualTo(MemberState.JOINING);
    }

    @ParameterizedTest
    @EnumSource(value = Errors.class, names = {"NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE"})
    void coordinatorErrorsOnJoinRediscoverAndJoinAgain(Errors error) {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joinError(error, ""));
        assertThat(h.state()).isEqualTo(MemberState.DISCOVERING_COORDINATOR);
        assertThat(h.io.findCount).isEqualTo(2);
        h.io.answerFind(2);
        assertThat(h.channel().nodeId).isEqualTo(2);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isTrue();
    }

    @Test
    void aDroppedConnectionDuringJoinRediscoversAndJoinsAgain() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.channel().drop();
        assertThat(h.state()).isEqualTo(MemberState.DISCOVERING_COORDINATOR);
        h.io.answerFind(1);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isTrue();
        assertThat(h.io.channels).hasSize(2);
    }

    @Test
    void unknownMemberIdOnJoinResetsTheMemberIdAndJoinsAtOnce() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joinError(Errors.MEMBER_ID_REQUIRED, "m1"));
        h.takeJoin().answer(joinError(Errors.UNKNOWN_MEMBER_ID, ""));
        assertThat(h.takeJoin().request(JoinGroupRequest.class).memberId()).isEmpty();
    }

    @Test
    void rebalanceInProgressOnJoinJoinsAgainAtOnce() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joinError(Errors.MEMBER_ID_REQUIRED, "m1"));
        h.takeJoin().answer(joinError(Errors.REBALANCE_IN_PROGRESS, "m1"));
        assertThat(h.takeJoin().request(JoinGroupRequest.class).memberId()).isEqualTo("m1");
    }

    @Test
    void aStaticMemberSendsItsInstanceIdInJoinAndSync() {
        h = new MemberHarness(MemberHarness.config("instance-1", new TestAssignor("range", RebalanceProtocol.EAGER)));
        h.startAndDiscover("t");
        Pending<?> join = h.takeJoin();
        assertThat(join.request(JoinGroupRequest.class).groupInstanceId()).isEqualTo("instance-1");
        join.answer(joined(1, "m1", "other", "range", List.of()));
        assertThat(h.takeSync().request(SyncGroupRequest.class).groupInstanceId()).isEqualTo("instance-1");
        assertThat(h.member.groupInstanceId()).contains("instance-1");
    }

    @Test
    void fencedInstanceIdOnJoinEndsTheMember() {
        h = new MemberHarness(MemberHarness.config("instance-1", new TestAssignor("range", RebalanceProtocol.EAGER)));
        h.startAndDiscover("t");
        h.takeJoin().answer(joinError(Errors.FENCED_INSTANCE_ID, ""));
        assertThat(h.state()).isEqualTo(MemberState.FATAL);
        assertThat(h.listener.fatal).singleElement().isInstanceOfSatisfying(FencedInstanceIdException.class,
                e -> assertThat(e.groupInstanceId()).isEqualTo("instance-1"));
    }

    @ParameterizedTest
    @EnumSource(value = Errors.class, names = {"INCONSISTENT_GROUP_PROTOCOL", "INVALID_SESSION_TIMEOUT",
            "INVALID_GROUP_ID", "GROUP_AUTHORIZATION_FAILED", "GROUP_MAX_SIZE_REACHED", "UNKNOWN_SERVER_ERROR"})
    void nonRetriableJoinErrorsAreFatal(Errors error) {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joinError(error, ""));
        assertThat(h.state()).isEqualTo(MemberState.FATAL);
        assertThat(h.listener.fatal).singleElement().isInstanceOfSatisfying(KafkaProtocolException.class,
                e -> assertThat(e.errorCode()).isEqualTo(error.code()));
    }

    @Test
    void aJoinAnswerOfAnotherProtocolTypeIsFatal() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(new JoinGroupResponse(0, (short) 0, 1, "connect", "range", "x", false, "m1", List.of()));
        assertThat(h.listener.fatal).singleElement().isInstanceOfSatisfying(KafkaProtocolException.class,
                e -> assertThat(e.errorName()).isEqualTo("INCONSISTENT_GROUP_PROTOCOL"));
    }

    // ------------------------------------------------------------------ SyncGroup errors

    @Test
    void rebalanceInProgressOnSyncJoinsAgainKeepingTheGeneration() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(3, "m1", "other", "range", List.of()));
        h.takeSync().answer(syncError(Errors.REBALANCE_IN_PROGRESS));
        JoinGroupRequest again = h.takeJoin().request(JoinGroupRequest.class);
        assertThat(again.memberId()).isEqualTo("m1");
        assertThat(MemberHarness.subscriptionOf(again, 0).generationId()).isEqualTo(3);
        assertThat(h.listener.calls).isEmpty();
    }

    /** ClassicPhase.SYNCING_REJOIN_DUE -> STABLE_REJOIN_DUE: the rejoin asked for while SyncGroup was out is kept. */
    @Test
    void aSubscriptionChangeWhileSyncGroupIsOutTakesTheAssignmentThenRejoins() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(3, "m1", "other", "range", List.of()));
        Pending<?> sync = h.takeSync();
        h.member.subscribe(List.of("t", "u"));
        assertThat(h.state()).isEqualTo(MemberState.SYNCING);
        assertThat(h.channel().sent).as("no JoinGroup while SyncGroup is out")
                .filteredOn(JoinGroupRequest.class::isInstance).hasSize(1);

        sync.answer(synced("range", tp("t", 0)));
        JoinGroupRequest again = h.takeJoin().request(JoinGroupRequest.class);
        assertThat(MemberHarness.subscriptionOf(again, 0).topics()).containsExactly("t", "u");
        assertThat(again.memberId()).isEqualTo("m1");
        assertThat(h.listener.kinds()).containsExactly("assigned", "revoked");
        assertThat(h.state()).isEqualTo(MemberState.JOINING);
    }

    @Test
    void unknownMemberIdOnSyncResetsMemberIdAndIllegalGenerationKeepsIt() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(3, "m1", "other", "range", List.of()));
        h.takeSync().answer(syncError(Errors.ILLEGAL_GENERATION));
        JoinGroupRequest again = h.takeJoin().request(JoinGroupRequest.class);
        assertThat(again.memberId()).isEqualTo("m1");
        assertThat(MemberHarness.subscriptionOf(again, 0).generationId()).isEqualTo(-1);
        assertThat(h.member.generationId()).isEqualTo(-1);

        h.channel().pending.clear();
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(3, "m1", "other", "range", List.of()));
        h.takeSync().answer(syncError(Errors.UNKNOWN_MEMBER_ID));
        assertThat(h.takeJoin().request(JoinGroupRequest.class).memberId()).isEmpty();
    }

    @Test
    void coordinatorErrorOnSyncRediscoversAndJoinsAgain() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(3, "m1", "other", "range", List.of()));
        h.takeSync().answer(syncError(Errors.NOT_COORDINATOR));
        assertThat(h.state()).isEqualTo(MemberState.REDISCOVERING_COORDINATOR);
        h.io.answerFind(2);
        JoinGroupRequest again = h.takeJoin().request(JoinGroupRequest.class);
        assertThat(again.memberId()).isEqualTo("m1");
    }

    @Test
    void fencedOrInconsistentSyncIsFatal() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(3, "m1", "other", "range", List.of()));
        h.takeSync().answer(syncError(Errors.FENCED_INSTANCE_ID));
        assertThat(h.listener.fatal).singleElement().isInstanceOf(FencedInstanceIdException.class);

        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(3, "m1", "other", "range", List.of()));
        h.takeSync().answer(new SyncGroupResponse(0, (short) 0, "consumer", "roundrobin",
                MemberHarness.assignmentBytes(List.of())));
        assertThat(h.listener.fatal).singleElement().isInstanceOfSatisfying(KafkaProtocolException.class,
                e -> assertThat(e.errorName()).isEqualTo("INCONSISTENT_GROUP_PROTOCOL"));
    }

    @Test
    void anAssignmentOutsideTheSubscriptionIsNotTakenAndTheMemberRejoins() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(3, "m1", "other", "range", List.of()));
        h.takeSync().answer(synced("range", tp("t", 0), tp("other-topic", 0)));
        assertThat(h.member.assignment()).isEmpty();
        assertThat(h.listener.calls).isEmpty();
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isTrue();
    }

    // ------------------------------------------------------------------ leader

    @Test
    void leaderAssignsFromTheMembersSubscriptionsAndFreshMetadata() {
        TestAssignor assignor = new TestAssignor("range", RebalanceProtocol.EAGER);
        assignor.assign = (topics, subs) -> new GroupAssignment(Map.of(
                "m1", new Assignment(List.of(tp("t", 0), tp("t", 1))),
                "m2", new Assignment(List.of(tp("u", 0), tp("u", 1), tp("u", 2)), new byte[] {4})));
        h = new MemberHarness(MemberHarness.config(null, assignor));
        h.io.cluster = FakeGroupIo.cluster(Map.of("t", 2, "u", 3, "other", 1));
        h.io.holdRefreshes = true;
        h.startAndDiscover("t");
        Pending<?> join = h.takeJoin();
        byte[] mine = join.request(JoinGroupRequest.class).protocols().get(0).metadata();
        byte[] theirs = new ConsumerProtocolSubscription(List.of("t", "u"), new byte[] {9},
                List.of(new ConsumerProtocolSubscription.TopicPartition("u", List.of(1))), 7, "rack-b").serialize((short) 3);
        join.answer(joined(4, "m1", "m1", "range", List.of(new JoinGroupResponseMember("m1", null, mine),
                new JoinGroupResponseMember("m2", "static-2", theirs), new JoinGroupResponseMember("m3", null, mine))));

        // metadata first, for every topic any member subscribes to
        assertThat(h.state()).isEqualTo(MemberState.SYNCING);
        assertThat(h.io.interestTopics).containsExactlyInAnyOrder("t", "u");
        assertThat(h.channel().hasPending(SyncGroupRequest.class)).isFalse();
        h.io.answerRefresh();

        assertThat(assignor.seenTopics).singleElement()
                .satisfies(ct -> assertThat(ct.partitionCounts()).isEqualTo(Map.of("t", 2, "u", 3)));
        Map<String, Subscription> subs = assignor.seenSubscriptions.get(0);
        assertThat(subs).containsOnlyKeys("m1", "m2", "m3");
        Subscription m2 = subs.get("m2");
        assertThat(m2.topics()).containsExactly("t", "u");
        assertThat(m2.userData()).containsExactly(9);
        assertThat(m2.ownedPartitions()).containsExactly(tp("u", 1));
        assertThat(m2.generationId()).isEqualTo(7);
        assertThat(m2.rackId()).isEqualTo("rack-b");
        assertThat(m2.groupInstanceId()).isEqualTo("static-2");
        assertThat(subs.get("m1").rackId()).isEqualTo("rack-a");

        SyncGroupRequest sync = h.channel().take(SyncGroupRequest.class).request(SyncGroupRequest.class);
        assertThat(sync.generationId()).isEqualTo(4);
        Map<String, ConsumerProtocolAssignment> sent = new java.util.HashMap<>();
        sync.assignments().forEach(a -> sent.put(a.memberId(), ConsumerProtocolAssignment.deserialize(a.assignment())));
        assertThat(sent).containsOnlyKeys("m1", "m2", "m3");
        assertThat(sent.get("m1").assignedPartitions()).singleElement()
                .isEqualTo(new ConsumerProtocolAssignment.TopicPartition("t", List.of(0, 1)));
        assertThat(sent.get("m2").assignedPartitions()).singleElement()
                .isEqualTo(new ConsumerProtocolAssignment.TopicPartition("u", List.of(0, 1, 2)));
        assertThat(sent.get("m2").userData()).containsExactly(4);
        assertThat(sent.get("m3").assignedPartitions()).isEmpty(); // the assignor forgot it: empty, not missing
    }

    @Test
    void leaderRejoinsWhenAPartitionCountOfTheGroupsTopicsChanges() {
        h = MemberHarness.eager();
        h.io.cluster = FakeGroupIo.cluster(Map.of("t", 2, "u", 3));
        h.startAndDiscover("t");
        Pending<?> join = h.takeJoin();
        byte[] mine = join.request(JoinGroupRequest.class).protocols().get(0).metadata();
        byte[] theirs = ConsumerProtocolSubscription.of(List.of("u")).serialize((short) 3);
        join.answer(joined(1, "m1", "m1", "range", List.of(new JoinGroupResponseMember("m1", null, mine),
                new JoinGroupResponseMember("m2", null, theirs))));
        h.takeSync().answer(synced("range", tp("t", 0), tp("t", 1)));
        assertThat(h.state()).isEqualTo(MemberState.STABLE);

        h.advance(3_000); // a heartbeat; nothing changed
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();

        h.io.cluster = FakeGroupIo.cluster(Map.of("t", 2, "u", 4)); // a topic only the other member reads grew
        h.advance(3_000);
        assertThat(h.listener.kinds()).containsExactly("assigned", "revoked");
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isTrue();
    }

    /** Joins as the only member (the leader) of generation 1 with an empty assignment. */
    private void joinAloneAsLeader() {
        Pending<?> join = h.takeJoin();
        byte[] mine = join.request(JoinGroupRequest.class).protocols().get(0).metadata();
        join.answer(joined(1, "m1", "m1", "range", List.of(new JoinGroupResponseMember("m1", null, mine))));
    }

    @Test
    void aSubscribedTopicMissingFromMetadataIsLookedUpAgainWithBackoffAndTheLeaderRejoinsOnceItExists() {
        h = MemberHarness.eager(); // retry.backoff.ms=100, retry.backoff.max.ms=1000, metadata.max.age.ms=300000
        h.io.cluster = FakeGroupIo.cluster(Map.of("t", -1)); // UNKNOWN_TOPIC_OR_PARTITION
        h.startAndDiscover("t");
        joinAloneAsLeader();
        h.takeSync().answer(synced("range"));
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
        int refreshes = h.io.refreshCount;

        // 100 ms, then 200 ms (+/-20% jitter each), not metadata.max.age.ms
        h.advance(120);
        assertThat(h.io.refreshCount).isEqualTo(refreshes + 1);
        h.advance(240);
        assertThat(h.io.refreshCount).isEqualTo(refreshes + 2);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();

        h.io.cluster = FakeGroupIo.cluster(Map.of("t", 2)); // created
        h.advance(480);
        assertThat(h.io.refreshCount).isEqualTo(refreshes + 3);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isTrue();
        int afterRejoin = h.io.refreshCount;

        // the topic is there: no more early refreshes
        h.advance(2_000);
        assertThat(h.io.refreshCount).isEqualTo(afterRejoin);
    }

    @Test
    void theEarlyRefreshesBackOffUpToRetryBackoffMax() {
        h = MemberHarness.eager();
        h.io.cluster = FakeGroupIo.cluster(Map.of("t", -1));
        h.startAndDiscover("t");
        joinAloneAsLeader();
        h.takeSync().answer(synced("range"));
        int refreshes = h.io.refreshCount;
        h.advance(10_000); // 100+200+400+800 (+/-20%), then about one per second
        assertThat(h.io.refreshCount - refreshes).isBetween(11, 16);
    }

    @Test
    void aTopicWithoutLeaderWhenAssignedMakesTheLeaderRejoinOnceItHasPartitions() {
        h = MemberHarness.eager();
        // right after creation a topic may be listed with LEADER_NOT_AVAILABLE: unknown, not "0 partitions"
        h.io.cluster = FakeGroupIo.clusterWithErrors(Map.of("t", Errors.LEADER_NOT_AVAILABLE));
        h.startAndDiscover("t");
        joinAloneAsLeader();
        h.takeSync().answer(synced("range"));
        h.advance(120);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();
        h.io.cluster = FakeGroupIo.cluster(Map.of("t", 1));
        h.advance(240);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isTrue();
    }

    @Test
    void anInvalidSubscribedTopicInMetadataEndsTheMemberWithInvalidTopicException() {
        h = MemberHarness.eager();
        h.io.cluster = FakeGroupIo.clusterWithErrors(Map.of("t", Errors.INVALID_TOPIC_EXCEPTION));
        h.startAndDiscover("t");
        joinAloneAsLeader();
        assertThat(h.state()).isEqualTo(MemberState.FATAL);
        assertThat(h.listener.fatal).singleElement().isInstanceOfSatisfying(InvalidTopicException.class,
                e -> assertThat(e.invalidTopics()).containsExactly("t"));
        assertThat(h.channel().hasPending(SyncGroupRequest.class)).isFalse();
    }

    @Test
    void anUnauthorizedSubscribedTopicEndsAFollowerWithTopicAuthorizationFailed() {
        h = MemberHarness.eager();
        h.io.cluster = FakeGroupIo.clusterWithErrors(Map.of("t", Errors.TOPIC_AUTHORIZATION_FAILED));
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(1, "m1", "other", "range", List.of()));
        h.takeSync().answer(synced("range"));
        assertThat(h.state()).isEqualTo(MemberState.FATAL);
        assertThat(h.listener.fatal).singleElement().isInstanceOfSatisfying(KafkaProtocolException.class,
                e -> assertThat(e.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
    }

    @Test
    void aFollowerDoesNotRejoinForPartitionChangesButForItsPatternMatches() {
        h = MemberHarness.eager();
        h.io.cluster = FakeGroupIo.cluster(Map.of("t", 2));
        h.startAndDiscover("t");
        h.joinAsFollower(1, "range", tp("t", 0));
        h.io.cluster = FakeGroupIo.cluster(Map.of("t", 3));
        h.advance(3_000);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();
    }

    @Test
    void aStaticLeaderToldToSkipAssignmentSendsNoAssignments() {
        TestAssignor assignor = new TestAssignor("range", RebalanceProtocol.EAGER);
        h = new MemberHarness(MemberHarness.config("i1", assignor));
        h.startAndDiscover("t");
        Pending<?> join = h.takeJoin();
        byte[] mine = join.request(JoinGroupRequest.class).protocols().get(0).metadata();
        join.answer(new JoinGroupResponse(0, (short) 0, 2, "consumer", "range", "m1", true, "m1",
                List.of(new JoinGroupResponseMember("m1", "i1", mine))));
        assertThat(h.takeSync().request(SyncGroupRequest.class).assignments()).isEmpty();
        assertThat(assignor.seenSubscriptions).isEmpty();
    }

    @Test
    void aStaticLeaderThatSkipsAssignmentWatchesCountsFromFreshMetadataAndDoesNotRebalanceForNothing() {
        // found in StaticMembershipTest: the restarted leader's snapshot did not know the topic yet, so the first
        // snapshot that did looked like a new topic ("unknown -> 4") and the leader rebalanced the whole group
        TestAssignor assignor = new TestAssignor("range", RebalanceProtocol.EAGER);
        h = new MemberHarness(MemberHarness.config("i1", assignor));
        h.io.holdRefreshes = true;
        h.startAndDiscover("t");
        Pending<?> join = h.takeJoin();
        byte[] mine = join.request(JoinGroupRequest.class).protocols().get(0).metadata();
        join.answer(new JoinGroupResponse(0, (short) 0, 2, "consumer", "range", "m1", true, "m1",
                List.of(new JoinGroupResponseMember("m1", "i1", mine))));
        assertThat(h.channel().hasPending(SyncGroupRequest.class)).as("SyncGroup waits for fresh metadata").isFalse();
        h.io.cluster = FakeGroupIo.cluster(Map.of("t", 4));
        h.io.answerRefresh();
        h.takeSync().answer(synced("range", tp("t", 0)));
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
        h.io.publish(); // the same topic in the next snapshot is no change
        h.advance(10_000);
        assertThat(h.channel().hasPending(JoinGroupRequest.class)).isFalse();
        assertThat(h.state()).isEqualTo(MemberState.STABLE);
    }

    @Test
    void aLeaderWithoutTheChosenAssignorFails() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        Pending<?> join = h.takeJoin();
        byte[] mine = join.request(JoinGroupRequest.class).protocols().get(0).metadata();
        join.answer(joined(2, "m1", "m1", "sticky", List.of(new JoinGroupResponseMember("m1", null, mine))));
        assertThat(h.listener.fatal).singleElement().isInstanceOf(KafkaFluxException.class);
        assertThat(h.state()).isEqualTo(MemberState.FATAL);
    }

    @Test
    void aLeaderThatCannotReadAMembersSubscriptionFails() {
        h = MemberHarness.eager();
        h.startAndDiscover("t");
        h.takeJoin().answer(joined(2, "m1", "m1", "range",
                List.of(new JoinGroupResponseMember("m1", null, new byte[] {0}))));
        assertThat(h.listener.fatal).singleElement().isInstanceOf(KafkaFluxException.class);
    }
}
