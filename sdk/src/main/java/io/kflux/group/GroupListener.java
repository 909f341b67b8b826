package io.kflux.group;

import io.kflux.TopicPartition;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * What the group member tells the consumer, always on the consumer's event loop. The member
 * waits for each returned {@code Mono} before it goes on with the rebalance (bounded by
 * {@code max.poll.interval.ms}, the rebalance timeout), so the consumer can finish emitting,
 * commit and run the application's listener first.
 */
public interface GroupListener {

    /**
     * Ownership of {@code partitions} ends now (eager: every owned partition before a rejoin;
     * cooperative: only the partitions that move, KIP-429). The member still owns them until the
     * returned Mono completes, so commits made meanwhile are accepted.
     */
    Mono<Void> onPartitionsRevoked(Set<TopicPartition> partitions);

    /**
     * A SyncGroup gave the member {@code added} (new to it) as part of its whole {@code assignment}.
     * Fetching of {@code added} may start once the returned Mono completes.
     */
    Mono<Void> onPartitionsAssigned(Set<TopicPartition> added, Set<TopicPartition> assignment);

    /**
     * Ownership of {@code partitions} was already lost (session expired, fenced, unknown member):
     * committing them is no longer possible.
     */
    Mono<Void> onPartitionsLost(Set<TopicPartition> partitions);

    /**
     * Whether the consumer must hold back every fetched record (true) or may emit again (false). The member says
     * true when its coordinator has not confirmed the session for {@code session.timeout.ms}: the session may be over
     * and the partitions given to others, or kept by a coordinator that moved. It says false once a coordinator
     * confirms a session; until then nothing fetched may be emitted (issue #15). Partitions stay assigned and
     * fetched meanwhile (bounded by the buffer); a loss comes through {@link #onPartitionsLost}.
     */
    default void onSessionInDoubt(boolean inDoubt) {
    }

    /** The member cannot go on (e.g. FENCED_INSTANCE_ID, group authorization failure): the consumer ends with it. */
    void onFatalError(Throwable error);
}
