package io.kflux.network;

import java.util.Objects;

/**
 * The broker a connection is meant to reach: node {@code nodeId} of cluster {@code clusterId}, as the last Metadata
 * answer named them. Sent in ApiVersions v5 so that a broker that is not that node of that cluster (an address reused
 * by another broker or cluster) refuses the connection with REBOOTSTRAP_REQUIRED (KIP-1242, Kafka 4.4).
 *
 * @param clusterId the cluster id from Metadata; not null
 * @param nodeId    the broker's own node id (never the coordinator connection's {@code Integer.MAX_VALUE - id}), >= 0
 */
public record BrokerIdentity(String clusterId, int nodeId) {
    public BrokerIdentity {
        Objects.requireNonNull(clusterId, "clusterId");
        if (nodeId < 0) {
            throw new IllegalArgumentException("nodeId must be >= 0, was " + nodeId);
        }
    }

    @Override
    public String toString() {
        return "node " + nodeId + " of cluster " + clusterId;
    }
}
