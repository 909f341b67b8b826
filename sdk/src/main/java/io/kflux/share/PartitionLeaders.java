package io.kflux.share;

import io.kflux.TopicPartition;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.Node;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The assigned share partitions by leader, worked out again only when the assignment or the metadata snapshot changed
 * (compared by identity: both are replaced, never changed in place). The share fetcher plans per burst of
 * acknowledgements, and rebuilding these maps each time was a visible share of the CPU. Loop-only.
 */
final class PartitionLeaders {
    private Map<Integer, Set<SharePartition>> byLeader = Map.of();
    private Cluster cluster;
    private Map<TopicPartition, UUID> assigned;
    private boolean leaderMissing;

    /** The partitions of {@code assigned} (topic ids by partition) by the id of their leader in {@code cluster}. */
    Map<Integer, Set<SharePartition>> of(Cluster cluster, Map<TopicPartition, UUID> assigned) {
        if (cluster == this.cluster && assigned == this.assigned) {
            return byLeader;
        }
        Map<Integer, Set<SharePartition>> map = new HashMap<>();
        boolean missing = false;
        for (Map.Entry<TopicPartition, UUID> e : assigned.entrySet()) {
            Node leader = cluster.leader(e.getKey());
            if (leader == null) {
                missing = true;
                continue;
            }
            map.computeIfAbsent(leader.id(), k -> new HashSet<>())
                    .add(new SharePartition(e.getValue(), e.getKey().partition()));
        }
        map.replaceAll((id, ps) -> Set.copyOf(ps));
        byLeader = map;
        this.cluster = cluster;
        this.assigned = assigned;
        leaderMissing = missing;
        return map;
    }

    /** Whether an assigned partition had no leader in the snapshot {@link #of} last worked from: metadata is stale. */
    boolean leaderMissing() {
        return leaderMissing;
    }
}
