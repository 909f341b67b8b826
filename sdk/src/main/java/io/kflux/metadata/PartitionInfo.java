package io.kflux.metadata;

import java.util.List;

/**
 * One partition's leadership: {@code leaderId} -1 when there is no leader (election under way),
 * {@code leaderEpoch} -1 when the broker did not say (KIP-320), {@code errorCode} as the broker
 * reported it for this partition (0 = none), {@code replicas} the node ids of its replicas (empty when
 * unknown; the leader's rack-aware assignment, KIP-881, reads their racks).
 */
public record PartitionInfo(String topic, int partition, int leaderId, int leaderEpoch, short errorCode,
                            List<Integer> replicas) {

    /** Copies {@code replicas}; null becomes empty. */
    public PartitionInfo {
        replicas = replicas == null ? List.of() : List.copyOf(replicas);
    }
}
