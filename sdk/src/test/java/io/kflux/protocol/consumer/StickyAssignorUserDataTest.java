package io.kflux.protocol.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor.MemberData;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The sticky assignors' user data against what the official assignors write (their public
 * onAssignment + subscriptionUserData) and read (their protected memberData, called reflectively).
 */
class StickyAssignorUserDataTest {
    private static final List<TopicPartition> HELD = List.of(new TopicPartition("orders", 1), new TopicPartition("orders", 3),
            new TopicPartition("billing", 0), new TopicPartition("ünïcode", 12), new TopicPartition("orders", 7));

    private static byte[] bytes(ByteBuffer bb) {
        ByteBuffer d = bb.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    private static MemberData officialMemberData(AbstractStickyAssignor assignor, Subscription subscription) throws Exception {
        Method m = assignor.getClass().getDeclaredMethod("memberData", Subscription.class);
        m.setAccessible(true);
        return (MemberData) m.invoke(assignor, subscription);
    }

    private static Set<TopicPartition> flatten(List<StickyAssignorUserData.TopicPartition> tps) {
        Set<TopicPartition> out = new HashSet<>();
        for (StickyAssignorUserData.TopicPartition t : tps) {
            for (int p : t.partitions()) {
                out.add(new TopicPartition(t.topic(), p));
            }
        }
        return out;
    }

    private static byte[] officialStickyUserData(List<TopicPartition> held, int generation) {
        StickyAssignor official = new StickyAssignor();
        official.onAssignment(new Assignment(held), new ConsumerGroupMetadata("orders-app", generation, "m1", Optional.empty()));
        return bytes(official.subscriptionUserData(Set.of("orders", "billing")));
    }

    @Test
    void stickyUserDataWrittenByTheOfficialAssignorIsReadAndRewrittenIdentically() {
        for (int generation : new int[] {9, 0, -1}) {
            byte[] official = officialStickyUserData(HELD, generation);
            StickyAssignorUserData read = StickyAssignorUserData.deserialize(official);
            assertThat(read.generation()).isEqualTo(generation);
            assertThat(flatten(read.previousAssignment())).isEqualTo(new HashSet<>(HELD));
            assertThat(read.serialize()).isEqualTo(official);
        }
    }

    @Test
    void stickyUserDataWrittenByKfluxIsReadByTheOfficialAssignor() throws Exception {
        StickyAssignorUserData ours = new StickyAssignorUserData(List.of(
                new StickyAssignorUserData.TopicPartition("orders", List.of(1, 3, 7)),
                new StickyAssignorUserData.TopicPartition("billing", List.of(0))), 21);
        MemberData read = officialMemberData(new StickyAssignor(),
                new Subscription(List.of("orders", "billing"), ByteBuffer.wrap(ours.serialize())));
        assertThat(read.generation).isEqualTo(Optional.of(21));
        assertThat(new HashSet<>(read.partitions)).isEqualTo(flatten(ours.previousAssignment()));
        // single topic: HashMap grouping order cannot differ, so the bytes must be the official ones
        StickyAssignorUserData single = new StickyAssignorUserData(
                List.of(new StickyAssignorUserData.TopicPartition("orders", List.of(1, 3, 7))), 21);
        assertThat(single.serialize()).isEqualTo(officialStickyUserData(
                List.of(new TopicPartition("orders", 1), new TopicPartition("orders", 3), new TopicPartition("orders", 7)), 21));
    }

    @Test
    void stickyFallbacksMatchTheOfficialAssignor() throws Exception {
        StickyAssignor official = new StickyAssignor();
        // V0 layout (no generation): what assignors before KIP-341 wrote
        byte[] v1 = officialStickyUserData(List.of(new TopicPartition("orders", 2)), 5);
        byte[] v0 = Arrays.copyOf(v1, v1.length - 4);
        MemberData officialV0 = officialMemberData(official, new Subscription(List.of("orders"), ByteBuffer.wrap(v0)));
        assertThat(officialV0.generation).isEmpty();
        StickyAssignorUserData oursV0 = StickyAssignorUserData.deserialize(v0);
        assertThat(oursV0.generation()).isEqualTo(StickyAssignorUserData.DEFAULT_GENERATION);
        assertThat(flatten(oursV0.previousAssignment())).isEqualTo(new HashSet<>(officialV0.partitions));

        // garbage: both read "nothing held, generation -1"
        byte[] garbage = {0, 0, 0, 5, 1};
        MemberData officialGarbage = officialMemberData(official, new Subscription(List.of("orders"), ByteBuffer.wrap(garbage)));
        assertThat(officialGarbage.partitions).isEmpty();
        assertThat(officialGarbage.generation).isEqualTo(Optional.of(-1));
        assertThat(StickyAssignorUserData.deserialize(garbage)).isEqualTo(new StickyAssignorUserData(List.of(), -1));

        // no user data (a member that never had an assignment)
        MemberData officialNone = officialMemberData(official, new Subscription(List.of("orders"), null));
        assertThat(officialNone.partitions).isEmpty();
        assertThat(StickyAssignorUserData.deserialize((byte[]) null).previousAssignment()).isEmpty();
        assertThat(StickyAssignorUserData.deserialize(new byte[0]).previousAssignment()).isEmpty();
    }

    @Test
    void stickyUserDataSurvivesAnOfficialAssignRound() {
        // the leader (official) reads kflux's user data and keeps the partitions where they were
        StickyAssignorUserData m1 = new StickyAssignorUserData(List.of(
                new StickyAssignorUserData.TopicPartition("orders", List.of(0, 2))), 4);
        StickyAssignorUserData m2 = new StickyAssignorUserData(List.of(
                new StickyAssignorUserData.TopicPartition("orders", List.of(1, 3))), 4);
        Map<String, Subscription> subscriptions = Map.of(
                "m1", new Subscription(List.of("orders"), ByteBuffer.wrap(m1.serialize())),
                "m2", new Subscription(List.of("orders"), ByteBuffer.wrap(m2.serialize())));
        Map<String, List<TopicPartition>> assignment = new StickyAssignor().assign(Map.of("orders", 4), subscriptions);
        assertThat(new HashSet<>(assignment.get("m1"))).isEqualTo(flatten(m1.previousAssignment()));
        assertThat(new HashSet<>(assignment.get("m2"))).isEqualTo(flatten(m2.previousAssignment()));
    }

    @Test
    void cooperativeUserDataIsTheGenerationAsTheOfficialAssignorWritesIt() {
        for (int generation : new int[] {-1, 0, 7, Integer.MAX_VALUE}) {
            CooperativeStickyAssignor official = new CooperativeStickyAssignor();
            if (generation != -1) {
                official.onAssignment(new Assignment(HELD), new ConsumerGroupMetadata("g", generation, "m1", Optional.empty()));
            }
            byte[] officialBytes = bytes(official.subscriptionUserData(Set.of("orders")));
            assertThat(CooperativeStickyAssignorUserData.serialize(generation)).isEqualTo(officialBytes);
            assertThat(CooperativeStickyAssignorUserData.deserialize(officialBytes)).isEqualTo(generation);
        }
    }

    @Test
    void cooperativeGenerationIsFoundWhereTheOfficialAssignorLooks() throws Exception {
        CooperativeStickyAssignor official = new CooperativeStickyAssignor();
        List<TopicPartition> owned = List.of(new TopicPartition("orders", 0));
        for (short version = 0; version <= 3; version++) {
            for (int subscriptionGeneration : new int[] {-1, 12}) {
                for (byte[] userData : new byte[][] {CooperativeStickyAssignorUserData.serialize(8), null, {1, 2}}) {
                    Subscription sub = new Subscription(List.of("orders"), userData == null ? null : ByteBuffer.wrap(userData),
                            owned, subscriptionGeneration, Optional.empty());
                    byte[] wire = bytes(ConsumerProtocol.serializeSubscription(sub, version));
                    MemberData officialRead = officialMemberData(official, ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(wire)));
                    int ours = CooperativeStickyAssignorUserData.generationOf(ConsumerProtocolSubscription.deserialize(wire));
                    assertThat(ours).as("v%d sub gen %d user data %s", version, subscriptionGeneration, Arrays.toString(userData))
                            .isEqualTo(officialRead.generation.orElse(-1));
                }
            }
        }
    }

    @Test
    void topicAndPartitionOrderIsKeptOnTheWire() throws Exception {
        // kflux writes the order it is given; the official reader keeps it
        List<StickyAssignorUserData.TopicPartition> reversed = new ArrayList<>(List.of(
                new StickyAssignorUserData.TopicPartition("z", List.of(2, 1)),
                new StickyAssignorUserData.TopicPartition("a", List.of(0))));
        MemberData read = officialMemberData(new StickyAssignor(), new Subscription(List.of("a", "z"),
                ByteBuffer.wrap(new StickyAssignorUserData(reversed, 3).serialize())));
        assertThat(read.partitions.stream().map(TopicPartition::toString).collect(Collectors.toList()))
                .containsExactly("z-2", "z-1", "a-0");
    }
}
