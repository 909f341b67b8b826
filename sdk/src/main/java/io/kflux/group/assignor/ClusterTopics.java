package io.kflux.group.assignor;

import io.kflux.TopicPartition;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The part of the cluster metadata an assignor needs: how many partitions each topic has and, when known, the
 * racks of each partition's replicas (for rack-aware assignment, KIP-881).
 *
 * <p>Topics missing from {@code partitionCounts} (not in the metadata, or without partitions) get no assignment,
 * as with the official client. The map may hold more topics than the group subscribes to.
 *
 * @param partitionCounts partition count by topic name
 * @param replicaRacks    the distinct racks of each partition's replicas; a partition missing from the map has no
 *                        known racks. Empty when the metadata has no rack information: assignors are then not
 *                        rack-aware.
 */
public record ClusterTopics(Map<String, Integer> partitionCounts, Map<TopicPartition, Set<String>> replicaRacks) {

    /**
     * Copies the maps (unmodifiable).
     *
     * @throws NullPointerException     when a map is null or holds a null
     * @throws IllegalArgumentException when a partition count is negative
     */
    public ClusterTopics {
        partitionCounts = Map.copyOf(Objects.requireNonNull(partitionCounts, "partitionCounts"));
        partitionCounts.forEach((topic, count) -> {
            if (count < 0) {
                throw new IllegalArgumentException("negative partition count " + count + " for topic " + topic);
            }
        });
        replicaRacks = Map.copyOf(Objects.requireNonNull(replicaRacks, "replicaRacks"));
    }

    /**
     * Partition counts without rack information.
     *
     * @param partitionCounts partition count by topic name
     * @return the metadata view
     */
    public static ClusterTopics of(Map<String, Integer> partitionCounts) {
        return new ClusterTopics(partitionCounts, Map.of());
    }

    /**
     * The topic's partition count.
     *
     * @param topic a topic name
     * @return the count, 0 when the topic is unknown
     */
    public int partitionCount(String topic) {
        return partitionCounts.getOrDefault(topic, 0);
    }

    /**
     * The racks of the partition's replicas.
     *
     * @param partition a partition
     * @return the racks, empty when unknown
     */
    public Set<String> racksOf(TopicPartition partition) {
        return replicaRacks.getOrDefault(partition, Set.of());
    }
}
