package io.kflux.fetch;

import io.kflux.network.IoLoops;
import io.kflux.metadata.BrokerErrors;
import io.kflux.KafkaProtocolException;
import io.kflux.TopicPartition;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.Node;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.Errors;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.message.ListOffsetsRequest;
import io.kflux.protocol.message.ListOffsetsRequest.ListOffsetsPartition;
import io.kflux.protocol.message.ListOffsetsRequest.ListOffsetsTopic;
import io.kflux.protocol.message.ListOffsetsResponse;
import io.kflux.protocol.message.ListOffsetsResponse.ListOffsetsPartitionResponse;
import io.kflux.protocol.message.ListOffsetsResponse.ListOffsetsTopicResponse;
import io.kflux.util.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * ListOffsets: earliest/latest offsets and offsets by timestamp, each partition asked of its
 * leader. Leader errors refresh metadata and retry after a doubling backoff (KIP-580), bounded by the
 * caller's timeout; other broker errors fail with {@link KafkaProtocolException}.
 */
public final class OffsetLookup {
    private final NodeConnections connections;
    private final MetadataManager metadata;
    private final byte isolationLevel;
    private final Backoff backoff;
    private final int requestTimeoutMs;

    /**
     * @param retryBackoffMs    {@code retry.backoff.ms}: the wait before the first retry
     * @param retryBackoffMaxMs {@code retry.backoff.max.ms}: the longest wait, reached by doubling (KIP-580)
     */
    public OffsetLookup(NodeConnections connections, MetadataManager metadata, byte isolationLevel,
                        long retryBackoffMs, long retryBackoffMaxMs, int requestTimeoutMs) {
        this.connections = connections;
        this.metadata = metadata;
        this.isolationLevel = isolationLevel;
        this.backoff = new Backoff(retryBackoffMs, retryBackoffMaxMs);
        this.requestTimeoutMs = requestTimeoutMs;
    }

    /** A retriable miss: the leader is unknown or moved; metadata is refreshed before the retry. */
    static final class LeaderMissingException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LeaderMissingException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Looks up offsets; {@code timestamps} maps each partition to -2 (earliest), -1 (latest) or a
     * timestamp in ms. Retries leader errors until {@code timeout}, each after a metadata refresh and a wait that
     * doubles from {@code retry.backoff.ms} to {@code retry.backoff.max.ms} with jitter, as the official client's
     * (KIP-580). At a fixed {@code retry.backoff.ms}, each of 1,000 consumers starting while their partitions'
     * leaders are being elected (or while their broker times requests out) asked for metadata and offsets ten times a
     * second, where the official client soon asks once a second: load on the broker when it can least take it.
     */
    public Mono<Map<TopicPartition, ListedOffset>> list(Map<TopicPartition, Long> timestamps, Duration timeout) {
        return Mono.defer(() -> listOnce(timestamps))
                .retryWhen(Retry.from(signals -> signals.concatMap(signal -> {
                    if (signal.failure() instanceof KafkaProtocolException kpe && !kpe.isRetriable()) {
                        return Mono.error(kpe);
                    }
                    int failures = (int) Math.min(Integer.MAX_VALUE, signal.totalRetries() + 1);
                    // a value, not just completion: an empty companion would end the lookup empty instead of retrying
                    return Mono.delay(Duration.ofMillis(backoff.delayMs(failures)), IoLoops.timers())
                            .then(metadata.refresh().then().onErrorResume(e -> Mono.empty()))
                            .thenReturn(failures);
                })))
                .timeout(timeout, Mono.error(() -> new io.kflux.TimeoutException(
                        "ListOffsets for " + timestamps.keySet() + " did not complete within " + timeout.toMillis() + " ms")),
                        IoLoops.timers());
    }

    private Mono<Map<TopicPartition, ListedOffset>> listOnce(Map<TopicPartition, Long> timestamps) {
        Cluster cluster = metadata.current();
        Map<Node, Map<TopicPartition, Long>> byLeader = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> e : timestamps.entrySet()) {
            Node leader = cluster.leader(e.getKey());
            if (leader == null) {
                return Mono.error(new LeaderMissingException("no leader known for " + e.getKey()));
            }
            byLeader.computeIfAbsent(leader, n -> new LinkedHashMap<>()).put(e.getKey(), e.getValue());
        }
        return Flux.fromIterable(byLeader.entrySet())
                .flatMap(e -> ask(e.getKey(), e.getValue(), cluster))
                .collect(HashMap<TopicPartition, ListedOffset>::new, Map::putAll)
                .map(m -> (Map<TopicPartition, ListedOffset>) m);
    }

    private Mono<Map<TopicPartition, ListedOffset>> ask(Node leader, Map<TopicPartition, Long> timestamps, Cluster cluster) {
        Map<String, List<ListOffsetsPartition>> byTopic = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Long> e : timestamps.entrySet()) {
            TopicPartition tp = e.getKey();
            int epoch = cluster.partition(tp).leaderEpoch();
            byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                    .add(new ListOffsetsPartition(tp.partition(), epoch, e.getValue()));
        }
        List<ListOffsetsTopic> topics = new ArrayList<>();
        byTopic.forEach((t, ps) -> topics.add(new ListOffsetsTopic(t, ps)));
        ListOffsetsRequest request = new ListOffsetsRequest(-1, isolationLevel, topics, requestTimeoutMs);
        return connections.connection(leader.id(), leader.host(), leader.port())
                .flatMap(c -> c.exchange(request))
                // an undecodable answer is not retried (see Fetcher#onError): typed, non-retriable error
                .onErrorMap(MalformedMessageException.class, e -> Fetcher.malformedResponse("ListOffsets from " + leader, e))
                .map(this::toOffsets);
    }

    private Map<TopicPartition, ListedOffset> toOffsets(ListOffsetsResponse response) {
        Map<TopicPartition, ListedOffset> out = new HashMap<>();
        for (ListOffsetsTopicResponse t : response.topics()) {
            for (ListOffsetsPartitionResponse p : t.partitions()) {
                TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
                Errors error = Errors.forCode(p.errorCode());
                if (!error.isNone()) {
                    if (isLeaderError(error)) {
                        throw new LeaderMissingException("ListOffsets for " + tp + ": " + Errors.nameOf(p.errorCode()));
                    }
                    throw BrokerErrors.of(p.errorCode(), "ListOffsets for " + tp + " failed: " + Errors.nameOf(p.errorCode()),
                            tp.topic(), null);
                }
                out.put(tp, new ListedOffset(p.offset(), p.timestamp(), p.leaderEpoch()));
            }
        }
        return out;
    }

    /** Errors that mean "ask the current leader": refresh metadata, then retry. */
    public static boolean isLeaderError(Errors error) {
        return switch (error) {
            case NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH,
                 LEADER_NOT_AVAILABLE, REPLICA_NOT_AVAILABLE, KAFKA_STORAGE_ERROR, UNKNOWN_TOPIC_ID,
                 INCONSISTENT_TOPIC_ID, OFFSET_NOT_AVAILABLE, NOT_COORDINATOR -> true;
            default -> false;
        };
    }
}
