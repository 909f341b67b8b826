package io.kflux.group.assignor;

import io.kflux.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiPredicate;

/**
 * The {@code "range"} assignor: per topic, the partitions in numeric order are cut into contiguous ranges, one
 * per subscribed member, members in order; when the count does not divide evenly, the first members get one
 * extra partition. Co-partitioned topics (same partition count, same members) therefore land together:
 * partition {@code i} of each goes to the same member.
 *
 * <p>Member order is the official client's ({@code AbstractPartitionAssignor.MemberInfo}): static members
 * (with a {@code group.instance.id}) first, ordered by instance id, so a restarting static member gets the same
 * ranges back; then dynamic members by member id. With no rack information the result equals the official
 * {@code org.apache.kafka.clients.consumer.RangeAssignor}'s exactly.
 *
 * <p>Rack-aware (KIP-881), as the official assignor: when members declare a rack ({@code client.rack}) and the
 * replicas of some partitions are on a subset of the racks, a first pass gives each member, within its range
 * quota, partitions that have a replica on its rack (for co-partitioned topics partition {@code i} of all of them
 * together); the rest is then assigned in plain range order. Per-topic balance is the same as without racks.
 *
 * <p>Eager only; keeps no state, so one instance may serve several consumers.
 */
public final class RangeAssignor implements PartitionAssignor {

    /** The protocol name, {@value}. */
    public static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public GroupAssignment assign(ClusterTopics topics, Map<String, Subscription> subscriptions) {
        Map<String, List<TopicPartition>> result = new HashMap<>();
        Map<String, String> memberRacks = new HashMap<>();
        // TreeMap: a deterministic topic order (the result does not depend on it, but logs and debugging do)
        Map<String, List<String>> membersByTopic = new TreeMap<>();
        subscriptions.forEach((memberId, subscription) -> {
            result.put(memberId, new ArrayList<>());
            if (subscription.rackId() != null && !subscription.rackId().isEmpty()) {
                memberRacks.put(memberId, subscription.rackId());
            }
            for (String topic : new LinkedHashSet<>(subscription.topics())) {
                membersByTopic.computeIfAbsent(topic, t -> new ArrayList<>()).add(memberId);
            }
        });
        Comparator<String> memberOrder = Partitions.memberOrder(subscriptions);

        List<TopicRanges> ranges = new ArrayList<>();
        membersByTopic.forEach((topic, members) -> {
            int count = topics.partitionCount(topic);
            if (count > 0) {
                members.sort(memberOrder);
                ranges.add(new TopicRanges(topic, count, members, memberRacks, topics));
            }
        });

        boolean rackAware = ranges.stream().anyMatch(r -> r.needsRackMatching);
        if (rackAware) {
            assignWithRackMatching(ranges, result);
        }
        for (TopicRanges r : ranges) {
            r.fill((member, partition) -> true, result);
        }
        result.values().forEach(list -> list.sort(Partitions.ORDER));

        Map<String, Assignment> out = new HashMap<>();
        result.forEach((member, partitions) -> out.put(member, new Assignment(partitions)));
        return new GroupAssignment(out);
    }

    /**
     * The rack pass. Topics with the same members and partition count are co-partitioned: partition i of all of
     * them goes to the first member whose rack matches in every one of them (keeping the co-partitioning the
     * plain range assignment would give); other topics that need it are matched on their own.
     */
    private static void assignWithRackMatching(List<TopicRanges> ranges, Map<String, List<TopicPartition>> result) {
        Map<List<String>, Map<Integer, List<TopicRanges>>> groups = new LinkedHashMap<>();
        for (TopicRanges r : ranges) {
            groups.computeIfAbsent(r.members, m -> new LinkedHashMap<>())
                    .computeIfAbsent(r.rackKnownPartitions, n -> new ArrayList<>()).add(r);
        }
        groups.forEach((members, byCount) -> byCount.forEach((count, group) -> {
            if (group.size() > 1) {
                assignCoPartitioned(members, count, group, result);
            } else if (group.get(0).needsRackMatching) {
                TopicRanges r = group.get(0);
                r.fill(r::racksMatch, result);
            }
        }));
    }

    private static void assignCoPartitioned(List<String> members, int partitions, List<TopicRanges> group,
                                            Map<String, List<TopicPartition>> result) {
        Set<String> remaining = new LinkedHashSet<>(members);
        for (int p = 0; p < partitions && !remaining.isEmpty(); p++) {
            String chosen = null;
            for (String member : remaining) {
                boolean fits = true;
                for (TopicRanges r : group) {
                    if (!r.racksMatch(member, p) || r.maxAssignable(member) <= 0) {
                        fits = false;
                        break;
                    }
                }
                if (fits) {
                    chosen = member;
                    break;
                }
            }
            if (chosen == null) {
                continue;
            }
            for (TopicRanges r : group) {
                r.assign(chosen, List.of(p), result);
            }
            String member = chosen;
            if (group.stream().noneMatch(r -> r.maxAssignable(member) > 0)) {
                remaining.remove(chosen);
            }
        }
    }

    /** One topic's progress: what is still unassigned and how many each member may still take. */
    private static final class TopicRanges {
        final String topic;
        final List<String> members;
        final Map<String, String> racks;
        final ClusterTopics metadata;
        final Set<Integer> unassigned = new LinkedHashSet<>();
        final Map<String, Integer> assignedCount = new HashMap<>();
        final int perMember;
        int membersWithExtraLeft;
        final boolean needsRackMatching;
        /** The partition count when member racks are known, else 0: the official grouping key of the rack pass. */
        final int rackKnownPartitions;

        TopicRanges(String topic, int partitions, List<String> members, Map<String, String> memberRacks,
                    ClusterTopics metadata) {
            this.topic = topic;
            this.members = List.copyOf(members);
            this.metadata = metadata;
            for (int p = 0; p < partitions; p++) {
                unassigned.add(p);
            }
            perMember = partitions / members.size();
            membersWithExtraLeft = partitions % members.size();
            Map<String, String> racks = new HashMap<>();
            for (String m : members) {
                String rack = memberRacks.get(m);
                if (rack != null) {
                    racks.put(m, rack);
                }
            }
            this.racks = racks;
            Set<String> consumerRacks = new HashSet<>(racks.values());
            if (consumerRacks.isEmpty()) {
                needsRackMatching = false;
                rackKnownPartitions = 0;
            } else {
                rackKnownPartitions = partitions;
                Set<String> allPartitionRacks = new HashSet<>();
                for (int p = 0; p < partitions; p++) {
                    allPartitionRacks.addAll(metadata.racksOf(new TopicPartition(topic, p)));
                }
                boolean someOnSubset = false;
                for (int p = 0; p < partitions && !someOnSubset; p++) {
                    someOnSubset = !metadata.racksOf(new TopicPartition(topic, p)).equals(allPartitionRacks);
                }
                // as KIP-881: only worth it when racks overlap and not every partition is on every rack
                needsRackMatching = !Collections.disjoint(consumerRacks, allPartitionRacks) && someOnSubset;
            }
        }

        boolean racksMatch(String member, int partition) {
            String rack = racks.get(member);
            return rack == null || metadata.racksOf(new TopicPartition(topic, partition)).contains(rack);
        }

        int maxAssignable(String member) {
            int max = perMember + (membersWithExtraLeft > 0 ? 1 : 0) - assignedCount.getOrDefault(member, 0);
            return Math.max(0, max);
        }

        /** In member order, gives each member the lowest unassigned partitions it accepts, up to its quota. */
        void fill(BiPredicate<String, Integer> accepts, Map<String, List<TopicPartition>> result) {
            for (String member : members) {
                if (unassigned.isEmpty()) {
                    return;
                }
                int max = maxAssignable(member);
                List<Integer> taken = new ArrayList<>();
                for (Iterator<Integer> it = unassigned.iterator(); it.hasNext() && taken.size() < max; ) {
                    int p = it.next();
                    if (accepts.test(member, p)) {
                        taken.add(p);
                    }
                }
                if (!taken.isEmpty()) {
                    assign(member, taken, result);
                }
            }
        }

        void assign(String member, List<Integer> partitions, Map<String, List<TopicPartition>> result) {
            List<TopicPartition> target = result.get(member);
            for (int p : partitions) {
                target.add(new TopicPartition(topic, p));
                unassigned.remove(p);
            }
            int count = assignedCount.merge(member, partitions.size(), Integer::sum);
            if (count > perMember) {
                membersWithExtraLeft--;
            }
        }
    }
}
