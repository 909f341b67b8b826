package io.kflux;

import java.util.Collection;
import reactor.core.publisher.Mono;

/**
 * Reacts to partitions moving to or from this consumer during a group rebalance. Each callback returns a
 * {@code Mono}; the rebalance waits for it, bounded by {@code max.poll.interval.ms} (after which the consumer
 * proceeds as if the {@code Mono} had failed, logging the timeout). Callbacks run one at a time, never
 * concurrently with each other. An error from a callback is logged and the rebalance proceeds, so one bad
 * callback cannot wedge the group.
 *
 * <p>With the eager protocol ({@code range}, {@code roundrobin}, {@code sticky}) every owned partition is revoked
 * before a rejoin; with {@code cooperative-sticky} (KIP-429) only the partitions that move are.
 */
public interface RebalanceListener {

    /**
     * Called after the new assignment is known and before the first record of these partitions is emitted.
     * {@link RebalanceContext#seek ctx.seek(tp, offset)} here positions partitions from an external store;
     * the offsets committed in Kafka are then not used for them.
     *
     * @param partitions the newly assigned partitions (may be empty with the cooperative protocol)
     * @param ctx        the rebalance context (seek, commit, assignment, generation)
     * @return completes when done; the partitions are not fetched until it does
     */
    default Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
        return Mono.empty();
    }

    /**
     * Called before these partitions are given up, after every in-flight record of them was emitted, while the
     * consumer still owns them. Their acknowledged positions were committed just before this callback (whatever
     * {@code enable.auto.commit} says); {@link RebalanceContext#commit() ctx.commit()} commits what was acknowledged
     * since.
     *
     * @param partitions the partitions being revoked
     * @param ctx        the rebalance context
     * @return completes when the partitions may be released
     */
    default Mono<Void> onPartitionsRevoked(Collection<TopicPartition> partitions, RebalanceContext ctx) {
        return Mono.empty();
    }

    /**
     * Called when ownership of these partitions is already gone (session expired, member fenced, or the
     * coordinator forgot the member): committing is not possible, {@code ctx.commit()} fails with
     * {@link CommitFailedException}. By default delegates to {@link #onPartitionsRevoked}, as the official client does.
     *
     * @param partitions the partitions lost
     * @param ctx        the rebalance context
     * @return completes when local state for those partitions was dropped
     */
    default Mono<Void> onPartitionsLost(Collection<TopicPartition> partitions, RebalanceContext ctx) {
        return onPartitionsRevoked(partitions, ctx);
    }
}
