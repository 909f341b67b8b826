package io.kflux.share;

import java.util.Objects;
import java.util.UUID;

/**
 * A share partition as ShareFetch and ShareAcknowledge name it: topic id and partition index (topics by id only).
 *
 * @param topicId   the topic's id, never the zero UUID (the broker answers UNKNOWN_TOPIC_ID to it)
 * @param partition the partition index, from 0
 */
public record SharePartition(UUID topicId, int partition) {
    public SharePartition {
        Objects.requireNonNull(topicId, "topicId");
        if (partition < 0) {
            throw new IllegalArgumentException("partition " + partition + " is negative");
        }
    }
}
