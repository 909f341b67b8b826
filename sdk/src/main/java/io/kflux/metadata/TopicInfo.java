package io.kflux.metadata;

import java.util.List;
import java.util.UUID;

/**
 * One topic of a snapshot: its id (zero UUID when the broker did not send one), its partitions
 * indexed by partition number, and the broker's error for the whole topic (0 = none).
 */
public record TopicInfo(String name, UUID topicId, short errorCode, boolean internal, List<PartitionInfo> partitions) {

    /** The partition, or null when the topic has no such partition. */
    public PartitionInfo partition(int partition) {
        return partition >= 0 && partition < partitions.size() ? partitions.get(partition) : null;
    }
}
