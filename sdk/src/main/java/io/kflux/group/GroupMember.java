package io.kflux.group;

import io.kflux.TopicPartition;
import io.kflux.util.ClientMetrics;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import reactor.core.publisher.Mono;

/**
 * A consumer's membership in its group, whichever protocol it speaks: {@link ClassicGroupMember} (JoinGroup /
 * SyncGroup, {@code group.protocol=classic}) or {@link ConsumerGroupMember} (ConsumerGroupHeartbeat, KIP-848,
 * {@code group.protocol=consumer}). The consumer drives it through this interface and hears of ownership changes
 * through {@link GroupListener}; commits reach the coordinator through the shared {@link CoordinatorManager}.
 * Every method may be called from any thread; the work runs on the consumer's event loop.
 */
public interface GroupMember {

    /** Subscribes to exactly these topics; later calls change the subscription (the group rebalances). */
    void subscribe(Collection<String> topics);

    /** Subscribes to every topic whose whole name matches {@code pattern}. */
    void subscribe(Pattern pattern);

    /** Where the member reports its protocol's figures (heartbeats; classic: joins, syncs, rebalances); call before {@link #start()}. */
    void metrics(ClientMetrics clientMetrics);

    /** Joins the group; idempotent; does nothing after {@link #close()}, a fatal error or {@link #leave}. */
    void start();

    /**
     * Leaves the group after telling the listener what is revoked (or lost); never fails.
     *
     * @param reason why (sent where the protocol has room for it)
     * @return completes when the broker answered or the request failed, at once when there is nothing to leave
     */
    Mono<Void> leave(String reason);

    /** {@code max.poll.interval.ms} expired without downstream demand: leave until {@link #pollResumed()}. */
    void pollTimeoutExpired();

    /** Demand returned after {@link #pollTimeoutExpired()}: join again. */
    void pollResumed();

    /** Stops every loop without leaving and without listener calls; idempotent. */
    void close();

    /** True while the member is a settled member of the group (no rebalance step of its own under way). */
    boolean isStable();

    /** True once the member has left, was closed, failed or is out after a poll timeout: it owns nothing. */
    boolean isOut();

    /** The member's state for messages and logs (the protocol's own state names). */
    String stateName();

    /**
     * What OffsetCommit carries as the generation: the classic generation id, or the member epoch (KIP-848); -1
     * when the member has none.
     */
    int generationId();

    /** The member id, {@code ""} when none. */
    String memberId();

    /** {@code group.instance.id} (static membership); empty for a dynamic member. */
    Optional<String> groupInstanceId();

    /** True once the member joined, whatever happened since. */
    boolean everJoined();

    /**
     * True when OffsetFetch should carry this member's id and epoch (KIP-848's members: the coordinator checks them as
     * for OffsetCommit); false for classic members, whose coordinator expects none there.
     */
    default boolean fetchesOffsetsAsMember() {
        return false;
    }

    /** The partitions the member owns now (an immutable snapshot). */
    Set<TopicPartition> assignment();
}
