package io.kflux.commit;

import io.kflux.TopicPartition;

/** A group context for commit tests that send nothing. */
final class NoGroup implements GroupContext {
    @Override
    public String groupId() {
        return "g";
    }

    @Override
    public reactor.core.publisher.Mono<io.kflux.network.BrokerConnection> coordinator() {
        return reactor.core.publisher.Mono.error(new AssertionError("no commits in this test"));
    }

    @Override
    public reactor.core.publisher.Mono<java.util.Map<String, java.util.UUID>> topicIds(
            java.util.Collection<String> topics, boolean fresh) {
        return reactor.core.publisher.Mono.error(new AssertionError("no commits in this test"));
    }

    @Override
    public void coordinatorUnavailable() {
    }

    @Override
    public MemberIdentity identity() {
        return MemberIdentity.NONE;
    }

    @Override
    public reactor.core.publisher.Mono<Void> awaitStable() {
        return reactor.core.publisher.Mono.empty();
    }

    @Override
    public java.util.Set<TopicPartition> owned() {
        return java.util.Set.of();
    }

    @Override
    public boolean groupManaged() {
        return false;
    }
}
