package io.kflux.group;

import io.kflux.TopicPartition;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;

/**
 * A KIP-848 member's target assignment as the last ConsumerGroupHeartbeat answer named it (by topic id), and the
 * one decision reconciliation makes from it: what to do to own exactly it. Pure: no I/O, no clock, no state of the
 * member's; {@link ConsumerGroupMember} applies the step (listener calls, acknowledgement, metadata refreshes).
 *
 * @param partitions the target, by topic id and partition
 */
record TargetAssignment(Set<IdPartition> partitions) {

    /** A partition of the target, by topic id. */
    record IdPartition(UUID topicId, int partition) {
    }

    /** What reconciliation does next. */
    sealed interface Step permits AwaitTopicIds, Settled, Move {
    }

    /** Some topic ids are not in metadata yet (e.g. just created): refresh until they are, then decide again. */
    record AwaitTopicIds(Set<UUID> unknown) implements Step {
    }

    /** The member owns exactly the target. */
    record Settled() implements Step {
    }

    /**
     * Revoke {@code revoked} first, then take {@code added} (KIP-848: no partition is taken before those given up are
     * released).
     *
     * @param ids the topic id of every added partition, for the acknowledging heartbeat
     */
    record Move(Set<TopicPartition> revoked, Set<TopicPartition> added, Map<TopicPartition, UUID> ids) implements Step {
    }

    TargetAssignment {
        partitions = Set.copyOf(partitions);
    }

    /**
     * The target a heartbeat answer names: ConsumerGroupHeartbeat (KIP-848) and ShareGroupHeartbeat (KIP-932) carry
     * the same assignment structure, topic ids with partition numbers.
     */
    static TargetAssignment of(ConsumerGroupHeartbeatResponse.Assignment assignment) {
        Set<IdPartition> next = new HashSet<>();
        assignment.topicPartitions().forEach(t -> t.partitions().forEach(p -> next.add(new IdPartition(t.topicId(), p))));
        return new TargetAssignment(next);
    }

    /**
     * @param owned      what the member owns now
     * @param topicNames a topic id's name in the current metadata, or null when metadata does not know it
     */
    Step against(Set<TopicPartition> owned, Function<UUID, String> topicNames) {
        Map<TopicPartition, UUID> resolved = new HashMap<>();
        Set<UUID> unknown = new TreeSet<>();
        for (IdPartition ip : partitions) {
            String name = topicNames.apply(ip.topicId());
            if (name == null) {
                unknown.add(ip.topicId());
            } else {
                resolved.put(new TopicPartition(name, ip.partition()), ip.topicId());
            }
        }
        if (!unknown.isEmpty()) {
            return new AwaitTopicIds(Set.copyOf(unknown));
        }
        Set<TopicPartition> revoked = new HashSet<>(owned);
        revoked.removeAll(resolved.keySet());
        Set<TopicPartition> added = new HashSet<>(resolved.keySet());
        added.removeAll(owned);
        if (revoked.isEmpty() && added.isEmpty()) {
            return new Settled();
        }
        Map<TopicPartition, UUID> ids = new HashMap<>();
        added.forEach(tp -> ids.put(tp, resolved.get(tp)));
        return new Move(Set.copyOf(revoked), Set.copyOf(added), Map.copyOf(ids));
    }
}
