package io.kflux.group.assignor;

import io.kflux.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code "roundrobin"} assignor: all partitions of the subscribed topics, sorted by topic then partition,
 * are dealt to the members one at a time in a circle; a member not subscribed to a partition's topic is skipped.
 * Members are in the official order: static members first by {@code group.instance.id}, then the others by member
 * id. When every member subscribes to the same topics, counts differ by at most one;
 * otherwise the result may be unbalanced (see the official assignor's documentation for an example).
 *
 * <p>Equals the official {@code org.apache.kafka.clients.consumer.RoundRobinAssignor}'s result exactly. Eager only;
 * stateless.
 */
public final class RoundRobinAssignor implements PartitionAssignor {

    /** The protocol name, {@value}. */
    public static final String NAME = "roundrobin";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public GroupAssignment assign(ClusterTopics topics, Map<String, Subscription> subscriptions) {
        List<String> members = new ArrayList<>(subscriptions.keySet());
        members.sort(Partitions.memberOrder(subscriptions));
        Map<String, Set<String>> topicsByMember = new HashMap<>();
        Map<String, List<TopicPartition>> result = new HashMap<>();
        Set<String> allTopics = new TreeSet<>();
        subscriptions.forEach((member, subscription) -> {
            topicsByMember.put(member, new HashSet<>(subscription.topics()));
            result.put(member, new ArrayList<>());
            allTopics.addAll(subscription.topics());
        });

        int next = 0;
        for (String topic : allTopics) {
            int count = topics.partitionCount(topic);
            for (int p = 0; p < count; p++) {
                // someone subscribes to this topic (it came from a subscription), so this ends within one circle
                while (!topicsByMember.get(members.get(next)).contains(topic)) {
                    next = (next + 1) % members.size();
                }
                result.get(members.get(next)).add(new TopicPartition(topic, p));
                next = (next + 1) % members.size();
            }
        }

        Map<String, Assignment> out = new HashMap<>();
        result.forEach((member, partitions) -> out.put(member, new Assignment(partitions)));
        return new GroupAssignment(out);
    }
}
