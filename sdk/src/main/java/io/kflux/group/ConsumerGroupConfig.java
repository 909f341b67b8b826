package io.kflux.group;

import java.util.Objects;

/**
 * What a {@link ConsumerGroupMember} (KIP-848) needs: the broker runs the assignment and decides session timeout
 * and heartbeat interval, so the member has far fewer settings than a classic one ({@link GroupConfig}).
 *
 * @param groupId            {@code group.id}; not blank
 * @param groupInstanceId    {@code group.instance.id} (static membership), null for a dynamic member
 * @param clientRack         {@code client.rack}, sent as the member's rack id; null or empty for none
 * @param remoteAssignor     {@code group.remote.assignor} ({@code uniform}, {@code range}, ...); null lets the broker
 *                           choose
 * @param rebalanceTimeoutMs {@code max.poll.interval.ms}: sent as the rebalance timeout (how long the coordinator
 *                           waits for a revocation) and the bound on each listener call; &gt; 0
 * @param retryBackoffMs     {@code retry.backoff.ms}: first delay before a heartbeat is retried after a retriable
 *                           error; &gt;= 0
 * @param retryBackoffMaxMs  {@code retry.backoff.max.ms}: cap of that delay, doubling per failure
 * @param requestTimeoutMs   {@code request.timeout.ms} for each heartbeat; &gt; 0
 * @param sessionTimeoutMs   {@code session.timeout.ms}: the broker's session timeout for the group
 *                           ({@code group.consumer.session.timeout.ms}, or the group's
 *                           {@code consumer.session.timeout.ms}), which KIP-848 does not send to the client. After this
 *                           long without a heartbeat answer the member treats its partitions as lost (issue #15). A
 *                           value below the broker's is safe (the member gives up first; it may rejoin needlessly
 *                           after a short outage); a value above it lets the member emit partitions the group already
 *                           gave to another member. &gt; 0
 */
public record ConsumerGroupConfig(String groupId, String groupInstanceId, String clientRack, String remoteAssignor,
                                  int rebalanceTimeoutMs, long retryBackoffMs, long retryBackoffMaxMs,
                                  int requestTimeoutMs, int sessionTimeoutMs) {

    /**
     * Validates.
     *
     * @throws IllegalArgumentException when a value is out of range (see the parameters)
     * @throws NullPointerException     when groupId is null
     */
    public ConsumerGroupConfig {
        Objects.requireNonNull(groupId, "groupId");
        if (groupId.isBlank()) {
            throw new IllegalArgumentException("groupId must not be blank");
        }
        if (groupInstanceId != null && groupInstanceId.isBlank()) {
            throw new IllegalArgumentException("groupInstanceId must not be blank (null for a dynamic member)");
        }
        if (rebalanceTimeoutMs <= 0 || requestTimeoutMs <= 0 || sessionTimeoutMs <= 0) {
            throw new IllegalArgumentException("rebalanceTimeoutMs, requestTimeoutMs and sessionTimeoutMs must be > 0: "
                    + rebalanceTimeoutMs + ", " + requestTimeoutMs + ", " + sessionTimeoutMs);
        }
        if (retryBackoffMs < 0 || retryBackoffMaxMs < 0) {
            throw new IllegalArgumentException("retry backoffs must be >= 0: " + retryBackoffMs + ", " + retryBackoffMaxMs);
        }
    }

    /** The rack id to send, null for none. */
    String rackOrNull() {
        return clientRack == null || clientRack.isEmpty() ? null : clientRack;
    }
}
