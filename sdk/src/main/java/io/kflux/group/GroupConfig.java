package io.kflux.group;

import io.kflux.group.assignor.PartitionAssignor;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link ClassicGroupMember} needs from the consumer configuration (same names and units as the official
 * consumer's properties). Immutable.
 *
 * @param groupId             {@code group.id}; non-blank
 * @param groupInstanceId     {@code group.instance.id} (static membership, KIP-345), {@code null} for a dynamic member
 * @param sessionTimeoutMs    {@code session.timeout.ms}: sent in JoinGroup; also how long the member waits for a
 *                            heartbeat answer before it looks for the coordinator again; &gt; 0
 * @param heartbeatIntervalMs {@code heartbeat.interval.ms}; &gt; 0 and below the session timeout
 * @param maxPollIntervalMs   {@code max.poll.interval.ms}: the rebalance timeout sent in JoinGroup, and the bound on
 *                            each {@link GroupListener} call; &gt; 0
 * @param retryBackoffMs      {@code retry.backoff.ms}: first delay before retrying FindCoordinator, a JoinGroup
 *                            answered COORDINATOR_LOAD_IN_PROGRESS, a failed heartbeat; &gt;= 0
 * @param retryBackoffMaxMs   {@code retry.backoff.max.ms}: cap of that delay, which doubles per consecutive failure
 *                            (+/-20% jitter); below {@code retryBackoffMs} means a fixed {@code retryBackoffMs}
 * @param requestTimeoutMs    {@code request.timeout.ms}: for every group request but JoinGroup, which may take up
 *                            to the rebalance timeout (+5 s); &gt; 0
 * @param clientRack          {@code client.rack}, sent in the subscription (v3, KIP-881); {@code null} or empty for none
 * @param excludeInternalTopics {@code exclude.internal.topics}: pattern subscriptions never match internal topics
 * @param protocolType        the JoinGroup protocol type, {@code "consumer"} for consumer groups
 * @param assignors           {@code partition.assignment.strategy}: the assignors in preference order, each offered
 *                            as one JoinGroup protocol; non-empty, distinct names, with a rebalance protocol in common
 */
public record GroupConfig(String groupId, String groupInstanceId, int sessionTimeoutMs, int heartbeatIntervalMs,
                          int maxPollIntervalMs, long retryBackoffMs, long retryBackoffMaxMs, int requestTimeoutMs,
                          String clientRack, boolean excludeInternalTopics, String protocolType,
                          List<PartitionAssignor> assignors) {

    /**
     * Validates and copies.
     *
     * @throws IllegalArgumentException when a value is out of range (see the parameters)
     * @throws NullPointerException     when groupId, protocolType or assignors is null
     */
    public GroupConfig {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(protocolType, "protocolType");
        assignors = List.copyOf(Objects.requireNonNull(assignors, "assignors"));
        if (groupId.isBlank()) {
            throw new IllegalArgumentException("groupId must not be blank");
        }
        if (groupInstanceId != null && groupInstanceId.isBlank()) {
            throw new IllegalArgumentException("groupInstanceId must not be blank (null for a dynamic member)");
        }
        positive("sessionTimeoutMs", sessionTimeoutMs);
        positive("heartbeatIntervalMs", heartbeatIntervalMs);
        positive("maxPollIntervalMs", maxPollIntervalMs);
        positive("requestTimeoutMs", requestTimeoutMs);
        if (heartbeatIntervalMs >= sessionTimeoutMs) {
            throw new IllegalArgumentException("heartbeatIntervalMs (" + heartbeatIntervalMs
                    + ") must be below sessionTimeoutMs (" + sessionTimeoutMs + ")");
        }
        if (retryBackoffMs < 0 || retryBackoffMaxMs < 0) {
            throw new IllegalArgumentException("retry backoffs must be >= 0: " + retryBackoffMs + ", " + retryBackoffMaxMs);
        }
        if (assignors.isEmpty()) {
            throw new IllegalArgumentException("at least one assignor is needed");
        }
        if (assignors.stream().map(PartitionAssignor::name).distinct().count() != assignors.size()) {
            throw new IllegalArgumentException("assignor names must be distinct: "
                    + assignors.stream().map(PartitionAssignor::name).toList());
        }
    }

    /** {@code group.instance.id}, empty for a dynamic member. */
    public Optional<String> instanceId() {
        return Optional.ofNullable(groupInstanceId);
    }

    /** {@code client.rack} as sent in the subscription: null when not set. */
    String rackOrNull() {
        return clientRack == null || clientRack.isEmpty() ? null : clientRack;
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0: " + value);
        }
    }
}
