package io.kflux.reactor.kafka.receiver;

import io.kflux.OffsetAndMetadata;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Schedulers;

/**
 * reactor-kafka's blocking assignment and revocation listeners as a kflux {@link RebalanceListener}. They run on
 * {@code boundedElastic}: a listener may block (its {@link ReceiverPartition} lookups do), and kflux's rebalance
 * waits for the returned {@code Mono}, bounded by {@code max.poll.interval.ms}.
 */
final class ListenerBridge implements RebalanceListener {

    private static final Logger log = LoggerFactory.getLogger(ListenerBridge.class);

    private final List<Consumer<Collection<ReceiverPartition>>> onAssign;
    private final List<Consumer<Collection<ReceiverPartition>>> onRevoke;
    private final ReceiverSession<?, ?> session;

    ListenerBridge(List<Consumer<Collection<ReceiverPartition>>> onAssign,
                   List<Consumer<Collection<ReceiverPartition>>> onRevoke, ReceiverSession<?, ?> session) {
        this.onAssign = onAssign;
        this.onRevoke = onRevoke;
        this.session = session;
    }

    @Override
    public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
        return session.takeBackCommitAhead(partitions) // forgets what an earlier ownership left (a seek may follow)
                .then(Mono.fromRunnable(() -> session.reopenCommitAhead(partitions)))
                .then(call(onAssign, partitions, PartitionHandle.Seeker.of(ctx)));
    }

    /** At most once: commits made ahead of delivery are taken back while the partitions are still owned. */
    @Override
    public Mono<Void> onPartitionsRevoked(Collection<TopicPartition> partitions, RebalanceContext ctx) {
        return session.takeBackCommitAhead(partitions)
                .flatMap(undo -> undo.isEmpty() ? Mono.<Void>empty() : ctx.commit(undo))
                .onErrorResume(e -> {
            log.warn("taking back the at-most-once commit-ahead of {} failed: {}", partitions, e.toString());
            return Mono.empty();
        }).then(call(onRevoke, partitions, PartitionHandle.Seeker.of(ctx)));
    }

    /** Lost partitions cannot be committed: only the listeners run. */
    @Override
    public Mono<Void> onPartitionsLost(Collection<TopicPartition> partitions, RebalanceContext ctx) {
        return session.takeBackCommitAhead(partitions).then(call(onRevoke, partitions, PartitionHandle.Seeker.of(ctx)));
    }

    /** Before a manual assignment starts: seeks go to the consumer, which applies them when fetching starts. */
    Mono<Void> assignedManually(Collection<TopicPartition> partitions) {
        return call(onAssign, partitions, PartitionHandle.Seeker.of(session.consumer()));
    }

    /**
     * When the flux of a manual assignment ends: reactor-kafka calls the revoke listeners then, before its final
     * commit, and applications rely on it to flush or log per partition. Seeks then go to the consumer, which has
     * stopped fetching, so they only matter to what a later commit of the application covers.
     */
    Mono<Void> revokedManually(Collection<TopicPartition> partitions) {
        return call(onRevoke, partitions, PartitionHandle.Seeker.of(session.consumer()));
    }

    private Mono<Void> call(List<Consumer<Collection<ReceiverPartition>>> listeners,
                            Collection<TopicPartition> partitions, PartitionHandle.Seeker seeker) {
        List<TopicPartition> moved = List.copyOf(partitions);
        if (listeners.isEmpty()) {
            return Mono.empty();
        }
        return Mono.<Void>fromRunnable(() -> {
            List<ReceiverPartition> handles = new ArrayList<>(moved.size());
            moved.forEach(tp -> handles.add(new PartitionHandle(tp, seeker, session)));
            List<ReceiverPartition> view = List.copyOf(handles);
            listeners.forEach(l -> l.accept(view));
        }).subscribeOn(Schedulers.boundedElastic());
    }
}
