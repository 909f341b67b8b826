package io.kflux.group.assignor;

import io.kflux.TopicPartition;
import java.util.List;
import java.util.Objects;

/**
 * One member's subscription as the group leader sees it: what the member sent in its JoinGroup request for
 * the chosen assignor (the consumer protocol's Subscription, see
 * {@link io.kflux.protocol.consumer.ConsumerProtocolSubscription}), plus its static identity.
 *
 * <p>{@code userData} is a byte array, so {@code equals}/{@code hashCode} compare it by identity, as records
 * do; do not use subscriptions as map keys.
 *
 * @param topics          the topics the member subscribes to
 * @param userData        the assignor-specific bytes the member's {@link PartitionAssignor#subscriptionUserData}
 *                        produced, {@code null} when none; not to be modified
 * @param ownedPartitions the partitions the member holds while it joins (subscription v1+, KIP-429); empty for
 *                        older members and for members that revoked everything first (eager protocol)
 * @param generationId    the generation in which the member got {@code ownedPartitions} (subscription v2+);
 *                        -1 when unknown
 * @param rackId          the member's {@code client.rack} (subscription v3+, KIP-881), {@code null} when none
 * @param groupInstanceId the member's {@code group.instance.id} (static membership), {@code null} when dynamic
 */
public record Subscription(List<String> topics, byte[] userData, List<TopicPartition> ownedPartitions,
                           int generationId, String rackId, String groupInstanceId) {

    /** The generation value meaning "not known". */
    public static final int UNKNOWN_GENERATION = -1;

    /**
     * Copies the lists (unmodifiable, no nulls).
     *
     * @throws NullPointerException when {@code topics} or {@code ownedPartitions} is null or holds a null
     */
    public Subscription {
        topics = List.copyOf(Objects.requireNonNull(topics, "topics"));
        ownedPartitions = List.copyOf(Objects.requireNonNull(ownedPartitions, "ownedPartitions"));
    }

    /**
     * A subscription with only topics: no user data, nothing owned, unknown generation, no rack, dynamic member.
     *
     * @param topics the subscribed topics
     */
    public Subscription(List<String> topics) {
        this(topics, null, List.of(), UNKNOWN_GENERATION, null, null);
    }

    /**
     * A subscription with topics and user data only.
     *
     * @param topics   the subscribed topics
     * @param userData the assignor's bytes, may be null
     */
    public Subscription(List<String> topics, byte[] userData) {
        this(topics, userData, List.of(), UNKNOWN_GENERATION, null, null);
    }
}
