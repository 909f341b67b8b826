package io.kflux.internal;

import io.kflux.TopicPartition;
import io.kflux.commit.GroupContext;
import io.kflux.commit.MemberIdentity;
import io.kflux.network.BrokerConnection;
import java.util.Set;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * The group as seen by a consumer with manual assignment and a {@code group.id}: it commits and
 * reads offsets through the coordinator without joining (generation -1, no member id), as the
 * official consumer does after {@code assign()}.
 */
final class StandaloneGroup implements GroupContext {
    private final String groupId;
    private final Supplier<ClientResources> resources;
    private volatile Set<TopicPartition> owned;

    /** @param resources the consumer's current connections (created on demand) */
    StandaloneGroup(String groupId, Supplier<ClientResources> resources, java.util.Collection<TopicPartition> assignment) {
        this.groupId = groupId;
        this.resources = resources;
        this.owned = Set.copyOf(assignment);
    }

    void owned(Set<TopicPartition> partitions) {
        this.owned = Set.copyOf(partitions);
    }

    @Override
    public String groupId() {
        return groupId;
    }

    @Override
    public Mono<BrokerConnection> coordinator() {
        return resources.get().coordinator().coordinator();
    }

    @Override
    public void coordinatorUnavailable() {
        resources.get().coordinator().invalidate();
    }

    @Override
    public MemberIdentity identity() {
        return MemberIdentity.NONE;
    }

    @Override
    public Mono<Void> awaitStable() {
        return Mono.empty();
    }

    @Override
    public Set<TopicPartition> owned() {
        return owned;
    }
}
