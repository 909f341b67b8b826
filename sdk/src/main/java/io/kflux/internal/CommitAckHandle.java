package io.kflux.internal;

import io.kflux.TopicPartition;
import io.kflux.commit.CommitManager;
import reactor.core.publisher.Mono;

/**
 * Routes {@code ConsumerRecord.acknowledge()/commit()} to the consumer. Commits go through the consumer rather than
 * straight to its commit manager so that they get the same checks as {@code consumer.commit()} (closed consumer,
 * no {@code group.id}) and release the connections they open when no subscription is active.
 */
final class CommitAckHandle implements AckHandle {
    private final DefaultKafkaFluxConsumer<?, ?> consumer;
    /** Null without a group.id: acknowledgements then have nowhere to go. */
    private final CommitManager commits;

    CommitAckHandle(DefaultKafkaFluxConsumer<?, ?> consumer) {
        this.consumer = consumer;
        this.commits = consumer.commits();
    }

    @Override
    public void acknowledge(TopicPartition tp, long offset) {
        if (commits == null) {
            return;
        }
        if (consumer.isClosed()) {
            commits.ignoredAfterClose(tp, offset);
        } else {
            commits.acknowledge(tp, offset);
        }
    }

    @Override
    public Mono<Void> commit(TopicPartition tp, long offset) {
        return consumer.commitRecord(tp, offset);
    }
}
