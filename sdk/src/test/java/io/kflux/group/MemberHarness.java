package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.group.FakeGroupIo.FakeChannel;
import io.kflux.group.FakeGroupIo.Pending;
import io.kflux.group.assignor.Assignment;
import io.kflux.group.assignor.ClusterTopics;
import io.kflux.group.assignor.GroupAssignment;
import io.kflux.group.assignor.PartitionAssignor;
import io.kflux.group.assignor.RebalanceProtocol;
import io.kflux.group.assignor.Subscription;
import io.kflux.protocol.consumer.ConsumerProtocolAssignment;
import io.kflux.protocol.consumer.ConsumerProtocolSubscription;
import io.kflux.protocol.message.JoinGroupRequest;
import io.kflux.protocol.message.JoinGroupResponse;
import io.kflux.protocol.message.JoinGroupResponse.JoinGroupResponseMember;
import io.kflux.protocol.message.SyncGroupRequest;
import io.kflux.protocol.message.SyncGroupResponse;
import io.kflux.util.SerialExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/** One member against a {@link FakeGroupIo}, on a SerialExecutor and virtual time. */
final class MemberHarness {
    static final String GROUP = "g";

    final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    final List<Throwable> loopErrors = new CopyOnWriteArrayList<>();
    final SerialExecutor loop = new SerialExecutor(loopErrors::add);
    final FakeGroupIo io = new FakeGroupIo();
    final RecordingListener listener = new RecordingListener();
    final GroupConfig config;
    final CoordinatorManager coordinators;
    final ClassicGroupMember member;

    MemberHarness(GroupConfig config) {
        this.config = config;
        this.coordinators = new CoordinatorManager(config.groupId(), io, time, config.retryBackoffMs(),
                config.retryBackoffMaxMs());
        this.member = new ClassicGroupMember(config, io, coordinators, loop, listener, time);
    }

    static GroupConfig config(String instanceId, PartitionAssignor... assignors) {
        return new GroupConfig(GROUP, instanceId, 10_000, 3_000, 60_000, 100, 1_000, 30_000, "rack-a", true,
                "consumer", List.of(assignors));
    }

    static MemberHarness eager() {
        return new MemberHarness(config(null, new TestAssignor("range", RebalanceProtocol.EAGER)));
    }

    static MemberHarness cooperative() {
        return new MemberHarness(config(null, new TestAssignor("cooperative-sticky", RebalanceProtocol.EAGER,
                RebalanceProtocol.COOPERATIVE)));
    }

    void advance(long ms) {
        time.advanceTimeBy(Duration.ofMillis(ms));
    }

    FakeChannel channel() {
        return io.channel();
    }

    MemberState state() {
        return member.state();
    }

    /** start() and answer FindCoordinator with node 1: a JoinGroup is pending. */
    void startAndDiscover(String... topics) {
        member.subscribe(List.of(topics));
        member.start();
        io.answerFind(1);
    }

    Pending<?> takeJoin() {
        return channel().take(JoinGroupRequest.class);
    }

    Pending<?> takeSync() {
        return channel().take(SyncGroupRequest.class);
    }

    static JoinGroupResponse joined(int generation, String memberId, String leader, String protocol,
                                    List<JoinGroupResponseMember> members) {
        return new JoinGroupResponse(0, (short) 0, generation, "consumer", protocol, leader, false, memberId, members);
    }

    static JoinGroupResponse joinError(io.kflux.protocol.Errors error, String memberId) {
        return new JoinGroupResponse(0, error.code(), -1, null, null, "", false, memberId, List.of());
    }

    static SyncGroupResponse synced(String protocol, TopicPartition... partitions) {
        return new SyncGroupResponse(0, (short) 0, "consumer", protocol, assignmentBytes(List.of(partitions)));
    }

    static SyncGroupResponse syncError(io.kflux.protocol.Errors error) {
        return new SyncGroupResponse(0, error.code(), null, null, new byte[0]);
    }

    static byte[] assignmentBytes(Collection<TopicPartition> partitions) {
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        partitions.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
        List<ConsumerProtocolAssignment.TopicPartition> list = new ArrayList<>();
        byTopic.forEach((t, ps) -> list.add(new ConsumerProtocolAssignment.TopicPartition(t, ps)));
        return new ConsumerProtocolAssignment(list, null).serialize((short) 3);
    }

    static ConsumerProtocolSubscription subscriptionOf(JoinGroupRequest join, int protocolIndex) {
        return ConsumerProtocolSubscription.deserialize(join.protocols().get(protocolIndex).metadata());
    }

    /**
     * Drives a follower to STABLE: answers the pending JoinGroup (generation, member id "m1", leader "other") and
     * the SyncGroup with {@code partitions}.
     */
    void joinAsFollower(int generation, String protocol, TopicPartition... partitions) {
        joinAsFollower(takeJoin(), generation, protocol, partitions);
    }

    /** As {@link #joinAsFollower(int, String, TopicPartition...)} for a JoinGroup the test already took. */
    void joinAsFollower(Pending<?> join, int generation, String protocol, TopicPartition... partitions) {
        join.answer(joined(generation, "m1", "other", protocol, List.of()));
        takeSync().answer(synced(protocol, partitions));
        assertThat(state()).isEqualTo(MemberState.STABLE);
    }

    static TopicPartition tp(String topic, int partition) {
        return new TopicPartition(topic, partition);
    }

    /** A listener that records every call; each kind's Mono can be replaced. */
    static final class RecordingListener implements GroupListener {
        record Call(String kind, Set<TopicPartition> partitions, Set<TopicPartition> assignment) {
        }

        final List<Call> calls = new CopyOnWriteArrayList<>();
        final List<Throwable> fatal = new CopyOnWriteArrayList<>();
        /** Each onSessionInDoubt call, in order. */
        final List<Boolean> holdBacks = new CopyOnWriteArrayList<>();
        Function<Set<TopicPartition>, Mono<Void>> revoked = s -> Mono.empty();
        Function<Set<TopicPartition>, Mono<Void>> lost = s -> Mono.empty();
        Function<Set<TopicPartition>, Mono<Void>> assigned = s -> Mono.empty();

        @Override
        public Mono<Void> onPartitionsRevoked(Set<TopicPartition> partitions) {
            calls.add(new Call("revoked", partitions, null));
            return revoked.apply(partitions);
        }

        @Override
        public Mono<Void> onPartitionsAssigned(Set<TopicPartition> added, Set<TopicPartition> assignment) {
            calls.add(new Call("assigned", added, assignment));
            return assigned.apply(added);
        }

        @Override
        public Mono<Void> onPartitionsLost(Set<TopicPartition> partitions) {
            calls.add(new Call("lost", partitions, null));
            return lost.apply(partitions);
        }

        @Override
        public void onSessionInDoubt(boolean inDoubt) {
            holdBacks.add(inDoubt);
        }

        @Override
        public void onFatalError(Throwable error) {
            fatal.add(error);
        }

        List<String> kinds() {
            return calls.stream().map(Call::kind).toList();
        }

        Call last() {
            return calls.get(calls.size() - 1);
        }
    }

    /** An assignor whose result the test decides; records what the leader gave it. */
    static final class TestAssignor implements PartitionAssignor {
        final String name;
        final List<RebalanceProtocol> protocols;
        BiFunction<ClusterTopics, Map<String, Subscription>, GroupAssignment> assign;
        final List<ClusterTopics> seenTopics = new ArrayList<>();
        final List<Map<String, Subscription>> seenSubscriptions = new ArrayList<>();
        final List<Assignment> onAssignment = new ArrayList<>();
        byte[] userData;

        TestAssignor(String name, RebalanceProtocol... protocols) {
            this.name = name;
            this.protocols = List.of(protocols);
            this.assign = (topics, subs) -> {
                // everything to the first member (sorted by id), nothing to the others
                Map<String, Assignment> out = new TreeMap<>();
                List<String> ids = new ArrayList<>(new TreeMap<>(subs).keySet());
                for (String id : ids) {
                    List<TopicPartition> tps = new ArrayList<>();
                    if (id.equals(ids.get(0))) {
                        for (String t : new TreeMap<>(topics.partitionCounts()).keySet()) {
                            for (int p = 0; p < topics.partitionCount(t); p++) {
                                tps.add(new TopicPartition(t, p));
                            }
                        }
                    }
                    out.put(id, new Assignment(tps));
                }
                return new GroupAssignment(out);
            };
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public List<RebalanceProtocol> supportedProtocols() {
            return protocols;
        }

        @Override
        public byte[] subscriptionUserData(Set<String> topics) {
            return userData;
        }

        @Override
        public GroupAssignment assign(ClusterTopics topics, Map<String, Subscription> subscriptions) {
            seenTopics.add(topics);
            seenSubscriptions.add(subscriptions);
            return assign.apply(topics, subscriptions);
        }

        @Override
        public void onAssignment(Assignment assignment, int generationId) {
            onAssignment.add(assignment);
        }
    }
}
