package io.kflux.group.assignor;

import io.kflux.TopicPartition;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.consumer.ConsumerProtocolAssignment;
import io.kflux.protocol.consumer.ConsumerProtocolSubscription;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Between the assignor SPI's types and the consumer protocol's bytes (the JoinGroup protocol metadata and the
 * SyncGroup assignment), for the group member. Writes the highest known versions, as the official client does.
 */
public final class ConsumerProtocolCodec {

    private ConsumerProtocolCodec() {
    }

    /**
     * The JoinGroup protocol metadata for one assignor: a consumer protocol Subscription (v3) with the assignor's
     * user data. Under the eager protocol pass no owned partitions (they were revoked before joining).
     *
     * @param assignor        the assignor this protocol entry is for
     * @param topics          the subscribed topics
     * @param ownedPartitions the partitions the member holds now (cooperative protocol)
     * @param generationId    the generation they were assigned in, -1 when none
     * @param rackId          {@code client.rack}, null when none
     * @return the metadata bytes
     */
    public static byte[] subscriptionMetadata(PartitionAssignor assignor, Collection<String> topics,
                                              Collection<TopicPartition> ownedPartitions, int generationId,
                                              String rackId) {
        Set<String> sortedTopics = new TreeSet<>(topics);
        byte[] userData = assignor.subscriptionUserData(Set.copyOf(sortedTopics));
        List<ConsumerProtocolSubscription.TopicPartition> owned = new ArrayList<>();
        groupByTopic(ownedPartitions).forEach((topic, partitions) ->
                owned.add(new ConsumerProtocolSubscription.TopicPartition(topic, partitions)));
        return new ConsumerProtocolSubscription(List.copyOf(sortedTopics), userData, owned, generationId, rackId)
                .serialize(ConsumerProtocolSubscription.HIGHEST_VERSION);
    }

    /**
     * A member's JoinGroup metadata as the leader hands it to {@link PartitionAssignor#assign}.
     *
     * @param metadata        the member's protocol metadata
     * @param groupInstanceId the member's static id from the JoinGroup response, null when dynamic
     * @return the subscription
     * @throws io.kflux.protocol.MalformedMessageException when the bytes are not a consumer protocol Subscription
     */
    public static Subscription subscription(byte[] metadata, String groupInstanceId) {
        ConsumerProtocolSubscription s = ConsumerProtocolSubscription.deserialize(metadata);
        List<TopicPartition> owned = new ArrayList<>();
        if (s.ownedPartitions() != null) {
            for (ConsumerProtocolSubscription.TopicPartition tp : s.ownedPartitions()) {
                for (int p : tp.partitions()) {
                    if (p >= 0) { // nobody can own a negative partition: a broken claim is simply not kept
                        owned.add(new TopicPartition(tp.topic(), p));
                    }
                }
            }
        }
        List<String> topics = s.topics() == null ? List.of() : s.topics();
        return new Subscription(topics, s.userData(), owned, s.generationId(), s.rackId(), groupInstanceId);
    }

    /**
     * The SyncGroup bytes of one member's assignment (v3).
     *
     * @param assignment the member's assignment
     * @return the bytes
     */
    public static byte[] assignmentBytes(Assignment assignment) {
        List<ConsumerProtocolAssignment.TopicPartition> topics = new ArrayList<>();
        groupByTopic(assignment.partitions()).forEach((topic, partitions) ->
                topics.add(new ConsumerProtocolAssignment.TopicPartition(topic, partitions)));
        return new ConsumerProtocolAssignment(topics, assignment.userData())
                .serialize(ConsumerProtocolAssignment.HIGHEST_VERSION);
    }

    /**
     * A member's assignment from its SyncGroup response. An empty array (the coordinator's answer for a member
     * the leader left out) reads as an empty assignment.
     *
     * @param bytes the assignment bytes
     * @return the assignment
     * @throws io.kflux.protocol.MalformedMessageException when the bytes are not a consumer protocol Assignment
     */
    public static Assignment assignment(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return new Assignment(List.of());
        }
        ConsumerProtocolAssignment a = ConsumerProtocolAssignment.deserialize(bytes);
        List<TopicPartition> partitions = new ArrayList<>();
        if (a.assignedPartitions() != null) {
            for (ConsumerProtocolAssignment.TopicPartition tp : a.assignedPartitions()) {
                for (int p : tp.partitions()) {
                    if (p < 0) {
                        throw new MalformedMessageException("assignment holds partition " + p + " of " + tp.topic());
                    }
                    partitions.add(new TopicPartition(tp.topic(), p));
                }
            }
        }
        return new Assignment(partitions, a.userData());
    }

    private static Map<String, List<Integer>> groupByTopic(Collection<TopicPartition> partitions) {
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        for (TopicPartition tp : partitions) {
            byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
        }
        return byTopic;
    }
}
