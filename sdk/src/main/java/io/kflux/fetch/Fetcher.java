package io.kflux.fetch;

import io.kflux.CorruptRecordException;
import io.kflux.KafkaProtocolException;
import io.kflux.OffsetOutOfRangeException;
import io.kflux.TopicPartition;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.Node;
import io.kflux.metadata.PartitionInfo;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.Errors;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.Types;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FetchRequest.FetchPartition;
import io.kflux.protocol.message.FetchRequest.FetchTopic;
import io.kflux.protocol.message.FetchResponse;
import io.kflux.protocol.message.FetchResponse.FetchableTopicResponse;
import io.kflux.protocol.message.FetchResponse.PartitionData;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The fetch loops: one Fetch in flight per leader broker, each listing that broker's fetchable
 * partitions. All methods run on the consumer's event loop.
 *
 * <p>A partition is fetchable when it has a position, is not paused, has fewer than
 * {@value #MAX_PENDING_FETCHES} fetch results waiting to be emitted, and the consumer's buffered
 * bytes are under the bound. So fetching is driven by downstream demand: a slow subscriber leaves
 * results buffered, which stops the fetches of those partitions; as it drains them, fetching
 * resumes. Allowing one result in waiting besides the one being emitted is what pipelines the
 * next Fetch with the emission of the previous one.
 *
 * <p>When a broker's partitions are held back (their results wait to be emitted), its Fetch asks
 * for no wait ({@code maxWaitMs} 0): a long poll on the other, idle partitions would otherwise
 * keep the held-back ones from being fetched for up to {@code fetch.max.wait.ms} once drained.
 * If such a Fetch brings nothing, that broker is left idle until a result is drained or
 * {@code fetch.max.wait.ms} passes, rather than spinning.
 */
public final class Fetcher {
    private static final Logger log = LoggerFactory.getLogger(Fetcher.class);
    static final int MAX_PENDING_FETCHES = 2;
    /** {@link KafkaProtocolException#errorName()} of an undecodable broker response. */
    public static final String MALFORMED_RESPONSE = "MALFORMED_RESPONSE";

    private final FetchConfig config;
    private final NodeConnections connections;
    private final MetadataManager metadata;
    private final OffsetLookup offsets;
    private final OffsetResetStrategy resetStrategy;
    private final long resetDurationMs;
    private final Executor loop;
    private final FetchSink sink;
    private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();
    private final Set<Integer> inFlight = new HashSet<>();
    private final Set<Integer> idle = new HashSet<>();
    private final Set<Disposable> timers = new HashSet<>();
    private long bufferedBytes;
    private volatile long bufferedBytesGauge;
    private boolean metadataRefreshPending;
    private boolean resetInFlight;
    private boolean closed;

    public Fetcher(FetchConfig config, NodeConnections connections, MetadataManager metadata, OffsetLookup offsets,
                   OffsetResetStrategy resetStrategy, long resetDurationMs, Executor loop, FetchSink sink) {
        this.config = config;
        this.connections = connections;
        this.metadata = metadata;
        this.offsets = offsets;
        this.resetStrategy = resetStrategy;
        this.resetDurationMs = resetDurationMs;
        this.loop = loop;
        this.sink = sink;
    }

    /** Bytes fetched and not yet emitted (a gauge: readable from any thread). */
    public long bufferedBytes() {
        return bufferedBytesGauge;
    }

    public Map<TopicPartition, PartitionState> partitions() {
        return partitions;
    }

    public PartitionState partition(TopicPartition tp) {
        return partitions.get(tp);
    }

    /** Adds partitions to fetch; those without a position are reset by {@code auto.offset.reset}. */
    public void assign(Map<TopicPartition, PartitionState> added) {
        partitions.putAll(added);
        plan();
    }

    /** Stops fetching these partitions; their buffered data is dropped by the emitter. */
    public void revoke(Set<TopicPartition> removed) {
        for (TopicPartition tp : removed) {
            PartitionState ps = partitions.remove(tp);
            if (ps != null) {
                ps.revoke();
            }
        }
    }

    /** A result was emitted completely (or dropped): its bytes leave the buffer. */
    public void onConsumed(CompletedFetch fetch) {
        fetch.partition().pendingFetches--;
        bufferedBytes -= fetch.sizeInBytes();
        bufferedBytesGauge = bufferedBytes;
        idle.clear();
        plan();
    }

    public void close() {
        closed = true;
        timers.forEach(Disposable::dispose);
        timers.clear();
    }

    /** Sends a Fetch to every broker that has fetchable partitions and none in flight. */
    public void plan() {
        if (closed) {
            return;
        }
        Cluster cluster = metadata.current();
        Map<Node, List<FetchTarget>> byNode = new LinkedHashMap<>();
        Set<Integer> heldBack = new HashSet<>();
        boolean needMetadata = false;
        boolean needReset = false;
        for (PartitionState ps : partitions.values()) {
            if (ps.isPaused() || ps.fetchInFlight) {
                continue;
            }
            if (!ps.hasPosition()) {
                needReset |= ps.isAwaitingReset();
                continue;
            }
            PartitionInfo info = cluster.partition(ps.topicPartition());
            Node leader = info == null || info.leaderId() < 0 ? null : cluster.node(info.leaderId());
            if (leader == null) {
                needMetadata = true;
                continue;
            }
            if (ps.pendingFetches >= MAX_PENDING_FETCHES || bufferedBytes >= config.maxBufferedBytes()) {
                heldBack.add(leader.id());
                continue;
            }
            byNode.computeIfAbsent(leader, n -> new ArrayList<>())
                    .add(new FetchTarget(ps, ps.fetchOffset, ps.seekEpoch(), info.leaderEpoch()));
        }
        for (Map.Entry<Node, List<FetchTarget>> e : byNode.entrySet()) {
            Node node = e.getKey();
            if (!inFlight.contains(node.id()) && !idle.contains(node.id())) {
                send(node, e.getValue(), heldBack.contains(node.id()), cluster);
            }
        }
        if (needMetadata) {
            refreshMetadata();
        }
        if (needReset) {
            resetPositions();
        }
    }

    private void send(Node node, List<FetchTarget> targets, boolean heldBack, Cluster cluster) {
        Map<String, List<FetchPartition>> byTopic = new LinkedHashMap<>();
        Map<TopicPartition, FetchTarget> byPartition = new HashMap<>();
        for (FetchTarget t : targets) {
            TopicPartition tp = t.partition().topicPartition();
            byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(new FetchPartition(tp.partition(),
                    t.leaderEpoch(), t.fetchOffset(), -1, -1L, config.partitionMaxBytes(), Types.ZERO_UUID,
                    FetchRequest.HIGH_WATERMARK_UNSUPPORTED));
            byPartition.put(tp, t);
            t.partition().fetchInFlight = true;
        }
        List<FetchTopic> topics = new ArrayList<>(byTopic.size());
        byTopic.forEach((topic, ps) -> topics.add(new FetchTopic(topic, topicId(cluster, topic), ps)));
        FetchRequest request = new FetchRequest(null, FetchRequest.CONSUMER_REPLICA_ID, FetchRequest.ReplicaState.CONSUMER,
                heldBack ? 0 : config.maxWaitMs(), config.minBytes(), config.maxBytes(), config.isolationLevel(),
                0, FetchRequest.FINAL_SESSION_EPOCH, topics, List.of(), config.rackId());
        inFlight.add(node.id());
        connections.connection(node.id(), node.host(), node.port())
                .flatMap(c -> c.exchange(request))
                .subscribe(
                        response -> loop.execute(() -> onResponse(node, byPartition, response, heldBack)),
                        error -> loop.execute(() -> onError(node, byPartition, error)));
    }

    private static java.util.UUID topicId(Cluster cluster, String topic) {
        var info = cluster.topic(topic);
        return info == null ? Types.ZERO_UUID : info.topicId();
    }

    private void onResponse(Node node, Map<TopicPartition, FetchTarget> targets, FetchResponse response, boolean heldBack) {
        inFlight.remove(node.id());
        targets.values().forEach(t -> t.partition().fetchInFlight = false);
        if (closed) {
            response.release();
            return;
        }
        Errors topLevel = Errors.forCode(response.errorCode());
        if (!topLevel.isNone()) {
            response.release();
            log.debug("Fetch from {} failed: {}", node, Errors.nameOf(response.errorCode()));
            retryLater();
            return;
        }
        Cluster cluster = metadata.current();
        boolean gotData = false;
        Map<TopicPartition, Long> outOfRange = new HashMap<>();
        for (FetchableTopicResponse topic : response.responses()) {
            String name = topic.topic() != null && !topic.topic().isEmpty() ? topic.topic() : cluster.topicName(topic.topicId());
            for (PartitionData pd : topic.partitions()) {
                ByteBuf records = pd.records();
                FetchTarget target = name == null ? null : targets.get(new TopicPartition(name, pd.partitionIndex()));
                if (target == null || !target.isCurrent()) {
                    release(records);
                    continue;
                }
                PartitionState ps = target.partition();
                Errors error = Errors.forCode(pd.errorCode());
                if (error.isNone()) {
                    gotData |= accept(target, pd, records);
                    continue;
                }
                release(records);
                if (error == Errors.OFFSET_OUT_OF_RANGE) {
                    outOfRange.put(ps.topicPartition(), target.fetchOffset());
                } else if (OffsetLookup.isLeaderError(error)) {
                    log.debug("Fetch of {} from {}: {}; refreshing metadata", ps.topicPartition(), node, error);
                    metadataRefreshPending = true;
                } else if (error == Errors.CORRUPT_MESSAGE) {
                    sink.fail(new CorruptRecordException(ps.topicPartition(), target.fetchOffset(),
                            "the broker reported corrupt data for " + ps.topicPartition(), null));
                } else {
                    sink.fail(new KafkaProtocolException(pd.errorCode(), Errors.nameOf(pd.errorCode()), error.retriable(),
                            "Fetch of " + ps.topicPartition() + " at offset " + target.fetchOffset() + " failed: "
                                    + Errors.nameOf(pd.errorCode())));
                }
            }
        }
        if (!outOfRange.isEmpty()) {
            handleOutOfRange(outOfRange);
        }
        // Idle only while some of this broker's partitions are still held back: they call plan() when
        // drained. If they were drained while this Fetch was out, nothing would wake the broker up
        // for fetch.max.wait.ms: the tail stall seen with reactor-kafka.
        if (!gotData && heldBack && hasHeldBack(node.id(), cluster)) {
            idleFor(node.id());
        }
        if (metadataRefreshPending) {
            metadataRefreshPending = false;
            refreshMetadata();
        }
        plan();
    }

    private boolean hasHeldBack(int nodeId, Cluster cluster) {
        for (PartitionState ps : partitions.values()) {
            if (ps.isPaused() || !ps.hasPosition()) {
                continue;
            }
            PartitionInfo info = cluster.partition(ps.topicPartition());
            if (info != null && info.leaderId() == nodeId
                    && (ps.pendingFetches >= MAX_PENDING_FETCHES || bufferedBytes >= config.maxBufferedBytes())) {
                return true;
            }
        }
        return false;
    }

    private boolean accept(FetchTarget target, PartitionData pd, ByteBuf records) {
        if (records == null || !records.isReadable()) {
            release(records);
            return false;
        }
        long next = BatchScan.nextOffset(records, target.fetchOffset());
        if (next <= target.fetchOffset()) {
            // Only a partial batch: the broker returns at least one whole batch first (KIP-74), so
            // this is a partition behind others in a full response; it is fetched again.
            release(records);
            return false;
        }
        PartitionState ps = target.partition();
        int size = records.readableBytes();
        ps.fetchOffset = next;
        ps.pendingFetches++;
        bufferedBytes += size;
        bufferedBytesGauge = bufferedBytes;
        List<FetchResponse.AbortedTransaction> aborted = config.isolationLevel() == 1 && pd.abortedTransactions() != null
                ? pd.abortedTransactions() : List.of();
        sink.accept(new CompletedFetch(ps, target.seekEpoch(), target.fetchOffset(), next, records, size,
                pd.highWatermark(), aborted));
        return true;
    }

    private static void release(ByteBuf records) {
        if (records != null && records.refCnt() > 0) {
            records.release();
        }
    }

    private void handleOutOfRange(Map<TopicPartition, Long> outOfRange) {
        if (resetStrategy == OffsetResetStrategy.NONE) {
            sink.fail(new OffsetOutOfRangeException(outOfRange));
            return;
        }
        for (TopicPartition tp : outOfRange.keySet()) {
            PartitionState ps = partitions.get(tp);
            log.info("Fetch position {} of {} is out of range; resetting to {}", outOfRange.get(tp), tp, resetStrategy);
            ps.requireReset();
        }
    }

    private void onError(Node node, Map<TopicPartition, FetchTarget> targets, Throwable error) {
        inFlight.remove(node.id());
        targets.values().forEach(t -> t.partition().fetchInFlight = false);
        if (closed) {
            return;
        }
        if (error instanceof MalformedMessageException malformed) {
            // The broker's answer itself could not be decoded (truncated, bad lengths). The network
            // layer has dropped the connection; asking again would most likely get the same bytes,
            // and retrying forever would hide the problem, so the flux ends with a typed error.
            // Positions stay at the last emitted record.
            sink.fail(malformedResponse("Fetch from " + node, malformed));
            return;
        }
        log.debug("Fetch from {} failed: {}", node, error.toString());
        refreshMetadata();
        retryLater();
    }

    /**
     * A response that could not be decoded, as the public error: a {@link KafkaProtocolException}
     * with no broker error code (-1) and the name {@value #MALFORMED_RESPONSE}.
     */
    static KafkaProtocolException malformedResponse(String what, MalformedMessageException cause) {
        return new KafkaProtocolException((short) -1, MALFORMED_RESPONSE, false,
                what + " returned a malformed response: " + cause.getMessage(), cause);
    }

    /** Resets partitions awaiting {@code auto.offset.reset} (ListOffsets); NONE fails the consumer. */
    private void resetPositions() {
        if (resetInFlight) {
            return;
        }
        Map<TopicPartition, Long> timestamps = new HashMap<>();
        Map<TopicPartition, Integer> epochs = new HashMap<>();
        long timestamp = resetStrategy == OffsetResetStrategy.BY_DURATION
                ? System.currentTimeMillis() - resetDurationMs : resetStrategy.listOffsetsTimestamp;
        for (PartitionState ps : partitions.values()) {
            if (ps.isAwaitingReset() && !ps.hasPosition()) {
                timestamps.put(ps.topicPartition(), timestamp);
                epochs.put(ps.topicPartition(), ps.seekEpoch());
            }
        }
        if (timestamps.isEmpty()) {
            return;
        }
        if (resetStrategy == OffsetResetStrategy.NONE) {
            Map<TopicPartition, Long> noPosition = new HashMap<>();
            timestamps.keySet().forEach(tp -> noPosition.put(tp, -1L));
            sink.fail(new OffsetOutOfRangeException(noPosition));
            return;
        }
        resetInFlight = true;
        offsets.list(timestamps, Duration.ofDays(3650))
                .flatMap(this::endWhereNoRecordMatched)
                .subscribe(result -> loop.execute(() -> {
                    resetInFlight = false;
                    result.forEach((tp, listed) -> {
                        PartitionState ps = partitions.get(tp);
                        if (ps != null && ps.isAwaitingReset() && ps.seekEpoch() == epochs.get(tp)) {
                            ps.seek(Math.max(0L, listed.offset()));
                            log.debug("{} reset to offset {}", tp, ps.fetchOffset());
                        }
                    });
                    plan();
                }), error -> loop.execute(() -> {
                    resetInFlight = false;
                    if (error instanceof KafkaProtocolException kpe && !kpe.isRetriable()) {
                        sink.fail(kpe);
                    } else {
                        retryLater();
                    }
                }));
    }

    /** By-duration lookups find no offset when every record is older: those start at the end. */
    private Mono<Map<TopicPartition, ListedOffset>> endWhereNoRecordMatched(Map<TopicPartition, ListedOffset> found) {
        Map<TopicPartition, Long> missing = new HashMap<>();
        found.forEach((tp, listed) -> {
            if (listed.offset() < 0) {
                missing.put(tp, OffsetResetStrategy.LATEST.listOffsetsTimestamp);
            }
        });
        if (missing.isEmpty()) {
            return Mono.just(found);
        }
        return offsets.list(missing, Duration.ofDays(3650)).map(ends -> {
            Map<TopicPartition, ListedOffset> merged = new HashMap<>(found);
            merged.putAll(ends);
            return merged;
        });
    }

    private void refreshMetadata() {
        metadata.refresh().subscribe(c -> loop.execute(this::plan),
                e -> loop.execute(() -> {
                    log.debug("metadata refresh failed: {}", e.toString());
                    retryLater();
                }));
    }

    private void retryLater() {
        schedule(config.retryBackoffMs(), this::plan);
    }

    private void idleFor(int nodeId) {
        idle.add(nodeId);
        schedule(config.maxWaitMs(), () -> {
            idle.remove(nodeId);
            plan();
        });
    }

    private void schedule(long delayMs, Runnable task) {
        Disposable[] holder = new Disposable[1];
        holder[0] = Mono.delay(Duration.ofMillis(delayMs)).subscribe(v -> loop.execute(() -> {
            timers.remove(holder[0]);
            task.run();
        }));
        timers.add(holder[0]);
    }
}
