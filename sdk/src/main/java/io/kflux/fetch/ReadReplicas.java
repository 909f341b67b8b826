package io.kflux.fetch;

import io.kflux.metadata.Cluster;
import io.kflux.metadata.Node;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetch from the closest replica (KIP-392): which node a partition is fetched from, the preferred read replica a
 * leader names (with {@code client.rack} set) and falling back to the leader, as the official client does. The
 * replica and its lease are fields of {@link PartitionState}; times are on the fetcher's clock, in ns. Loop only.
 */
final class ReadReplicas {
    /** The fetcher's log category, kept for these lines (log configurations name it). */
    private static final Logger log = LoggerFactory.getLogger(Fetcher.class);

    private ReadReplicas() {
    }

    /**
     * Where {@code ps} is fetched from: the preferred read replica the leader named while its lease runs and metadata
     * knows the node, else the leader (an ended lease or unknown node is dropped). Positions are still reset and
     * validated through the leader.
     */
    static Node source(PartitionState ps, Cluster cluster, Node leader, long nowNanos) {
        int preferred = ps.preferredReadReplica();
        if (preferred < 0 || preferred == leader.id()) {
            return leader;
        }
        Node node = cluster.node(preferred);
        if (node == null || nowNanos - ps.preferredReadReplicaExpiresNanos() >= 0) {
            log.debug("{}: preferred read replica {} {}; fetching from the leader (node {})", ps.topicPartition(),
                    preferred, node == null ? "is not in metadata" : "lease ended", leader.id());
            ps.preferReadReplica(-1, 0L);
            return leader;
        }
        return node;
    }

    /**
     * A leader's answer naming {@code replica} to read from (-1 or the leader itself: none): fetched from there for
     * {@code leaseNanos} ({@code metadata.max.age.ms}) from {@code nowNanos}.
     */
    static void prefer(PartitionState ps, Node from, int replica, long nowNanos, long leaseNanos, String rackId) {
        if (replica < 0 || replica == from.id()) {
            return;
        }
        if (replica != ps.preferredReadReplica()) {
            log.debug("{}: node {} names node {} as the preferred read replica (client.rack={})", ps.topicPartition(),
                    from.id(), replica, rackId);
        }
        ps.preferReadReplica(replica, nowNanos + leaseNanos);
    }

    /** True when {@code ps} is fetched from {@code from} as its preferred read replica (not its leader). */
    static boolean isFetchedFrom(PartitionState ps, Node from) {
        return ps.preferredReadReplica() == from.id();
    }

    /**
     * An error while fetching from a follower: back to the leader, which decides again (as the official client).
     * Returns whether {@code ps} was fetched from {@code from} as its preferred read replica.
     */
    static boolean leave(PartitionState ps, Node from, String why) {
        if (!isFetchedFrom(ps, from)) {
            return false;
        }
        log.info("{}: fetching from preferred read replica {} failed ({}); fetching from the leader", ps.topicPartition(),
                from.id(), why);
        ps.preferReadReplica(-1, 0L);
        return true;
    }
}
