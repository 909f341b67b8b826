package io.kflux.group.assignor;

import io.kflux.TopicPartition;
import io.kflux.protocol.consumer.StickyAssignorUserData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code "sticky"} assignor (KIP-54), eager protocol: a balanced assignment (partition counts differ by at
 * most one when all members subscribe to the same topics; otherwise no partition can move to a member holding two
 * fewer) that keeps as many partitions as possible on the member that had them, so less state moves.
 *
 * <p>Because eager members revoke everything before they join, the previous assignment travels in the user data,
 * in the official {@code StickyAssignor}'s format ({@link StickyAssignorUserData}: the partitions and the
 * generation they were assigned in), which this assignor writes after its first assignment and reads from every
 * member (kflux or official). {@link Subscription#ownedPartitions()} is not used, as with the official assignor.
 *
 * <p>Ties may be broken differently from the official assignor (which partition moves, who gets the larger
 * share), so a kflux leader and an official leader can produce different, equally balanced and equally sticky
 * assignments.
 *
 * <p>Not rack-aware yet: {@link Subscription#rackId()} and {@link ClusterTopics#replicaRacks()} are ignored. The
 * official sticky assignors may prefer rack-local partitions (KIP-881); results here are valid and balanced for
 * members of either kind, only not rack-aligned.
 *
 * <p>Keeps the member's last assignment: use one instance per consumer.
 */
public final class StickyAssignor extends AbstractStickyAssignor {

    /** The protocol name, {@value}. */
    public static final String NAME = "sticky";

    private List<TopicPartition> lastAssignment;
    private int generation = StickyAssignorUserData.DEFAULT_GENERATION;

    @Override
    public String name() {
        return NAME;
    }

    /** Nothing before the first assignment; afterwards that assignment and its generation. */
    @Override
    public byte[] subscriptionUserData(Set<String> topics) {
        if (lastAssignment == null) {
            return null;
        }
        Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
        for (TopicPartition tp : lastAssignment) {
            byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
        }
        List<StickyAssignorUserData.TopicPartition> topicsData = new ArrayList<>();
        byTopic.forEach((topic, partitions) -> topicsData.add(new StickyAssignorUserData.TopicPartition(topic, partitions)));
        return new StickyAssignorUserData(topicsData, generation).serialize();
    }

    @Override
    public void onAssignment(Assignment assignment, int generationId) {
        lastAssignment = assignment.partitions();
        generation = generationId;
    }

    @Override
    MemberData memberData(Subscription subscription) {
        // the official assignor reads only the user data: eager members own nothing while they join
        StickyAssignorUserData data = StickyAssignorUserData.deserialize(subscription.userData());
        List<TopicPartition> partitions = new ArrayList<>();
        for (StickyAssignorUserData.TopicPartition topic : data.previousAssignment()) {
            for (int p : topic.partitions()) {
                if (p >= 0) {
                    partitions.add(new TopicPartition(topic.topic(), p));
                }
            }
        }
        return new MemberData(partitions, data.generation());
    }

    @Override
    public GroupAssignment assign(ClusterTopics topics, Map<String, Subscription> subscriptions) {
        return toGroupAssignment(stickyAssign(topics, subscriptions, new HashMap<>(), new HashMap<>()));
    }
}
