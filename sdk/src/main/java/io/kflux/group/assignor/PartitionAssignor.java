package io.kflux.group.assignor;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A client-side partition assignor of the classic consumer group protocol: the group leader runs it to divide
 * the subscribed topics' partitions among the members. This is kflux's counterpart of the official client's
 * {@code ConsumerPartitionAssignor}; the built-in ones ({@link RangeAssignor}, {@link RoundRobinAssignor},
 * {@link StickyAssignor}, {@link CooperativeStickyAssignor}) produce what the official ones produce or expect, so
 * kflux members and official {@code KafkaConsumer} members can share a group whichever of them leads.
 *
 * <h2>How the group member uses it</h2>
 * <ol>
 *   <li>JoinGroup: one protocol per configured assignor, in preference order, named {@link #name()}, whose
 *       metadata is a consumer protocol Subscription carrying {@link #subscriptionUserData(Set)}
 *       (see {@link ConsumerProtocolCodec#subscriptionMetadata}). The coordinator picks the first name every member
 *       supports.</li>
 *   <li>Leader: decodes every member's metadata into a {@link Subscription} and calls
 *       {@link #assign(ClusterTopics, Map)} on the chosen assignor; the result goes out in SyncGroup.</li>
 *   <li>Every member, after SyncGroup: {@link #onAssignment(Assignment, int)} with its own assignment and the
 *       generation, so stateful assignors can remember it for the next JoinGroup.</li>
 * </ol>
 *
 * <h2>Writing your own</h2>
 * Name the class in {@code partition.assignment.strategy}; it needs a public no-argument constructor. One
 * instance is created per consumer and is only called from that consumer's event loop, so it needs no locking,
 * but it must not block. {@code name()} must be identical on every member that should agree on it. If it
 * supports {@link RebalanceProtocol#COOPERATIVE}, its assignments must follow KIP-429: a partition that is in one
 * member's {@link Subscription#ownedPartitions()} must not be given to another member in the same rebalance.
 */
public interface PartitionAssignor {

    /**
     * The protocol name sent in JoinGroup, e.g. {@code "range"}; the same on every member using this assignor.
     *
     * @return a non-empty name
     */
    String name();

    /**
     * The rebalance protocols this assignor supports; the member uses {@link RebalanceProtocol#COOPERATIVE} only
     * when every configured assignor supports it.
     *
     * @return a non-empty list, by default {@code [EAGER]}
     */
    default List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.EAGER);
    }

    /**
     * The assignor-specific bytes to put in this member's subscription (JoinGroup metadata).
     *
     * @param topics the topics the member subscribes to
     * @return the bytes, or {@code null} for none (the default)
     */
    default byte[] subscriptionUserData(Set<String> topics) {
        return null;
    }

    /**
     * Divides the partitions among the members (called on the group leader only).
     *
     * @param topics        partition counts (and replica racks when known) of at least the subscribed topics
     * @param subscriptions every member's subscription by member id
     * @return an assignment for every member id in {@code subscriptions}
     */
    GroupAssignment assign(ClusterTopics topics, Map<String, Subscription> subscriptions);

    /**
     * This member's assignment, after each successful SyncGroup (on every member, leader or not).
     *
     * @param assignment   the member's whole assignment as received
     * @param generationId the group generation it belongs to
     */
    default void onAssignment(Assignment assignment, int generationId) {
    }
}
