package io.kflux.internal;

import io.kflux.network.IoLoops;
import io.kflux.TopicPartition;
import io.kflux.commit.GroupContext;
import io.kflux.commit.MemberIdentity;
import io.kflux.commit.Ownership;
import io.kflux.group.GroupMember;
import io.kflux.network.BrokerConnection;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The group as the commit layer sees it. While a subscription has a group member, commits carry
 * its generation and member id and go to its coordinator; otherwise (manual assignment with a
 * {@code group.id}, or between subscriptions) the consumer commits without membership
 * (generation -1, no member id), as the official consumer does after {@code assign()}.
 */
final class ConsumerGroupContext implements GroupContext {
    private static final Duration STABLE_POLL = Duration.ofMillis(20);

    private final String groupId;
    private final Supplier<ClientResources> resources;
    private final Set<TopicPartition> manualAssignment;
    private volatile GroupMember member;

    /** @param resources the consumer's current connections (created on demand) */
    ConsumerGroupContext(String groupId, Supplier<ClientResources> resources, Collection<TopicPartition> manualAssignment) {
        this.groupId = groupId;
        this.resources = resources;
        this.manualAssignment = Set.copyOf(manualAssignment);
    }

    void member(GroupMember member) {
        this.member = member;
    }

    void memberGone(GroupMember gone) {
        if (member == gone) {
            member = null;
        }
    }

    @Override
    public String groupId() {
        return groupId;
    }

    @Override
    public Mono<BrokerConnection> coordinator() {
        // One coordinator manager serves the member and commits, with or without membership: the member learns of
        // a loss a commit found through it.
        return Mono.defer(() -> resources.get().coordinator().connection());
    }

    @Override
    public Mono<Map<String, UUID>> topicIds(Collection<String> topics, boolean fresh) {
        return resources.get().metadata().topicIds(topics, fresh);
    }

    @Override
    public void coordinatorUnavailable() {
        resources.get().coordinator().markUnavailable("reported by a coordinator request of the commit layer");
    }

    @Override
    public MemberIdentity identity() {
        GroupMember m = member;
        return m == null ? MemberIdentity.NONE
                : new MemberIdentity(m.generationId(), m.memberId(), m.groupInstanceId().orElse(null));
    }

    @Override
    public MemberIdentity offsetFetchIdentity() {
        GroupMember m = member;
        return m != null && m.fetchesOffsetsAsMember() && m.generationId() > 0
                ? new MemberIdentity(m.generationId(), m.memberId(), m.groupInstanceId().orElse(null))
                : MemberIdentity.NONE;
    }

    @Override
    public Mono<Void> awaitStable() {
        GroupMember m = member;
        if (m == null || m.isStable()) {
            return Mono.empty();
        }
        // The member's state changes on the consumer's loop; polling it keeps this layer free of callbacks.
        return Flux.interval(STABLE_POLL, IoLoops.timers()).filter(t -> m.isStable() || member != m).next().then();
    }

    @Override
    public boolean groupManaged() {
        return member != null;
    }

    @Override
    public String notOwnedReason() {
        return ownership().notOwnedReason().get();
    }

    @Override
    public Set<TopicPartition> owned() {
        return ownership().owned();
    }

    /** One reading of {@link #member}: it is set and cleared by the subscription while commits run elsewhere. */
    @Override
    public Ownership ownership() {
        GroupMember m = member;
        if (m == null) {
            return Ownership.unmanaged(manualAssignment);
        }
        return new Ownership(true, m.assignment(), () -> notOwnedReason(m));
    }

    private static String notOwnedReason(GroupMember m) {
        String s = m.stateName();
        if (!m.everJoined()) {
            return "this consumer never joined the group (member state " + s + "), so it owns no partitions; "
                    + "partitions can be committed by their owner once the group assigned them";
        }
        if (m.isOut()) {
            return "this consumer left the group (member state " + s + ") and owns no partitions any more";
        }
        return "this member does not own them in generation " + m.generationId() + " (it owns " + m.assignment()
                + "): the group rebalanced and they moved to other members, or they were never assigned to it";
    }
}
