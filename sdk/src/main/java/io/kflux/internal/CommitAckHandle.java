package io.kflux.internal;

import io.kflux.TopicPartition;
import io.kflux.commit.CommitManager;
import io.kflux.commit.PartitionAssignment;
import reactor.core.publisher.Mono;

/**
 * Routes {@code ConsumerRecord.acknowledge()/commit()} to the consumer. Commits go through the consumer rather than
 * straight to its commit manager so that they get the same checks as {@code consumer.commit()} (closed consumer,
 * no {@code group.id}) and release the connections they open when no subscription is active.
 *
 * <p>One per assignment of a partition ({@link PartitionAssignment}, made when its emission is positioned), so a
 * record's acknowledgement reaches the assignment it was emitted under, never a later one of the same partition.
 */
final class CommitAckHandle implements AckHandle {
    private final DefaultKafkaFluxConsumer<?, ?> consumer;
    /** Null without a group.id: acknowledgements then have nowhere to go. */
    private final CommitManager commits;
    /** The assignment the records holding this handle were emitted under; null when not known (no group.id). */
    private final PartitionAssignment assignment;

    CommitAckHandle(DefaultKafkaFluxConsumer<?, ?> consumer, PartitionAssignment assignment) {
        this.consumer = consumer;
        this.commits = consumer.commits();
        this.assignment = assignment;
    }

    @Override
    public void acknowledge(TopicPartition tp, long offset) {
        if (commits == null) {
            return;
        }
        if (consumer.isClosed()) {
            commits.ignoredAfterClose(tp, offset);
        } else if (assignment != null) {
            commits.acknowledge(assignment, offset);
        } else {
            commits.acknowledge(tp, offset);
        }
    }

    @Override
    public Mono<Void> commit(TopicPartition tp, long offset) {
        return consumer.commitRecord(assignment, tp, offset);
    }
}
