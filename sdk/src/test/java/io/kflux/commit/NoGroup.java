package io.kflux.commit;

import io.kflux.TopicPartition;

/** A group context for commit tests that send nothing (a subclass may answer {@link #exchange}). */
class NoGroup implements GroupContext {
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

    /**
     * The OffsetCommit answer a broker gives at the version {@code commit} goes out with (topics by id from v10 on),
     * each partition answered with {@code answer}'s error.
     */
    static io.kflux.protocol.message.OffsetCommitResponse answer(io.kflux.protocol.message.OffsetCommitRequest commit,
            java.util.function.Function<TopicPartition, io.kflux.protocol.Errors> answer) {
        boolean byId = commit.maxVersion() >= io.kflux.protocol.message.OffsetCommitRequest.FIRST_TOPIC_ID_VERSION;
        return new io.kflux.protocol.message.OffsetCommitResponse(0, commit.topics().stream()
                .map(t -> new io.kflux.protocol.message.OffsetCommitResponse.OffsetCommitResponseTopic(
                        byId ? "" : t.name(), byId ? t.topicId() : io.kflux.protocol.Types.ZERO_UUID,
                        t.partitions().stream().map(p -> new io.kflux.protocol.message.OffsetCommitResponse
                                .OffsetCommitResponsePartition(p.partitionIndex(),
                                answer.apply(new TopicPartition(t.name(), p.partitionIndex())).code())).toList()))
                .toList());
    }
}
