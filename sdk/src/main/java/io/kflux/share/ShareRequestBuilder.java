package io.kflux.share;

import io.kflux.protocol.message.ShareAcknowledgeRequest;
import io.kflux.protocol.message.ShareFetchRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The ShareFetch and ShareAcknowledge requests to one broker: from its {@link ShareSession}'s next request (the epoch,
 * what it lists and forgets) and the acknowledgements taken for it. Builds requests only: sending, the session's
 * state and the acknowledgements' waiters are the fetcher's.
 */
final class ShareRequestBuilder {
    private final ShareFetchConfig config;
    private final Supplier<String> memberId;

    /** @param memberId the share member's id, read for each request (it is known once the member joined) */
    ShareRequestBuilder(ShareFetchConfig config, Supplier<String> memberId) {
        this.config = config;
        this.memberId = memberId;
    }

    /**
     * A ShareFetch: the partitions {@code r} lists, each with the acknowledgements {@code d} carries for it, and those
     * it forgets; {@code maxRecords} is both {@code MaxRecords} and {@code BatchSize}.
     */
    ShareFetchRequest fetch(ShareSession.Request r, ShareBroker.Drained d, int maxRecords, int maxWaitMs) {
        Map<UUID, List<ShareFetchRequest.FetchPartition>> topics = new LinkedHashMap<>();
        for (SharePartition p : r.listed()) {
            topics.computeIfAbsent(p.topicId(), k -> new ArrayList<>()).add(new ShareFetchRequest.FetchPartition(
                    p.partition(), d.batches().getOrDefault(p, List.of())));
        }
        Map<UUID, List<Integer>> forgotten = new LinkedHashMap<>();
        r.forgotten().forEach(p -> forgotten.computeIfAbsent(p.topicId(), k -> new ArrayList<>()).add(p.partition()));
        List<ShareFetchRequest.FetchTopic> fetchTopics = new ArrayList<>();
        topics.forEach((id, ps) -> fetchTopics.add(new ShareFetchRequest.FetchTopic(id, ps)));
        List<ShareFetchRequest.ForgottenTopic> forgottenTopics = new ArrayList<>();
        forgotten.forEach((id, ps) -> forgottenTopics.add(new ShareFetchRequest.ForgottenTopic(id, ps)));
        return new ShareFetchRequest(config.groupId(), memberId.get(), r.epoch(), maxWaitMs, config.minBytes(),
                config.maxBytes(), maxRecords, maxRecords, ShareFetchRequest.ACQUIRE_BATCH_OPTIMIZED, false,
                fetchTopics, forgottenTopics);
    }

    /** A ShareAcknowledge of {@code r}'s epoch with what {@code d} carries ({@code IsRenewAck} when it renews). */
    ShareAcknowledgeRequest acknowledge(ShareSession.Request r, ShareBroker.Drained d) {
        Map<UUID, List<ShareAcknowledgeRequest.AcknowledgePartition>> topics = new LinkedHashMap<>();
        d.batches().forEach((p, batches) -> topics.computeIfAbsent(p.topicId(), k -> new ArrayList<>())
                .add(new ShareAcknowledgeRequest.AcknowledgePartition(p.partition(), batches)));
        List<ShareAcknowledgeRequest.AcknowledgeTopic> list = new ArrayList<>();
        topics.forEach((id, ps) -> list.add(new ShareAcknowledgeRequest.AcknowledgeTopic(id, ps)));
        return new ShareAcknowledgeRequest(config.groupId(), memberId.get(), r.epoch(), d.renew(), list);
    }
}
