package io.kflux.examples.db;

import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * Positions newly assigned partitions from the database: each partition continues at the position stored with
 * its last result rows ({@link RebalanceContext#seek}); a partition the database has never seen starts at the
 * beginning of the log. The offsets committed in Kafka are never consulted, so they cannot disagree with the
 * results.
 */
public final class DatabasePositions implements RebalanceListener {

    private final OffsetStore store;

    /** @param store where positions are read from */
    public DatabasePositions(OffsetStore store) {
        this.store = store;
    }

    @Override
    public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
        if (partitions.isEmpty()) {
            return Mono.empty();
        }
        return store.positions(partitions).doOnNext(stored -> {
            List<TopicPartition> fresh = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                Long position = stored.get(tp);
                if (position != null) {
                    ctx.seek(tp, position);
                } else {
                    fresh.add(tp);
                }
            }
            if (!fresh.isEmpty()) {
                ctx.seekToBeginning(fresh);
            }
            System.out.printf("assigned %s; positions from the database: %s%s%n", partitions, stored,
                    fresh.isEmpty() ? "" : ", from the beginning: " + fresh);
        }).then();
    }

    // Nothing to do on revocation: every stored result already has its position next to it in the same
    // transaction. Records emitted but not stored yet are simply read again by the next owner.
}
