package io.kflux.metadata;

/**
 * One partition's leadership: {@code leaderId} -1 when there is no leader (election under way),
 * {@code leaderEpoch} -1 when the broker did not say (KIP-320), {@code errorCode} as the broker
 * reported it for this partition (0 = none).
 */
public record PartitionInfo(String topic, int partition, int leaderId, int leaderEpoch, short errorCode) {
}
