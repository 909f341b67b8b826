package io.kflux.internal.processing;

import io.kflux.TopicPartition;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * What the consumer's rebalance handling tells the subscription about partitions it gives up, after they stopped
 * being emitted and before their acknowledged offsets are committed, and what {@code close()} tells it before its
 * final commit. {@code process()} drops their records not started and lets those in flight finish, so their
 * acknowledgements are in that commit. Also what the subscription asks of the consumer's commits
 * ({@link #commitAfterRecords()}).
 */
public interface RevocationHook {
    /** A plain {@code receive()}: nothing to do. */
    RevocationHook NONE = new RevocationHook() {
        @Override
        public Mono<Void> revoked(Set<TopicPartition> partitions) {
            return Mono.empty();
        }

        @Override
        public void lost(Set<TopicPartition> partitions) {
        }

        @Override
        public Mono<Void> closing() {
            return Mono.empty();
        }

        @Override
        public int commitAfterRecords() {
            return 0;
        }
    };

    /**
     * {@code partitions} are being revoked; the rebalance goes on once the returned {@code Mono} completed.
     *
     * @return completes when the subscription's work on them is finished or given up (never errors)
     */
    Mono<Void> revoked(Set<TopicPartition> partitions);

    /** {@code partitions} were lost: nothing of them can be committed any more. */
    void lost(Set<TopicPartition> partitions);

    /**
     * The consumer is closing: nothing more is to start; {@code close()} makes its final commit once the returned
     * {@code Mono} completed.
     *
     * @return completes when the work in flight is finished or given up (never errors)
     */
    Mono<Void> closing();

    /**
     * With automatic commits, acknowledgements after which a commit also starts ahead of the commit interval
     * ({@code ProcessingOptions.commitAfterRecords}); 0 for none.
     */
    int commitAfterRecords();
}
