package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.OfficialConsumers;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.group.ClassicGroupMember;
import io.kflux.group.CoordinatorManager;
import io.kflux.group.GroupConfig;
import io.kflux.group.GroupListener;
import io.kflux.group.MemberState;
import io.kflux.group.assignor.RangeAssignor;
import io.kflux.metadata.MetadataManager;
import io.kflux.network.NetworkOptions;
import io.kflux.network.NodeConnections;
import io.kflux.util.SerialExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** {@link ClassicGroupMember} against a real broker, in groups shared with the official consumer. */
@KafkaTest(nodes = 1)
class ClassicGroupMemberCompatTest {

    /** A member with its own connections, metadata and event loop, as a consumer session would have them. */
    static final class Member implements AutoCloseable {
        final NodeConnections connections = new NodeConnections(io.kflux.internal.ClientSettings.of(java.util.Map.of("bootstrap.servers", "localhost:9092", "client.id", "kflux")).network().withClientId("kflux-grp-test"));
        final MetadataManager metadata;
        final SerialExecutor loop = new SerialExecutor(Throwable::printStackTrace);
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<Throwable> fatal = new CopyOnWriteArrayList<>();
        final CoordinatorManager coordinators;
        final ClassicGroupMember member;

        Member(String bootstrap, String groupId, String instanceId) {
            String[] hp = bootstrap.split(",")[0].split(":");
            metadata = new MetadataManager(connections, List.of(InetSocketAddress.createUnresolved(hp[0],
                    Integer.parseInt(hp[1]))), false);
            GroupConfig config = new GroupConfig(groupId, instanceId, 10_000, 500, 60_000, 100, 1_000, 30_000,
                    null, true, "consumer", List.of(new RangeAssignor()));
            coordinators = CoordinatorManager.create(groupId, connections, metadata, 100, 1_000,
                    io.kflux.util.LogContext.NONE);
            member = new ClassicGroupMember(config, connections, metadata, coordinators, loop, new GroupListener() {
                @Override
                public Mono<Void> onPartitionsRevoked(Set<TopicPartition> partitions) {
                    events.add("revoked " + partitions);
                    return Mono.empty();
                }

                @Override
                public Mono<Void> onPartitionsAssigned(Set<TopicPartition> added, Set<TopicPartition> assignment) {
                    events.add("assigned " + assignment);
                    return Mono.empty();
                }

                @Override
                public Mono<Void> onPartitionsLost(Set<TopicPartition> partitions) {
                    events.add("lost " + partitions);
                    return Mono.empty();
                }

                @Override
                public void onFatalError(Throwable error) {
                    fatal.add(error);
                }
            });
        }

        @Override
        public void close() {
            member.close();
            coordinators.close();
            connections.closeAll().block(Duration.ofSeconds(10));
        }
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
    }

    private static Set<TopicPartition> official(KafkaConsumer<?, ?> consumer) {
        Set<TopicPartition> out = new HashSet<>();
        consumer.assignment().forEach(tp -> out.add(new TopicPartition(tp.topic(), tp.partition())));
        return out;
    }

    @Test
    void aKfluxMemberAndAnOfficialConsumerShareAGroup(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("shared", 6, 1);
        try (Member kflux = new Member(kafka.bootstrapServers(), "mixed", null)) {
            kflux.member.subscribe(List.of("shared"));
            kflux.member.start();
            await("the kflux member alone owns all 6 partitions", Duration.ofSeconds(30),
                    () -> kflux.member.state() == MemberState.STABLE && kflux.member.assignment().size() == 6);
            assertThat(kflux.member.memberId()).isNotEmpty();
            int firstGeneration = kflux.member.generationId();

            AtomicBoolean polling = new AtomicBoolean(true);
            List<Set<TopicPartition>> officialAssignment = new CopyOnWriteArrayList<>(List.of(Set.of()));
            Thread poller = new Thread(() -> {
                try (KafkaConsumer<String, String> official = OfficialConsumers.classic(kafka.bootstrapServers(), "mixed")) {
                    official.subscribe(List.of("shared"));
                    while (polling.get()) {
                        official.poll(Duration.ofMillis(100));
                        officialAssignment.set(0, official(official));
                    }
                }
            }, "official-consumer");
            poller.start();
            try {
                await("both members share the partitions", Duration.ofSeconds(60), () -> {
                    Set<TopicPartition> mine = kflux.member.assignment();
                    Set<TopicPartition> theirs = officialAssignment.get(0);
                    Set<TopicPartition> union = new HashSet<>(mine);
                    union.addAll(theirs);
                    return kflux.member.state() == MemberState.STABLE && !mine.isEmpty() && !theirs.isEmpty()
                            && union.size() == 6 && mine.size() + theirs.size() == 6;
                });
                assertThat(kflux.member.generationId()).isGreaterThan(firstGeneration);
                assertThat(kflux.member.assignment()).hasSize(3); // range: 6 partitions, 2 members
                assertThat(kflux.events).anyMatch(e -> e.startsWith("revoked")); // eager: revoked before rejoining
            } finally {
                polling.set(false);
                poller.join(TimeUnit.SECONDS.toMillis(30));
            }
            // the official consumer left (LeaveGroup on close): the kflux member gets everything back
            await("the kflux member owns all partitions again", Duration.ofSeconds(30),
                    () -> kflux.member.state() == MemberState.STABLE && kflux.member.assignment().size() == 6);

            kflux.member.leave("test done").block(Duration.ofSeconds(30));
            // leave() completes when LeaveGroup was sent; the state changes on the member's loop right after.
            await("the member is out (LEFT) after LeaveGroup", Duration.ofSeconds(10),
                    () -> kflux.member.state() == MemberState.LEFT);
            await("the group is empty after LeaveGroup", Duration.ofSeconds(10), () -> describe(kafka, "mixed").members().isEmpty());
            assertThat(kflux.fatal).isEmpty();
        }
    }

    @Test
    void aStaticMemberKeepsItsPlaceAcrossARestart(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("static-topic", 4, 1);
        Set<TopicPartition> before;
        int generation;
        try (Member first = new Member(kafka.bootstrapServers(), "static-group", "instance-1")) {
            first.member.subscribe(List.of("static-topic"));
            first.member.start();
            await("stable", Duration.ofSeconds(30),
                    () -> first.member.state() == MemberState.STABLE && first.member.assignment().size() == 4);
            before = first.member.assignment();
            generation = first.member.generationId();
            first.member.leave("restart").block(Duration.ofSeconds(30)); // static: no LeaveGroup
        }
        ConsumerGroupDescription group = describe(kafka, "static-group");
        assertThat(group.members()).extracting(MemberDescription::groupInstanceId)
                .containsExactly(java.util.Optional.of("instance-1"));

        try (Member second = new Member(kafka.bootstrapServers(), "static-group", "instance-1")) {
            second.member.subscribe(List.of("static-topic"));
            second.member.start();
            await("stable again", Duration.ofSeconds(30),
                    () -> second.member.state() == MemberState.STABLE && !second.member.assignment().isEmpty());
            assertThat(second.member.assignment()).isEqualTo(before);
            assertThat(second.member.generationId()).isEqualTo(generation); // no rebalance (KIP-345)
            assertThat(describe(kafka, "static-group").members()).hasSize(1);
            assertThat(second.fatal).isEmpty();
        }
    }

    private static ConsumerGroupDescription describe(EmbeddedKafkaCluster kafka, String group) {
        try {
            return kafka.admin().describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS).get(group);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
