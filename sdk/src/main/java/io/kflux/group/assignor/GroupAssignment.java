package io.kflux.group.assignor;

import java.util.Map;
import java.util.Objects;

/**
 * The leader's result: one {@link Assignment} per member id. Every member of the subscriptions given to
 * {@link PartitionAssignor#assign} must have an entry (an empty assignment when it gets nothing): the leader
 * sends exactly these in SyncGroup.
 *
 * @param byMemberId assignments by member id
 */
public record GroupAssignment(Map<String, Assignment> byMemberId) {

    /**
     * Copies the map (unmodifiable, no nulls).
     *
     * @throws NullPointerException when the map is null or holds a null key or value
     */
    public GroupAssignment {
        byMemberId = Map.copyOf(Objects.requireNonNull(byMemberId, "byMemberId"));
    }
}
