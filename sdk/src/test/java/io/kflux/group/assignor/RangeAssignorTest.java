package io.kflux.group.assignor;

import static io.kflux.group.assignor.AssignorTestSupport.asSets;
import static io.kflux.group.assignor.AssignorTestSupport.assertValid;
import static io.kflux.group.assignor.AssignorTestSupport.officialAssign;
import static io.kflux.group.assignor.AssignorTestSupport.randomMembers;
import static io.kflux.group.assignor.AssignorTestSupport.randomSubscription;
import static io.kflux.group.assignor.AssignorTestSupport.randomTopics;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RangeAssignorTest {

    private final RangeAssignor assignor = new RangeAssignor();

    @Test
    void documentedExample() {
        Map<String, Subscription> subs = Map.of(
                "C0", new Subscription(List.of("t0", "t1")),
                "C1", new Subscription(List.of("t0", "t1")));
        Map<String, Set<TopicPartition>> result = asSets(assignor.assign(ClusterTopics.of(Map.of("t0", 3, "t1", 3)), subs));
        assertThat(result.get("C0")).containsExactly(tp("t0", 0), tp("t0", 1), tp("t1", 0), tp("t1", 1));
        assertThat(result.get("C1")).containsExactly(tp("t0", 2), tp("t1", 2));
    }

    @Test
    void staticMembersComeFirstOrderedByInstanceId() {
        Map<String, Subscription> subs = Map.of(
                "a", new Subscription(List.of("t"), null, List.of(), -1, null, null),
                "b", new Subscription(List.of("t"), null, List.of(), -1, null, "z-instance"),
                "c", new Subscription(List.of("t"), null, List.of(), -1, null, "y-instance"));
        Map<String, Set<TopicPartition>> result = asSets(assignor.assign(ClusterTopics.of(Map.of("t", 5)), subs));
        assertThat(result.get("c")).containsExactly(tp("t", 0), tp("t", 1));
        assertThat(result.get("b")).containsExactly(tp("t", 2), tp("t", 3));
        assertThat(result.get("a")).containsExactly(tp("t", 4));
    }

    @Test
    void membersOfUnknownTopicsGetNothing() {
        Map<String, Subscription> subs = Map.of("a", new Subscription(List.of("nope")), "b", new Subscription(List.of("t")));
        Map<String, Set<TopicPartition>> result = asSets(assignor.assign(ClusterTopics.of(Map.of("t", 2, "empty", 0)), subs));
        assertThat(result.get("a")).isEmpty();
        assertThat(result.get("b")).hasSize(2);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void propertiesAndEqualityWithOfficial(long seed) {
        Random random = new Random(seed);
        for (int round = 0; round < 50; round++) {
            Map<String, Integer> counts = randomTopics(random, 1 + random.nextInt(6), 12);
            List<String> members = randomMembers(random, 1 + random.nextInt(8));
            boolean sameTopics = random.nextBoolean();
            List<String> shared = randomSubscription(random, counts.keySet());
            Map<String, Subscription> subs = new HashMap<>();
            for (String m : members) {
                String instance = random.nextInt(3) == 0 ? "instance-" + random.nextInt(1000) + m : null;
                subs.put(m, new Subscription(sameTopics ? shared : randomSubscription(random, counts.keySet()),
                        null, List.of(), -1, null, instance));
            }
            Map<String, Set<TopicPartition>> ours = asSets(assignor.assign(ClusterTopics.of(counts), subs));
            assertValid(counts, subs, ours, true);
            assertRangeBalance(counts, subs, ours, true);
            assertThat(ours).isEqualTo(officialAssign(new org.apache.kafka.clients.consumer.RangeAssignor(), counts, subs));
        }
    }

    /**
     * Per topic: its members get floor or ceil of count/members; without racks the larger shares go to the first
     * members, with racks to whichever members the rack pass filled first.
     */
    private static void assertRangeBalance(Map<String, Integer> counts, Map<String, Subscription> subs,
                                           Map<String, Set<TopicPartition>> result, boolean firstGetExtra) {
        for (Map.Entry<String, Integer> topic : counts.entrySet()) {
            List<String> members = new ArrayList<>();
            subs.forEach((m, s) -> {
                if (s.topics().contains(topic.getKey())) {
                    members.add(m);
                }
            });
            if (members.isEmpty()) {
                continue;
            }
            members.sort(Partitions.memberOrder(subs));
            int base = topic.getValue() / members.size();
            int extra = topic.getValue() % members.size();
            int withExtra = 0;
            for (int i = 0; i < members.size(); i++) {
                long mine = result.get(members.get(i)).stream().filter(tp -> tp.topic().equals(topic.getKey())).count();
                if (firstGetExtra) {
                    assertThat(mine).isEqualTo(base + (i < extra ? 1 : 0));
                }
                assertThat(mine).isBetween((long) base, (long) base + 1);
                withExtra += mine > base ? 1 : 0;
            }
            assertThat(withExtra).isEqualTo(extra);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14, 15, 16, 17, 18})
    void rackAwareEqualsOfficial(long seed) {
        Random random = new Random(seed);
        List<String> racks = List.of("r0", "r1", "r2");
        for (int round = 0; round < 40; round++) {
            List<Node> nodes = new ArrayList<>();
            for (int n = 0; n < 6; n++) {
                nodes.add(new Node(n, "host" + n, 9092, random.nextInt(8) == 0 ? null : racks.get(n % 3)));
            }
            // equal partition counts and subscriptions are common, so the co-partitioned path is exercised
            Map<String, Integer> counts = new TreeMap<>();
            int topics = 1 + random.nextInt(4);
            for (int t = 0; t < topics; t++) {
                counts.put("t" + t, random.nextBoolean() ? 6 : 1 + random.nextInt(9));
            }
            List<PartitionInfo> infos = new ArrayList<>();
            Map<TopicPartition, Set<String>> replicaRacks = new HashMap<>();
            counts.forEach((topic, count) -> {
                for (int p = 0; p < count; p++) {
                    int replicas = 1 + random.nextInt(2);
                    Set<Node> chosen = new HashSet<>();
                    while (chosen.size() < replicas) {
                        chosen.add(nodes.get(random.nextInt(nodes.size())));
                    }
                    Node[] array = chosen.toArray(Node[]::new);
                    infos.add(new PartitionInfo(topic, p, array[0], array, array));
                    Set<String> rs = new TreeSet<>();
                    chosen.forEach(node -> {
                        if (node.rack() != null) {
                            rs.add(node.rack());
                        }
                    });
                    replicaRacks.put(new TopicPartition(topic, p), rs);
                }
            });
            Cluster cluster = new Cluster("c", nodes, infos, Set.of(), Set.of());

            List<String> members = randomMembers(random, 1 + random.nextInt(6));
            boolean sameTopics = random.nextInt(3) > 0;
            List<String> shared = randomSubscription(random, counts.keySet());
            Map<String, Subscription> subs = new HashMap<>();
            for (String m : members) {
                String rack = random.nextInt(5) == 0 ? null : racks.get(random.nextInt(3));
                subs.put(m, new Subscription(sameTopics ? shared : randomSubscription(random, counts.keySet()),
                        null, List.of(), -1, rack, random.nextInt(4) == 0 ? "i-" + m : null));
            }

            Map<String, Set<TopicPartition>> ours =
                    asSets(assignor.assign(new ClusterTopics(counts, replicaRacks), subs));
            assertValid(counts, subs, ours, true);
            assertRangeBalance(counts, subs, ours, false);

            ConsumerPartitionAssignor.GroupAssignment official = new org.apache.kafka.clients.consumer.RangeAssignor()
                    .assign(cluster, new ConsumerPartitionAssignor.GroupSubscription(AssignorTestSupport.official(subs)));
            Map<String, Set<TopicPartition>> expected = new TreeMap<>();
            official.groupAssignment().forEach((m, a) -> {
                Set<TopicPartition> set = new TreeSet<>(Partitions.ORDER);
                a.partitions().forEach(tp -> set.add(AssignorTestSupport.ours(tp)));
                expected.put(m, set);
            });
            assertThat(ours).as("seed %d round %d", seed, round).isEqualTo(expected);
        }
    }

    @Test
    void rackAwarePrefersLocalReplicasWithinTheRangeQuota() {
        // partition p has its only replica on rack r(p % 2); two members, one per rack
        Map<TopicPartition, Set<String>> racks = new HashMap<>();
        for (int p = 0; p < 4; p++) {
            racks.put(tp("t", p), Set.of("r" + (p % 2)));
        }
        Map<String, Subscription> subs = Map.of(
                "a", new Subscription(List.of("t"), null, List.of(), -1, "r1", null),
                "b", new Subscription(List.of("t"), null, List.of(), -1, "r0", null));
        Map<String, Set<TopicPartition>> result = asSets(assignor.assign(new ClusterTopics(Map.of("t", 4), racks), subs));
        assertThat(result.get("a")).containsExactly(tp("t", 1), tp("t", 3));
        assertThat(result.get("b")).containsExactly(tp("t", 0), tp("t", 2));
    }

    @Test
    void largeGroupIsCheap() {
        Map<String, Integer> counts = new HashMap<>();
        for (int t = 0; t < 10; t++) {
            counts.put("topic" + t, 100);
        }
        Map<String, Subscription> subs = new HashMap<>();
        for (int m = 0; m < 100; m++) {
            subs.put("member-" + m, new Subscription(List.copyOf(counts.keySet())));
        }
        Map<String, Set<TopicPartition>> result = asSets(assignor.assign(ClusterTopics.of(counts), subs));
        assertValid(counts, subs, result, true);
        assertThat(result.values()).allSatisfy(p -> assertThat(p).hasSize(10));
    }

    static TopicPartition tp(String topic, int partition) {
        return new TopicPartition(topic, partition);
    }
}
