package io.kflux.group.assignor;

import io.kflux.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@link StickyAssignor} and {@link CooperativeStickyAssignor} share (KIP-54): finding out which member holds
 * which partition from the subscriptions, then a balanced assignment that keeps as much of that as possible
 * ({@link StickyBalancer}).
 *
 * <p>When several members claim the same partition, the claim with the highest generation wins; when the highest
 * generation is claimed by more than one member, nobody keeps the partition (the official assignor's rules).
 * Claims on topics the member no longer subscribes to, or on partitions that do not exist, are not kept.
 *
 * <p>Rack-aware (KIP-881) from {@link Subscription#rackId()} and {@link ClusterTopics#replicaRacks()}: see
 * {@link StickyBalancer} for when and how.
 */
abstract sealed class AbstractStickyAssignor implements PartitionAssignor
        permits StickyAssignor, CooperativeStickyAssignor {

    /** What a member says it holds, and since which generation (-1 unknown). */
    record MemberData(List<TopicPartition> partitions, int generation) {
    }

    /** Where this assignor reads a member's held partitions and generation from. */
    abstract MemberData memberData(Subscription subscription);

    /** The assignment before any protocol-specific adjustment (KIP-429 for the cooperative assignor). */
    final Map<String, List<TopicPartition>> stickyAssign(ClusterTopics topics, Map<String, Subscription> subscriptions,
                                                         Map<TopicPartition, String> holdersOut,
                                                         Map<TopicPartition, Set<String>> claimantsOut) {
        Map<String, Integer> counts = new TreeMap<>();
        Map<String, Set<String>> topicsByMember = new HashMap<>();
        Map<String, String> memberRacks = new HashMap<>();
        subscriptions.forEach((member, subscription) -> {
            if (subscription.rackId() != null && !subscription.rackId().isEmpty()) {
                memberRacks.put(member, subscription.rackId());
            }
            Set<String> effective = new LinkedHashSet<>();
            for (String topic : subscription.topics()) {
                int count = topics.partitionCount(topic);
                if (count > 0) {
                    effective.add(topic);
                    counts.put(topic, count);
                }
            }
            topicsByMember.put(member, effective);
        });

        Map<TopicPartition, Integer> bestGeneration = new HashMap<>();
        for (String member : new TreeMap<>(subscriptions).keySet()) {
            MemberData data = memberData(subscriptions.get(member));
            for (TopicPartition tp : new LinkedHashSet<>(data.partitions())) {
                Integer count = counts.get(tp.topic());
                if (count == null || tp.partition() >= count) {
                    continue; // not part of this assignment: the member simply will not get it back
                }
                claimantsOut.computeIfAbsent(tp, k -> new HashSet<>()).add(member);
                Integer best = bestGeneration.get(tp);
                if (best == null || data.generation() > best) {
                    bestGeneration.put(tp, data.generation());
                    holdersOut.put(tp, member);
                } else if (data.generation() == best) {
                    // two members claim it for the same generation: neither can be trusted to hold it
                    holdersOut.put(tp, null);
                }
            }
        }
        holdersOut.values().removeIf(v -> v == null);
        return new StickyBalancer(counts, topicsByMember, holdersOut, memberRacks, topics).assign();
    }

    static GroupAssignment toGroupAssignment(Map<String, List<TopicPartition>> assignment) {
        Map<String, Assignment> out = new HashMap<>();
        assignment.forEach((member, partitions) -> out.put(member, new Assignment(new ArrayList<>(partitions))));
        return new GroupAssignment(out);
    }
}
