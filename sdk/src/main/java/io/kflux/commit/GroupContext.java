package io.kflux.commit;

import io.kflux.TopicPartition;
import io.kflux.network.BrokerConnection;
import io.kflux.protocol.ApiRequest;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import reactor.core.publisher.Mono;

/**
 * What committing needs of the group: where the coordinator is, who this member is, and what it
 * owns. With manual assignment and a {@code group.id} there is no membership: generation -1 and
 * an empty member id, which the coordinator accepts for a group with no active members.
 */
public interface GroupContext {
    String groupId();

    /** The coordinator's connection; fails (retriably) while it is unknown or being rediscovered. */
    Mono<BrokerConnection> coordinator();

    /**
     * Sends {@code request} to the coordinator. Committing goes through here rather than {@link #coordinator()}
     * so that the commit error handling can be tested against a scripted coordinator.
     */
    default <R> Mono<R> exchange(ApiRequest<R> request) {
        return coordinator().flatMap(c -> c.exchange(request));
    }

    /**
     * The topic ids of {@code topics} (name -> id; a topic with no known id is absent), for OffsetCommit and
     * OffsetFetch v10+, which name topics by id (Kafka 4.2+). With {@code fresh} a broker is asked even when the
     * consumer's metadata knows them: the coordinator answered UNKNOWN_TOPIC_ID.
     */
    Mono<Map<String, UUID>> topicIds(Collection<String> topics, boolean fresh);

    /** The coordinator answered NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE or went away: find it again. */
    void coordinatorUnavailable();

    MemberIdentity identity();

    /**
     * What OffsetFetch (v9+) carries as member id and member epoch: under {@code group.protocol=consumer} (KIP-848)
     * the member's id and epoch while it has one, so the coordinator checks them as it does for commits
     * (STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID); {@link MemberIdentity#NONE} otherwise (classic members and reads
     * without membership send none).
     */
    default MemberIdentity offsetFetchIdentity() {
        return MemberIdentity.NONE;
    }

    /** Completes once a rebalance under way is over (the member is stable again); at once without membership. */
    Mono<Void> awaitStable();

    /** The partitions this member owns now: commits of other partitions fail with CommitFailedException. */
    Set<TopicPartition> owned();

    /**
     * Why partitions outside {@link #owned()} cannot be committed now, for the CommitFailedException message: a
     * member that never joined or already left owns nothing, which is not the same as having lost partitions to a
     * rebalance.
     */
    default String notOwnedReason() {
        return "this member does not own them (the group rebalanced and they moved to other members, or they were"
                + " never assigned to it)";
    }

    /**
     * True while a group member manages the assignment (subscription): only then are commits of partitions
     * outside {@link #owned()} refused. With a manual assignment any partition may be committed.
     */
    boolean groupManaged();

    /**
     * {@link #groupManaged()}, {@link #owned()} and {@link #notOwnedReason()} from one reading of the member, so the
     * three agree even while the member comes or goes. Commit decisions use this, never the three one by one.
     */
    default Ownership ownership() {
        return new Ownership(groupManaged(), owned(), this::notOwnedReason);
    }
}
