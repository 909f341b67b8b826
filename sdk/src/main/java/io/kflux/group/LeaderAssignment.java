package io.kflux.group;

import io.kflux.KafkaFluxException;
import io.kflux.group.assignor.Assignment;
import io.kflux.group.assignor.ClusterTopics;
import io.kflux.group.assignor.ConsumerProtocolCodec;
import io.kflux.group.assignor.GroupAssignment;
import io.kflux.group.assignor.PartitionAssignor;
import io.kflux.group.assignor.Subscription;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.TopicInfo;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.JoinGroupResponse.JoinGroupResponseMember;
import io.kflux.protocol.message.SyncGroupRequest.SyncGroupRequestAssignment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic protocol's client-side assignment, which only the generation's leader runs: the members'
 * subscriptions, the assignor's result as SyncGroup assignments, and the partition counts it assigned, which the
 * leader compares with each new metadata snapshot (a change makes it rejoin, which rebalances the group). Loop-only
 * state of a {@link ClassicGroupMember}.
 */
final class LeaderAssignment {
    private static final Logger log = LoggerFactory.getLogger(LeaderAssignment.class);

    private final String logPrefix;
    private boolean leader;
    /** Every member's topics (empty unless leader): the leader's metadata interest. */
    private Set<String> groupSubscription = Set.of();
    /** Partition counts of the group's topics when the leader assigned (null for followers). */
    private Map<String, Integer> assignedCounts;

    LeaderAssignment(String logPrefix) {
        this.logPrefix = logPrefix;
    }

    boolean isLeader() {
        return leader;
    }

    /** The topics every member subscribed to when this member is the leader, else empty. */
    Set<String> groupSubscription() {
        return groupSubscription;
    }

    /**
     * This member leads the new generation: reads every member's subscription.
     *
     * @param ownTopics this member's topics (part of the group subscription whatever the members say)
     * @return the subscriptions by member id, in the coordinator's order
     * @throws KafkaFluxException when a member's subscription cannot be read
     */
    Map<String, Subscription> elect(List<JoinGroupResponseMember> members, Set<String> ownTopics) {
        leader = true;
        Map<String, Subscription> subscriptions = new LinkedHashMap<>();
        Set<String> allTopics = new TreeSet<>(ownTopics);
        for (JoinGroupResponseMember member : members) {
            Subscription s;
            try {
                s = ConsumerProtocolCodec.subscription(member.metadata(), member.groupInstanceId());
            } catch (RuntimeException e) {
                throw new KafkaFluxException("the subscription of group member " + member.memberId()
                        + " cannot be read: " + e.getMessage(), e);
            }
            subscriptions.put(member.memberId(), s);
            allTopics.addAll(s.topics());
        }
        groupSubscription = Collections.unmodifiableSet(allTopics);
        return subscriptions;
    }

    /** KIP-814: a static leader that rejoined must not reassign; it keeps watching the group's topics. */
    void skipAssignment(Cluster cluster) {
        assignedCounts = partitionCounts(cluster, groupSubscription, true);
    }

    /**
     * Runs the assignor over the group's topics in {@code cluster}.
     *
     * @return one SyncGroup assignment per member (an empty one for a member the assignor left out)
     * @throws KafkaFluxException when the assignor fails
     */
    List<SyncGroupRequestAssignment> assign(PartitionAssignor assignor, Map<String, Subscription> subscriptions,
                                            Cluster cluster) {
        Map<String, Integer> counts = partitionCounts(cluster, groupSubscription, false);
        GroupAssignment result;
        try {
            result = assignor.assign(new ClusterTopics(counts, replicaRacks(cluster, counts.keySet())), subscriptions);
        } catch (RuntimeException e) {
            throw new KafkaFluxException("assignor '" + assignor.name() + "' failed: " + e, e);
        }
        List<SyncGroupRequestAssignment> assignments = new ArrayList<>();
        for (String memberId : subscriptions.keySet()) {
            Assignment a = result.byMemberId().get(memberId);
            if (a == null) {
                log.warn("{}assignor '{}' gave nothing for member {}; sending it an empty assignment", logPrefix,
                        assignor.name(), memberId);
                a = new Assignment(List.of());
            }
            assignments.add(new SyncGroupRequestAssignment(memberId, ConsumerProtocolCodec.assignmentBytes(a)));
        }
        assignedCounts = partitionCounts(cluster, groupSubscription, true);
        log.debug("{}leader assigned {} members with '{}'", logPrefix, subscriptions.size(), assignor.name());
        return assignments;
    }

    /**
     * Why the group must be assigned again after {@code cluster}: a partition count of the group's topics differs
     * from what the leader assigned (a topic it could not assign counts as changed once it has partitions).
     *
     * @return the reason, or null when nothing changed or this member does not lead
     */
    String changeSinceAssignment(Cluster cluster) {
        if (!leader || assignedCounts == null) {
            return null;
        }
        Map<String, Integer> now = partitionCounts(cluster, assignedCounts.keySet(), true);
        for (Map.Entry<String, Integer> e : now.entrySet()) {
            Integer before = assignedCounts.get(e.getKey());
            Integer after = e.getValue();
            // A topic unknown when assigning (null: e.g. still LEADER_NOT_AVAILABLE right after its creation)
            // got no partitions then: once it has some, the group must be assigned again.
            boolean changed = before == null ? after != null && after > 0 : after != null && !before.equals(after);
            if (changed) {
                return "the partitions of topic " + e.getKey() + " changed (" + (before == null ? "unknown" : before)
                        + " -> " + after + ")";
            }
        }
        return null;
    }

    /**
     * No longer the leader (new generation, reset, leave).
     *
     * @return true when the group subscription was dropped (the metadata interest must shrink)
     */
    boolean reset() {
        leader = false;
        assignedCounts = null;
        if (groupSubscription.isEmpty()) {
            return false;
        }
        groupSubscription = Set.of();
        return true;
    }

    /**
     * The racks of each partition's replicas ({@code broker.rack} of the nodes metadata names), for the rack-aware
     * assignors (KIP-881: the range and sticky assignors prefer giving a member partitions with a replica in its
     * {@code client.rack}). Empty when no node has a rack: the assignors are then not rack-aware.
     */
    private static Map<io.kflux.TopicPartition, Set<String>> replicaRacks(Cluster cluster, Set<String> topics) {
        if (cluster.nodes().values().stream().allMatch(n -> n.rack() == null || n.rack().isEmpty())) {
            return Map.of();
        }
        Map<io.kflux.TopicPartition, Set<String>> racks = new HashMap<>();
        for (String topic : topics) {
            TopicInfo t = cluster.topic(topic);
            if (t == null) {
                continue;
            }
            for (io.kflux.metadata.PartitionInfo p : t.partitions()) {
                Set<String> of = new TreeSet<>();
                for (int node : p.replicas()) {
                    io.kflux.metadata.Node n = cluster.node(node);
                    if (n != null && n.rack() != null && !n.rack().isEmpty()) {
                        of.add(n.rack());
                    }
                }
                if (!of.isEmpty()) {
                    racks.put(new io.kflux.TopicPartition(topic, p.partition()), Set.copyOf(of));
                }
            }
        }
        return racks;
    }

    /**
     * Partition counts of {@code topics} in {@code cluster}. With {@code withUnknown}: a topic the broker said does
     * not exist counts 0, one the snapshot does not cover (or with a passing error) maps to null, so it is not
     * compared; without: only topics with partitions.
     */
    private static Map<String, Integer> partitionCounts(Cluster cluster, Set<String> topics, boolean withUnknown) {
        Map<String, Integer> counts = new HashMap<>();
        for (String topic : topics) {
            TopicInfo t = cluster.topic(topic);
            Integer count = null;
            if (t != null && t.errorCode() == 0) {
                count = t.partitions().size();
            } else if (t != null && t.errorCode() == Errors.UNKNOWN_TOPIC_OR_PARTITION.code()) {
                count = 0;
            }
            if (withUnknown) {
                counts.put(topic, count);
            } else if (count != null && count > 0) {
                counts.put(topic, count);
            }
        }
        return counts;
    }
}
