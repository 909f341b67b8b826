package io.kflux.group.assignor;

import io.kflux.TopicPartition;
import java.util.List;
import java.util.Objects;

/**
 * What the leader hands one member: its partitions and optional assignor-specific bytes (the consumer
 * protocol's Assignment, see {@link io.kflux.protocol.consumer.ConsumerProtocolAssignment}).
 *
 * <p>{@code userData} is compared by identity in {@code equals}, as records do with arrays.
 *
 * @param partitions the member's whole assignment (not only what is new to it)
 * @param userData   assignor-specific bytes, {@code null} when none
 */
public record Assignment(List<TopicPartition> partitions, byte[] userData) {

    /**
     * Copies the list (unmodifiable, no nulls).
     *
     * @throws NullPointerException when {@code partitions} is null or holds a null
     */
    public Assignment {
        partitions = List.copyOf(Objects.requireNonNull(partitions, "partitions"));
    }

    /**
     * An assignment without user data.
     *
     * @param partitions the member's partitions
     */
    public Assignment(List<TopicPartition> partitions) {
        this(partitions, null);
    }
}
