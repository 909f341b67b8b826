package io.kflux.internal;

import io.kflux.TopicPartition;
import io.kflux.commit.CommitManager;
import reactor.core.publisher.Mono;

/** Routes {@code ConsumerRecord.acknowledge()/commit()} to the consumer's commit manager. */
final class CommitAckHandle implements AckHandle {
    private final CommitManager commits;

    CommitAckHandle(CommitManager commits) {
        this.commits = commits;
    }

    @Override
    public void acknowledge(TopicPartition tp, long offset) {
        commits.acknowledge(tp, offset);
    }

    @Override
    public Mono<Void> commit(TopicPartition tp, long offset) {
        return commits.commitRecord(tp, offset);
    }
}
