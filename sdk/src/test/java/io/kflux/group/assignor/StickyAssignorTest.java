package io.kflux.group.assignor;

import static io.kflux.group.assignor.AssignorTestSupport.asSets;
import static io.kflux.group.assignor.AssignorTestSupport.assertLocallyBalanced;
import static io.kflux.group.assignor.AssignorTestSupport.assertValid;
import static io.kflux.group.assignor.AssignorTestSupport.moves;
import static io.kflux.group.assignor.AssignorTestSupport.officialAssign;
import static io.kflux.group.assignor.AssignorTestSupport.randomMembers;
import static io.kflux.group.assignor.AssignorTestSupport.randomSubscription;
import static io.kflux.group.assignor.AssignorTestSupport.randomTopics;
import static io.kflux.group.assignor.AssignorTestSupport.spread;
import static io.kflux.group.assignor.RangeAssignorTest.tp;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.protocol.consumer.StickyAssignorUserData;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The eager sticky assignor. Exact equality with the official assignor is not expected (ties, e.g. which member
 * gets the larger share or which partition moves, are broken differently), so the comparison is on validity,
 * balance and the number of partitions that move.
 */
class StickyAssignorTest {

    /** A simulated group whose members are kflux StickyAssignor instances (each keeps its user data). */
    static final class Group {
        final Map<String, StickyAssignor> members = new LinkedHashMap<>();
        final Map<String, List<String>> topics = new HashMap<>();
        int generation;

        Map<String, Subscription> subscriptions() {
            Map<String, Subscription> subs = new HashMap<>();
            members.forEach((id, a) -> subs.put(id, new Subscription(topics.get(id),
                    a.subscriptionUserData(Set.copyOf(topics.get(id))), List.of(), generation, null, null)));
            return subs;
        }

        void apply(GroupAssignment assignment) {
            generation++;
            members.forEach((id, a) -> a.onAssignment(assignment.byMemberId().get(id), generation));
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void freshGroupsAreValidAndBalanced(long seed) {
        Random random = new Random(seed);
        for (int round = 0; round < 40; round++) {
            Map<String, Integer> counts = randomTopics(random, 1 + random.nextInt(6), 15);
            boolean same = random.nextBoolean();
            List<String> shared = randomSubscription(random, counts.keySet());
            Map<String, Subscription> subs = new HashMap<>();
            for (String m : randomMembers(random, 1 + random.nextInt(9))) {
                subs.put(m, new Subscription(same ? shared : randomSubscription(random, counts.keySet())));
            }
            Map<String, Set<TopicPartition>> ours = asSets(new StickyAssignor().assign(ClusterTopics.of(counts), subs));
            assertValid(counts, subs, ours, true);
            assertLocallyBalanced(counts, subs, ours);
            if (same) {
                assertThat(spread(ours)).isLessThanOrEqualTo(1);
            }
        }
    }

    /**
     * Members leave, join, change subscriptions: the result stays valid and balanced, and moves no more partitions
     * than the official assignor does on the same input. With equal subscriptions the kflux result is also the
     * minimum: only what exceeds a survivor's quota moves.
     */
    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23, 24, 25, 26, 27, 28, 29, 30})
    void stickinessAgainstOfficial(long seed) {
        Random random = new Random(seed);
        int oursTotal = 0;
        int officialTotal = 0;
        int oursScore = 0;
        int officialScore = 0;
        for (int round = 0; round < 25; round++) {
            Map<String, Integer> counts = randomTopics(random, 1 + random.nextInt(5), 20);
            boolean same = random.nextBoolean();
            List<String> shared = randomSubscription(random, counts.keySet());
            Group group = new Group();
            for (String m : randomMembers(random, 2 + random.nextInt(8))) {
                group.members.put(m, new StickyAssignor());
                group.topics.put(m, same ? shared : randomSubscription(random, counts.keySet()));
            }
            group.apply(new StickyAssignor().assign(ClusterTopics.of(counts), group.subscriptions()));

            for (int change = 0; change < 4; change++) {
                Map<String, Set<TopicPartition>> before = new HashMap<>();
                group.members.forEach((id, a) -> before.put(id, Set.copyOf(lastAssignment(group, id))));
                perturb(random, group, counts, same ? shared : null);

                Map<String, Subscription> subs = group.subscriptions();
                before.keySet().retainAll(subs.keySet()); // a leaving member's partitions have to move
                GroupAssignment result = new StickyAssignor().assign(ClusterTopics.of(counts), subs);
                Map<String, Set<TopicPartition>> ours = asSets(result);
                Map<String, Set<TopicPartition>> official =
                        officialAssign(new org.apache.kafka.clients.consumer.StickyAssignor(), counts, subs);
                assertValid(counts, subs, ours, true);
                assertLocallyBalanced(counts, subs, ours);
                if (same) {
                    assertThat(spread(ours)).isLessThanOrEqualTo(1);
                    assertThat(spread(official)).isLessThanOrEqualTo(1);
                    assertThat(moves(before, ours)).isEqualTo(minimalMoves(before, ours, subs));
                    assertThat(moves(before, ours)).isLessThanOrEqualTo(moves(before, official));
                }
                oursScore += score(ours);
                officialScore += score(official);
                oursTotal += moves(before, ours);
                officialTotal += moves(before, official);
                group.apply(result);
            }
        }
        // different subscriptions: both are heuristics that stop at the same local balance condition and break
        // ties differently; over many changes both move about as much and are about as balanced
        System.out.printf("seed %d: moves %d (official %d), imbalance %d (official %d)%n",
                seed, oursTotal, officialTotal, oursScore, officialScore);
        assertThat(oursTotal).isLessThanOrEqualTo(officialTotal + officialTotal / 10 + 5);
        assertThat(oursScore).isLessThanOrEqualTo(officialScore + officialScore / 10 + 5);
    }

    /**
     * KIP-881: with racks, fresh assignments stay valid and as balanced as without; with equal subscriptions each is at
     * least as local as the official sticky assignor's on the same cluster (both put balance first, locality next),
     * and over all rounds, different subscriptions included, within 10% of it.
     */
    @ParameterizedTest
    @ValueSource(longs = {41, 42, 43, 44, 45, 46})
    void rackAwareIsAtLeastAsLocalAsOfficial(long seed) {
        Random random = new Random(seed);
        int oursLocal = 0;
        int officialLocal = 0;
        for (int round = 0; round < 30; round++) {
            Map<String, Integer> counts = new java.util.TreeMap<>();
            int topics = 1 + random.nextInt(3);
            for (int t = 0; t < topics; t++) {
                counts.put("t" + t, 1 + random.nextInt(12));
            }
            AssignorTestSupport.Racked racked = AssignorTestSupport.randomRacked(random, counts);
            boolean same = random.nextInt(3) > 0;
            List<String> shared = randomSubscription(random, counts.keySet());
            Map<String, Subscription> subs = new HashMap<>();
            for (String m : randomMembers(random, 1 + random.nextInt(6))) {
                String rack = random.nextInt(5) == 0 ? null : "r" + random.nextInt(3);
                subs.put(m, new Subscription(same ? shared : randomSubscription(random, counts.keySet()), null,
                        List.of(), -1, rack, null));
            }
            ClusterTopics metadata = new ClusterTopics(counts, racked.replicaRacks());
            Map<String, Set<TopicPartition>> ours = asSets(new StickyAssignor().assign(metadata, subs));
            assertValid(counts, subs, ours, true);
            assertLocallyBalanced(counts, subs, ours);
            if (same) {
                assertThat(spread(ours)).as("seed %d round %d", seed, round).isLessThanOrEqualTo(1);
            }
            Map<String, Set<TopicPartition>> official = new java.util.TreeMap<>();
            new org.apache.kafka.clients.consumer.StickyAssignor().assign(racked.cluster(),
                            new ConsumerPartitionAssignor.GroupSubscription(AssignorTestSupport.official(subs)))
                    .groupAssignment().forEach((m, a) -> {
                        Set<TopicPartition> set = new java.util.TreeSet<>(Partitions.ORDER);
                        a.partitions().forEach(tp -> set.add(AssignorTestSupport.ours(tp)));
                        official.put(m, set);
                    });
            int oursHere = AssignorTestSupport.local(ours, subs, racked.replicaRacks());
            int officialHere = AssignorTestSupport.local(official, subs, racked.replicaRacks());
            if (same) {
                // equal subscriptions: the rack pass is a maximum matching under the quotas
                assertThat(oursHere).as("seed %d round %d", seed, round).isGreaterThanOrEqualTo(officialHere);
            }
            oursLocal += oursHere;
            officialLocal += officialHere;
        }
        // different subscriptions: racks only break ties there, so the official assignor may place a few more locally
        System.out.printf("seed %d: local partitions %d (official %d)%n", seed, oursLocal, officialLocal);
        assertThat(oursLocal).isGreaterThanOrEqualTo(officialLocal * 9 / 10);
    }

    /** Locality before stickiness: a partition held outside its replicas' rack moves to a member in that rack. */
    @Test
    void aHeldPartitionMovesToAMemberInItsRack() {
        // partition p has its only replica in rack r(p % 2); "a" (rack r0) holds the odd ones, "b" (r1) the even ones
        Map<TopicPartition, Set<String>> racks = new HashMap<>();
        for (int p = 0; p < 4; p++) {
            racks.put(tp("t", p), Set.of("r" + (p % 2)));
        }
        StickyAssignor a = new StickyAssignor();
        a.onAssignment(new Assignment(List.of(tp("t", 1), tp("t", 3))), 1);
        StickyAssignor b = new StickyAssignor();
        b.onAssignment(new Assignment(List.of(tp("t", 0), tp("t", 2))), 1);
        Map<String, Subscription> subs = Map.of(
                "a", new Subscription(List.of("t"), a.subscriptionUserData(Set.of("t")), List.of(), 1, "r0", null),
                "b", new Subscription(List.of("t"), b.subscriptionUserData(Set.of("t")), List.of(), 1, "r1", null));
        Map<String, Set<TopicPartition>> result =
                asSets(new StickyAssignor().assign(new ClusterTopics(Map.of("t", 4), racks), subs));
        assertThat(result.get("a")).containsExactly(tp("t", 0), tp("t", 2));
        assertThat(result.get("b")).containsExactly(tp("t", 1), tp("t", 3));
        // without racks the same subscriptions keep what they hold
        Map<String, Set<TopicPartition>> plain = asSets(new StickyAssignor().assign(ClusterTopics.of(Map.of("t", 4)),
                subs));
        assertThat(plain.get("a")).containsExactly(tp("t", 1), tp("t", 3));
    }

    /** Balance before locality: when one rack holds every replica, members elsewhere still get their share. */
    @Test
    void balanceComesBeforeLocality() {
        Map<TopicPartition, Set<String>> racks = new HashMap<>();
        for (int p = 0; p < 6; p++) {
            racks.put(tp("t", p), p == 5 ? Set.of("r1") : Set.of("r0"));
        }
        Map<String, Subscription> subs = Map.of(
                "a", new Subscription(List.of("t"), null, List.of(), -1, "r0", null),
                "b", new Subscription(List.of("t"), null, List.of(), -1, "r1", null));
        Map<String, Set<TopicPartition>> result =
                asSets(new StickyAssignor().assign(new ClusterTopics(Map.of("t", 6), racks), subs));
        assertThat(result.get("a")).hasSize(3).allSatisfy(tp -> assertThat(tp.partition()).isLessThan(5));
        assertThat(result.get("b")).hasSize(3).contains(tp("t", 5));
    }

    /** The official assignor's balance score: the sum of count differences over all member pairs (0 is perfect). */
    static int score(Map<String, Set<TopicPartition>> assignment) {
        List<Integer> sizes = assignment.values().stream().map(Set::size).toList();
        int score = 0;
        for (int i = 0; i < sizes.size(); i++) {
            for (int j = i + 1; j < sizes.size(); j++) {
                score += Math.abs(sizes.get(i) - sizes.get(j));
            }
        }
        return score;
    }

    /** With equal subscriptions, a survivor must give up only what exceeds the quota it ends with. */
    private static int minimalMoves(Map<String, Set<TopicPartition>> before, Map<String, Set<TopicPartition>> after,
                                    Map<String, Subscription> subs) {
        int moved = 0;
        for (Map.Entry<String, Set<TopicPartition>> e : before.entrySet()) {
            long stillExisting = e.getValue().stream().filter(tp -> after.values().stream().anyMatch(s -> s.contains(tp))).count();
            moved += (int) Math.max(0, stillExisting - after.get(e.getKey()).size());
        }
        return moved;
    }

    private static List<TopicPartition> lastAssignment(Group group, String member) {
        byte[] data = group.members.get(member).subscriptionUserData(Set.of());
        List<TopicPartition> out = new ArrayList<>();
        if (data != null) {
            StickyAssignorUserData.deserialize(data).previousAssignment()
                    .forEach(t -> t.partitions().forEach(p -> out.add(new TopicPartition(t.topic(), p))));
        }
        return out;
    }

    private static void perturb(Random random, Group group, Map<String, Integer> counts, List<String> shared) {
        int kind = random.nextInt(4);
        if ((kind == 0 || kind == 2) && group.members.size() > 1) {
            List<String> ids = new ArrayList<>(group.members.keySet());
            int leaving = 1 + random.nextInt(Math.max(1, ids.size() / 3));
            for (int i = 0; i < leaving && group.members.size() > 1; i++) {
                String gone = ids.remove(random.nextInt(ids.size()));
                group.members.remove(gone);
                group.topics.remove(gone);
            }
        }
        if (kind == 1 || kind == 2) {
            for (String m : randomMembers(random, 1 + random.nextInt(3))) {
                group.members.put("new-" + group.generation + "-" + m, new StickyAssignor());
                group.topics.put("new-" + group.generation + "-" + m,
                        shared != null ? shared : randomSubscription(random, counts.keySet()));
            }
        }
        if (kind == 3 && shared == null) {
            List<String> ids = new ArrayList<>(group.members.keySet());
            group.topics.put(ids.get(random.nextInt(ids.size())), randomSubscription(random, counts.keySet()));
        }
        if (kind == 3 && shared != null) {
            // a partition count increase (topics grow, never shrink)
            String topic = new ArrayList<>(counts.keySet()).get(random.nextInt(counts.size()));
            counts.merge(topic, 1 + random.nextInt(4), Integer::sum);
        }
    }

    @Test
    void userDataIsTheOfficialFormat() {
        org.apache.kafka.clients.consumer.StickyAssignor official = new org.apache.kafka.clients.consumer.StickyAssignor();
        assertThat(official.subscriptionUserData(Set.of("t"))).isNull();
        assertThat(new StickyAssignor().subscriptionUserData(Set.of("t"))).isNull();

        List<TopicPartition> partitions = List.of(tp("a", 1), tp("b", 0), tp("a", 3));
        official.onAssignment(new ConsumerPartitionAssignor.Assignment(
                partitions.stream().map(AssignorTestSupport::official).toList()),
                new ConsumerGroupMetadata("g", 7, "m", Optional.empty()));
        ByteBuffer officialBytes = official.subscriptionUserData(Set.of("a", "b"));
        byte[] officialArray = new byte[officialBytes.remaining()];
        officialBytes.get(officialArray);

        StickyAssignor ours = new StickyAssignor();
        ours.onAssignment(new Assignment(partitions), 7);
        AbstractStickyAssignor.MemberData fromOfficial = ours.memberData(new Subscription(List.of("a", "b"), officialArray));
        assertThat(fromOfficial.partitions()).containsExactlyInAnyOrderElementsOf(partitions);
        assertThat(fromOfficial.generation()).isEqualTo(7);
        byte[] ourBytes = ours.subscriptionUserData(Set.of("a", "b"));
        assertThat(ours.memberData(new Subscription(List.of("a", "b"), ourBytes))).isEqualTo(fromOfficial);
    }

    @Test
    void officialMembersKeepTheirPartitionsUnderAKfluxLeader() {
        // an official member's user data says it had t-0..t-2 in generation 3; a new kflux member joins
        org.apache.kafka.clients.consumer.StickyAssignor official = new org.apache.kafka.clients.consumer.StickyAssignor();
        official.onAssignment(new ConsumerPartitionAssignor.Assignment(List.of(
                new org.apache.kafka.common.TopicPartition("t", 0), new org.apache.kafka.common.TopicPartition("t", 1),
                new org.apache.kafka.common.TopicPartition("t", 2), new org.apache.kafka.common.TopicPartition("t", 3))),
                new ConsumerGroupMetadata("g", 3, "old", Optional.empty()));
        ByteBuffer buffer = official.subscriptionUserData(Set.of("t"));
        byte[] userData = new byte[buffer.remaining()];
        buffer.get(userData);
        Map<String, Subscription> subs = Map.of(
                "old", new Subscription(List.of("t"), userData),
                "new", new Subscription(List.of("t")));
        Map<String, Set<TopicPartition>> result = asSets(new StickyAssignor().assign(ClusterTopics.of(Map.of("t", 4)), subs));
        assertThat(result.get("old")).hasSize(2).isSubsetOf(tp("t", 0), tp("t", 1), tp("t", 2), tp("t", 3));
        assertThat(result.get("new")).hasSize(2);
    }

    @Test
    void conflictingClaimsAreResolvedByGeneration() {
        StickyAssignor a = new StickyAssignor();
        StickyAssignor b = new StickyAssignor();
        StickyAssignor c = new StickyAssignor();
        a.onAssignment(new Assignment(List.of(tp("t", 0), tp("t", 1))), 5);
        b.onAssignment(new Assignment(List.of(tp("t", 1))), 4); // stale claim on t-1
        c.onAssignment(new Assignment(List.of(tp("t", 2))), 5);
        Map<String, Subscription> subs = Map.of(
                "a", new Subscription(List.of("t"), a.subscriptionUserData(Set.of("t"))),
                "b", new Subscription(List.of("t"), b.subscriptionUserData(Set.of("t"))),
                "c", new Subscription(List.of("t"), c.subscriptionUserData(Set.of("t"))));
        Map<String, Set<TopicPartition>> result = asSets(new StickyAssignor().assign(ClusterTopics.of(Map.of("t", 3)), subs));
        assertThat(result.get("c")).containsExactly(tp("t", 2));
        assertThat(result.get("a")).hasSize(1).isSubsetOf(tp("t", 0), tp("t", 1));
        assertThat(result.get("b")).hasSize(1);
    }

    @Test
    void unsubscribedAndVanishedPartitionsAreNotKept() {
        StickyAssignor a = new StickyAssignor();
        a.onAssignment(new Assignment(List.of(tp("x", 0), tp("y", 5), tp("gone", 0))), 2);
        Map<String, Subscription> subs = Map.of(
                "a", new Subscription(List.of("y"), a.subscriptionUserData(Set.of("y"))),
                "b", new Subscription(List.of("x", "y")));
        Map<String, Set<TopicPartition>> result =
                asSets(new StickyAssignor().assign(ClusterTopics.of(Map.of("x", 1, "y", 2)), subs));
        assertValid(Map.of("x", 1, "y", 2), subs, result, true);
        assertThat(result.get("b")).contains(tp("x", 0));
    }

    @Test
    void largeGroupIsCheapAndSticky() {
        Map<String, Integer> counts = new HashMap<>();
        for (int t = 0; t < 20; t++) {
            counts.put("topic" + t, 50);
        }
        Group group = new Group();
        for (int m = 0; m < 100; m++) {
            group.members.put("member-" + m, new StickyAssignor());
            group.topics.put("member-" + m, List.copyOf(counts.keySet()));
        }
        group.apply(new StickyAssignor().assign(ClusterTopics.of(counts), group.subscriptions()));
        group.members.remove("member-42");
        group.topics.remove("member-42");
        Map<String, Set<TopicPartition>> result =
                asSets(new StickyAssignor().assign(ClusterTopics.of(counts), group.subscriptions()));
        assertValid(counts, group.subscriptions(), result, true);
        assertThat(spread(result)).isLessThanOrEqualTo(1);
        // only the leaving member's 10 partitions move: 1000 / 99 needs 10 or 11 each, the survivors had 10
        Map<String, List<TopicPartition>> before = new HashMap<>();
        group.members.keySet().forEach(id -> before.put(id, lastAssignment(group, id)));
        assertThat(moves(before, result)).isZero();

        // different subscriptions at the same size (the general algorithm)
        Map<String, Subscription> subs = new HashMap<>();
        Random random = new Random(5);
        for (int m = 0; m < 100; m++) {
            subs.put("member-" + m, new Subscription(randomSubscription(random, counts.keySet())));
        }
        Map<String, Set<TopicPartition>> general = asSets(new StickyAssignor().assign(ClusterTopics.of(counts), subs));
        assertValid(counts, subs, general, true);
        assertLocallyBalanced(counts, subs, general);
    }
}
