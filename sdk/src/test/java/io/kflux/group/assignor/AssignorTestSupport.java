package io.kflux.group.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor;

/** Random groups, conversions to the official client's types (the oracle), and the invariants every assignor keeps. */
final class AssignorTestSupport {
    private AssignorTestSupport() {
    }

    /** Random topics t0.. with 1..maxPartitions partitions each (a few with none, to check they are skipped). */
    static Map<String, Integer> randomTopics(Random random, int topics, int maxPartitions) {
        Map<String, Integer> counts = new TreeMap<>();
        for (int t = 0; t < topics; t++) {
            counts.put("t" + t, random.nextInt(20) == 0 ? 0 : 1 + random.nextInt(maxPartitions));
        }
        return counts;
    }

    /** Member ids in random (not sorted) order with random prefixes, so no assignor can rely on insertion order. */
    static List<String> randomMembers(Random random, int count) {
        List<String> members = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        while (members.size() < count) {
            String id = "consumer-" + Integer.toString(random.nextInt(1 << 20), 36) + "-" + members.size();
            if (seen.add(id)) {
                members.add(id);
            }
        }
        return members;
    }

    /** A random non-empty subset of the topic names (sometimes including one that does not exist). */
    static List<String> randomSubscription(Random random, Collection<String> topics) {
        List<String> all = new ArrayList<>(topics);
        List<String> chosen = new ArrayList<>();
        for (String topic : all) {
            if (random.nextBoolean()) {
                chosen.add(topic);
            }
        }
        if (chosen.isEmpty()) {
            chosen.add(all.get(random.nextInt(all.size())));
        }
        if (random.nextInt(10) == 0) {
            chosen.add("missing-topic");
        }
        return chosen;
    }

    /** A cluster for the official assignors and the same replica racks for ours (KIP-881 tests). */
    record Racked(org.apache.kafka.common.Cluster cluster, Map<TopicPartition, Set<String>> replicaRacks) {
    }

    /**
     * Six nodes in racks r0..r2 (one in eight without a rack); each partition of {@code counts} gets one or two
     * replicas on random nodes.
     */
    static Racked randomRacked(Random random, Map<String, Integer> counts) {
        List<org.apache.kafka.common.Node> nodes = new ArrayList<>();
        for (int n = 0; n < 6; n++) {
            nodes.add(new org.apache.kafka.common.Node(n, "host" + n, 9092, random.nextInt(8) == 0 ? null : "r" + n % 3));
        }
        List<org.apache.kafka.common.PartitionInfo> infos = new ArrayList<>();
        Map<TopicPartition, Set<String>> replicaRacks = new HashMap<>();
        counts.forEach((topic, count) -> {
            for (int p = 0; p < count; p++) {
                int replicas = 1 + random.nextInt(2);
                Set<org.apache.kafka.common.Node> chosen = new HashSet<>();
                while (chosen.size() < replicas) {
                    chosen.add(nodes.get(random.nextInt(nodes.size())));
                }
                org.apache.kafka.common.Node[] array = chosen.toArray(org.apache.kafka.common.Node[]::new);
                infos.add(new org.apache.kafka.common.PartitionInfo(topic, p, array[0], array, array));
                Set<String> racks = new TreeSet<>();
                chosen.forEach(node -> {
                    if (node.rack() != null) {
                        racks.add(node.rack());
                    }
                });
                replicaRacks.put(new TopicPartition(topic, p), racks);
            }
        });
        return new Racked(new org.apache.kafka.common.Cluster("c", nodes, infos, Set.of(), Set.of()), replicaRacks);
    }

    /** Partitions assigned to a member in a rack holding one of their replicas. */
    static int local(Map<String, Set<TopicPartition>> assignment, Map<String, Subscription> subscriptions,
                     Map<TopicPartition, Set<String>> replicaRacks) {
        int local = 0;
        for (Map.Entry<String, Set<TopicPartition>> e : assignment.entrySet()) {
            String rack = subscriptions.get(e.getKey()).rackId();
            for (TopicPartition tp : e.getValue()) {
                local += rack != null && replicaRacks.getOrDefault(tp, Set.of()).contains(rack) ? 1 : 0;
            }
        }
        return local;
    }

    // ------------------------------------------------------------------ oracle conversions

    static org.apache.kafka.common.TopicPartition official(TopicPartition tp) {
        return new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition());
    }

    static TopicPartition ours(org.apache.kafka.common.TopicPartition tp) {
        return new TopicPartition(tp.topic(), tp.partition());
    }

    static ConsumerPartitionAssignor.Subscription official(Subscription s) {
        ConsumerPartitionAssignor.Subscription o = new ConsumerPartitionAssignor.Subscription(
                s.topics(), s.userData() == null ? null : ByteBuffer.wrap(s.userData()),
                s.ownedPartitions().stream().map(AssignorTestSupport::official).toList(),
                s.generationId(), Optional.ofNullable(s.rackId()));
        o.setGroupInstanceId(Optional.ofNullable(s.groupInstanceId()));
        return o;
    }

    static Map<String, ConsumerPartitionAssignor.Subscription> official(Map<String, Subscription> subscriptions) {
        Map<String, ConsumerPartitionAssignor.Subscription> out = new HashMap<>();
        subscriptions.forEach((member, s) -> out.put(member, official(s)));
        return out;
    }

    /** The official assignor's result for partition counts only (no racks), as sorted sets per member. */
    static Map<String, Set<TopicPartition>> officialAssign(AbstractPartitionAssignor assignor,
                                                           Map<String, Integer> counts,
                                                           Map<String, Subscription> subscriptions) {
        // the official API expects only subscribed topics that exist and have partitions (the sticky ones hand out
        // every partition of this map)
        Set<String> subscribed = new HashSet<>();
        subscriptions.values().forEach(s -> subscribed.addAll(s.topics()));
        Map<String, Integer> existing = new HashMap<>();
        counts.forEach((topic, count) -> {
            if (count > 0 && subscribed.contains(topic)) {
                existing.put(topic, count);
            }
        });
        Map<String, List<org.apache.kafka.common.TopicPartition>> raw =
                assignor.assign(existing, official(subscriptions));
        Map<String, Set<TopicPartition>> out = new TreeMap<>();
        raw.forEach((member, list) -> {
            Set<TopicPartition> set = new TreeSet<>(Partitions.ORDER);
            list.forEach(tp -> set.add(ours(tp)));
            assertThat(set).as("official assignor gave a partition twice to %s", member).hasSize(list.size());
            out.put(member, set);
        });
        return out;
    }

    static Map<String, Set<TopicPartition>> asSets(GroupAssignment assignment) {
        Map<String, Set<TopicPartition>> out = new TreeMap<>();
        assignment.byMemberId().forEach((member, a) -> {
            Set<TopicPartition> set = new TreeSet<>(Partitions.ORDER);
            set.addAll(a.partitions());
            assertThat(set).as("partition given twice to %s", member).hasSize(a.partitions().size());
            out.put(member, set);
        });
        return out;
    }

    // ------------------------------------------------------------------ invariants

    /**
     * Every member has an entry; a partition goes to at most one member, only to members subscribed to its topic;
     * when {@code complete}, every partition of a subscribed topic is assigned.
     */
    static void assertValid(Map<String, Integer> counts, Map<String, Subscription> subscriptions,
                            Map<String, Set<TopicPartition>> assignment, boolean complete) {
        assertThat(assignment.keySet()).isEqualTo(subscriptions.keySet());
        Map<TopicPartition, String> owner = new HashMap<>();
        assignment.forEach((member, partitions) -> {
            for (TopicPartition tp : partitions) {
                assertThat(subscriptions.get(member).topics()).as("%s is subscribed to %s", member, tp.topic())
                        .contains(tp.topic());
                assertThat(tp.partition()).isLessThan(counts.getOrDefault(tp.topic(), 0));
                String previous = owner.put(tp, member);
                assertThat(previous).as("%s assigned to %s and %s", tp, previous, member).isNull();
            }
        });
        if (complete) {
            Set<String> subscribed = new HashSet<>();
            subscriptions.values().forEach(s -> subscribed.addAll(s.topics()));
            for (String topic : subscribed) {
                for (int p = 0; p < counts.getOrDefault(topic, 0); p++) {
                    assertThat(owner).as("unassigned").containsKey(new TopicPartition(topic, p));
                }
            }
        }
    }

    static int spread(Map<String, Set<TopicPartition>> assignment) {
        int min = assignment.values().stream().mapToInt(Set::size).min().orElse(0);
        int max = assignment.values().stream().mapToInt(Set::size).max().orElse(0);
        return max - min;
    }

    /**
     * The official sticky assignors' definition of balanced: no partition could move from its member to another
     * member subscribed to its topic that holds at least two fewer partitions.
     */
    static void assertLocallyBalanced(Map<String, Integer> counts, Map<String, Subscription> subscriptions,
                                      Map<String, Set<TopicPartition>> assignment) {
        Map<String, Integer> maxLoadByTopic = new HashMap<>();
        assignment.forEach((member, partitions) -> partitions.forEach(tp ->
                maxLoadByTopic.merge(tp.topic(), partitions.size(), Math::max)));
        assignment.forEach((member, partitions) -> {
            for (String topic : subscriptions.get(member).topics()) {
                Integer max = maxLoadByTopic.get(topic);
                if (max != null) {
                    assertThat(max).as("a partition of %s could move to %s (holding %d)", topic, member, partitions.size())
                            .isLessThanOrEqualTo(partitions.size() + 1);
                }
            }
        });
    }

    /** Partitions that a member held before and that are now assigned to a different member. */
    static int moves(Map<String, ? extends Collection<TopicPartition>> before, Map<String, Set<TopicPartition>> after) {
        Map<TopicPartition, String> now = new HashMap<>();
        after.forEach((member, partitions) -> partitions.forEach(tp -> now.put(tp, member)));
        int moved = 0;
        for (Map.Entry<String, ? extends Collection<TopicPartition>> e : before.entrySet()) {
            for (TopicPartition tp : e.getValue()) {
                String owner = now.get(tp);
                if (owner != null && !owner.equals(e.getKey())) {
                    moved++;
                }
            }
        }
        return moved;
    }
}
