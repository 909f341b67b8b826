package io.kflux.fetch;

import io.kflux.CorruptRecordException;
import io.kflux.KafkaProtocolException;
import io.kflux.LogTruncationException;
import io.kflux.OffsetOutOfRangeException;
import io.kflux.TopicPartition;
import io.kflux.metadata.BrokerErrors;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.Node;
import io.kflux.metadata.PartitionInfo;
import io.kflux.metadata.TopicInfo;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.Errors;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.Types;
import io.kflux.protocol.message.FetchRequest.FetchPartition;
import io.kflux.protocol.message.FetchRequest.FetchTopic;
import io.kflux.protocol.message.FetchRequest.ForgottenTopic;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FetchResponse.FetchableTopicResponse;
import io.kflux.protocol.message.FetchResponse.PartitionData;
import io.kflux.protocol.message.FetchResponse;
import io.kflux.protocol.message.OffsetForLeaderEpochResponse.EpochEndOffset;
import io.kflux.util.ClientMetrics;
import io.kflux.util.MonotonicScheduler;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The fetch loops: one Fetch in flight per leader broker, each listing that broker's fetchable
 * partitions. All methods run on the consumer's event loop.
 *
 * <p>Where each partition is in its fetch life cycle is its {@link FetchState} (position awaited, reset,
 * validated, truncated, fetchable, fetching, backing off after a leader error); planning asks that state, and every
 * change goes through {@code PartitionState.transitionTo}. A partition is fetched when {@link FetchState#FETCHABLE},
 * not paused, with fewer than
 * {@value FetchPlanner#MAX_PENDING_FETCHES} fetch results waiting to be emitted, and the consumer's buffered
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
 *
 * <p><b>Incremental fetch sessions (KIP-227).</b> Each broker has a {@link FetchSession}. The
 * first Fetch to a broker is a full one that opens a session; later ones list only the partitions
 * that are new to the session or whose fetch offset, leader epochs or max bytes changed, and an
 * incremental response names only partitions with news (data, a new high watermark, an error).
 * The session always holds exactly the partitions fetchable now, as the official client's does: a
 * partition that must not be fetched now (paused, held back because its results wait to be
 * emitted or the buffer is full, awaiting validation or a reset, moved to another leader,
 * revoked) is forgotten ({@code forgottenTopicsData}) in the next request to its broker and
 * added back, with its fetch offset, once fetchable again. So a broker never returns data for a
 * partition the planner holds back: holding back costs two list entries, not correctness.
 * Session errors ({@code FETCH_SESSION_ID_NOT_FOUND}, {@code INVALID_FETCH_SESSION_EPOCH}, any
 * top-level error) and failed requests drop the response and make the next request a full one.
 *
 * <p><b>Leader epochs (KIP-320).</b> Each Fetch carries the current leader epoch from metadata
 * (a stale one is answered {@code FENCED_LEADER_EPOCH}/{@code UNKNOWN_LEADER_EPOCH}, which
 * refreshes metadata) and the epoch of the last fetched batch ({@code lastFetchedEpoch}, v12+),
 * so the broker reports a diverging log ({@code divergingEpoch}). When metadata shows a higher
 * leader epoch than the one a partition was fetched under, the partition is not fetched until
 * OffsetForLeaderEpoch confirmed its fetch position. Either way, an end offset of the last fetched
 * epoch below the fetch offset means the log was truncated: as the official client does, the
 * position moves back to that end offset (or stays, when nothing past it was emitted yet), with
 * a warning; an unknown end offset resets by {@code auto.offset.reset}; with {@code none} the
 * flux fails with {@link LogTruncationException}. Buffered results of the partition are dropped
 * first, and the position is moved only once none is left with the emitter, so it is never
 * raced.
 *
 * <p><b>Why one class past 500 lines.</b> It should not stay one: planning, request building, response handling,
 * position reset and validation, follower selection (KIP-392) and per-node status share the partition states and
 * the event loop here, and splitting them by concern is planned work (issue #17). Until then, each concern keeps to
 * its own methods and every state change runs on {@code loop}. The network and metadata are behind {@link FetchIo}
 * and the clock and timers are the injected {@link Scheduler}, so all of it runs against a scripted cluster in virtual
 * time ({@code FetcherTest}).
 */
public final class Fetcher {
    private static final Logger log = LoggerFactory.getLogger(Fetcher.class);
    /** {@link KafkaProtocolException#errorName()} of an undecodable broker response. */
    public static final String MALFORMED_RESPONSE = "MALFORMED_RESPONSE";

    private final FetchConfig config;
    private final FetchIo io;
    /** The event loop, the fetcher's clock and timers (virtual time in tests), and whether it is closed. */
    private final FetchLoop loop;
    private final FetchSink sink;
    private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();
    private final NodeStatus nodes = new NodeStatus();
    private final FetchRequestBuilder requests;
    private final FetchPlanner planner;
    private final Map<Integer, FetchSession> sessions = new HashMap<>();
    private volatile FetchRequestListener requestListener;
    private volatile ClientMetrics metrics = ClientMetrics.NONE;
    private long bufferedBytes;
    private volatile long bufferedBytesGauge;
    private boolean metadataRefreshPending;
    private final MetadataRefreshes metadataRefreshes;
    private final PositionReset reset;
    private final PositionValidation validation;

    public Fetcher(FetchConfig config, NodeConnections connections, MetadataManager metadata, OffsetLookup offsets,
                   OffsetResetStrategy resetStrategy, long resetDurationMs, Executor loop, FetchSink sink) {
        this(config, new NetworkFetchIo(connections, metadata, offsets), resetStrategy, resetDurationMs, loop, sink,
                MonotonicScheduler.parallel());
    }

    /** With the network and metadata behind {@code io}, and {@code scheduler} as clock and timer (tests). */
    Fetcher(FetchConfig config, FetchIo io, OffsetResetStrategy resetStrategy, long resetDurationMs, Executor loop,
            FetchSink sink, Scheduler scheduler) {
        this.config = config;
        this.io = io;
        this.loop = new FetchLoop(loop, scheduler);
        this.sink = sink;
        this.requests = new FetchRequestBuilder(config);
        this.planner = new FetchPlanner(config);
        this.metadataRefreshes = new MetadataRefreshes(io, this.loop, config.retryBackoffMs(), this::plan,
                this::retryLater);
        this.reset = new PositionReset(io, this.loop, sink, resetStrategy, resetDurationMs, partitions, this::plan,
                this::retryLater);
        this.validation = new PositionValidation(io, this.loop, sink, resetStrategy, config.retryBackoffMs(), partitions,
                this::plan, this::refreshMetadata);
    }

    private long nowNanos() {
        return loop.nowNanos();
    }

    /** Tells {@code listener} (null for none) about each Fetch request sent (diagnostics, tests). */
    /** Where Fetch latencies and throttle times go; {@link ClientMetrics#NONE} until set. */
    public void metrics(ClientMetrics clientMetrics) {
        this.metrics = java.util.Objects.requireNonNull(clientMetrics, "clientMetrics");
    }

    public void requestListener(FetchRequestListener listener) {
        this.requestListener = listener;
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
        boolean readCommitted = config.isolationLevel() == 1;
        added.forEach((tp, ps) -> ps.sampler(metrics.partitionAssigned(tp.topic(), tp.partition(),
                () -> ps.lag(readCommitted), ps::lead, ps::fetchedAhead, () -> ps.readReplicaAt(nowNanos()))));
        plan();
    }

    /** Stops fetching these partitions; their buffered data is dropped by the emitter. */
    public void revoke(Set<TopicPartition> removed) {
        for (TopicPartition tp : removed) {
            PartitionState ps = partitions.remove(tp);
            if (ps != null) {
                ps.revoke();
                metrics.partitionRevoked(tp.topic(), tp.partition());
            }
        }
    }

    /**
     * The emitter refused {@code fetch} unseen: it was fetched from past the partition's position. Fetching resumes
     * at the position (acknowledgement tracking goes on: nothing was emitted or passed over).
     */
    public void onOutOfOrder(CompletedFetch fetch) {
        PartitionState ps = fetch.partition();
        if (!fetch.isStale()) {
            log.warn("{}: a result fetched at offset {} reached the emitter at position {}; fetching again from the "
                    + "position", ps.topicPartition(), fetch.fetchOffset(), ps.position());
            ps.refetchFromPosition();
        }
        onConsumed(fetch);
    }

    /** A result was emitted completely (or dropped): its bytes leave the buffer. */
    public void onConsumed(CompletedFetch fetch) {
        fetch.partition().fetchConsumed();
        bufferedBytes -= fetch.sizeInBytes();
        bufferedBytesGauge = bufferedBytes;
        nodes.wakeAll();
        plan();
    }

    public void close() {
        if (!loop.isClosed()) {
            partitions.keySet().forEach(tp -> metrics.partitionRevoked(tp.topic(), tp.partition()));
        }
        loop.close();
    }

    /**
     * Stops fetching and closes every open fetch session (KIP-227): a Fetch naming the session with epoch
     * {@value FetchRequest#FINAL_SESSION_EPOCH} and no partitions, so the broker frees the session's slot in its
     * cache at once instead of keeping it until it is evicted, as the official client does on close. Best
     * effort: failures are ignored, and the returned Mono completes once every broker answered or after
     * {@code timeout}. Call on the loop.
     */
    public Mono<Void> closeSessions(Duration timeout) {
        close();
        Cluster cluster = io.cluster();
        List<Mono<?>> closing = new ArrayList<>();
        sessions.forEach((nodeId, session) -> {
            Node node = cluster.node(nodeId);
            if (session.sessionId() == FetchSession.NO_SESSION_ID || node == null) {
                return;
            }
            FetchRequest request = requests.closing(session);
            FetchRequestListener listener = requestListener;
            if (listener != null) {
                listener.onRequest(new FetchRequestListener.Request(nodeId, session.sessionId(),
                        FetchRequest.FINAL_SESSION_EPOCH, true, List.of(), List.of(), 0));
            }
            closing.add(io.fetch(node, request)
                    .doOnNext(answer -> answer.response().release())
                    .onErrorResume(e -> {
                        log.debug("closing fetch session {} on {} failed: {}", session.sessionId(), node, e.toString());
                        return Mono.empty();
                    }));
        });
        sessions.clear();
        if (closing.isEmpty()) {
            return Mono.empty();
        }
        return Mono.when(closing).timeout(timeout, Mono.empty(), loop.scheduler());
    }

    /** Sends a Fetch to every broker that has fetchable partitions and none in flight. */
    public void plan() {
        if (loop.isClosed()) {
            return;
        }
        Cluster cluster = io.cluster();
        FetchPlan plan = planner.plan(partitions.values(), cluster, bufferedBytes, nodes, nowNanos());
        if (plan.failure() != null) {
            sink.fail(plan.failure());
            return;
        }
        plan.fetches().forEach(f -> send(f.node(), f.targets(), f.heldBack(), cluster));
        if (plan.needMetadata()) {
            refreshMetadata();
        }
        if (plan.needReset()) {
            reset.resetPositions();
        }
        if (plan.needValidation()) {
            validation.validatePositions(cluster);
        }
    }

    private void send(Node node, List<FetchTarget> targets, boolean heldBack, Cluster cluster) {
        FetchSession session = sessions.computeIfAbsent(node.id(), FetchSession::new);
        Map<TopicPartition, FetchTarget> byPartition = new HashMap<>();
        for (FetchTarget planned : targets) {
            // every session partition may get data, listed or not
            byPartition.put(planned.partition().topicPartition(), planned.entering(FetchState.FETCHING));
        }
        FetchRequestBuilder.Built built = requests.build(session, targets, heldBack, cluster);
        FetchSession.Request sessionRequest = built.session();
        FetchRequest request = built.request();
        FetchRequestListener listener = requestListener;
        if (listener != null) {
            listener.onRequest(FetchRequestBuilder.describe(node.id(), sessionRequest));
        }
        nodes.sent(node.id());
        long sentAt = System.nanoTime(); // a latency measured for the metrics, not a decision: the precise clock
        io.fetch(node, request)
                .map(answer -> {
                    FetchResponse r = answer.response();
                    metrics.fetchCompleted(System.nanoTime() - sentAt, r.throttleTimeMs());
                    // KIP-219: from Fetch v8 the broker answers at once and expects the client to hold back
                    if (answer.version() >= 8 && r.throttleTimeMs() > 0) {
                        loop.execute(() -> throttle(node.id(), r.throttleTimeMs()));
                    }
                    return r;
                })
                .subscribe(
                        response -> loop.execute(() -> onResponse(node, session, sessionRequest, byPartition, response, heldBack)),
                        error -> loop.execute(() -> onError(node, session, byPartition, error)));
    }

    /**
     * The broker asked for no request before {@code throttleMs} pass (quota exceeded, KIP-219); it mutes the
     * connection for that long anyway, so a Fetch sent earlier would only wait there, its timeout running.
     */
    private void throttle(int nodeId, int throttleMs) {
        log.debug("node {} throttles fetches for {} ms (quota)", nodeId, throttleMs);
        nodes.throttle(nodeId, nowNanos() + throttleMs * 1_000_000L);
        FetchRequestListener listener = requestListener;
        if (listener != null) {
            listener.onThrottle(nodeId, throttleMs);
        }
        schedule(throttleMs, this::plan);
    }

    private void onResponse(Node node, FetchSession session, FetchSession.Request sessionRequest,
                            Map<TopicPartition, FetchTarget> targets, FetchResponse response, boolean heldBack) {
        nodes.answered(node.id());
        targets.values().forEach(t -> t.leave(FetchState.FETCHING, FetchState.FETCHABLE));
        if (loop.isClosed()) {
            response.release();
            return;
        }
        Cluster cluster = io.cluster();
        Map<UUID, String> sessionTopics = new HashMap<>();
        sessionRequest.session().values().forEach(p -> sessionTopics.putIfAbsent(p.topicId(), p.partition().topic()));
        Set<TopicPartition> responded = new HashSet<>();
        for (FetchableTopicResponse topic : response.responses()) {
            String name = topicName(topic, sessionTopics, cluster);
            for (PartitionData pd : topic.partitions()) {
                // An id nobody asked for must still count as answered-but-not-requested; '<' can be in no real name.
                responded.add(new TopicPartition(name == null ? "<unknown topic id " + topic.topicId() + ">" : name,
                        pd.partitionIndex()));
            }
        }
        Errors topLevel = Errors.forCode(response.errorCode());
        if (!session.onResponse(sessionRequest, response.errorCode(), response.sessionId(), responded,
                response.throttleTimeMs())) {
            response.release();
            log.debug("Fetch from {} failed: {}; the next one is a full fetch", node, Errors.nameOf(response.errorCode()));
            if (topLevel == Errors.FETCH_SESSION_TOPIC_ID_ERROR) {
                refreshMetadata();
            }
            if (!sessionRequest.full()
                    && (topLevel == Errors.FETCH_SESSION_ID_NOT_FOUND || topLevel == Errors.INVALID_FETCH_SESSION_EPOCH)) {
                plan(); // the session is gone or out of step: fall back to a full fetch at once
            } else {
                retryLater();
            }
            return;
        }
        boolean gotData = false;
        FetchTally tally = metrics.enabled() ? new FetchTally() : null;
        List<FetchTarget> leaderErrors = new ArrayList<>();
        Map<TopicPartition, Long> outOfRange = new HashMap<>();
        Map<TopicPartition, Long> truncated = new HashMap<>();
        Map<TopicPartition, Long> divergent = new HashMap<>();
        for (FetchableTopicResponse topic : response.responses()) {
            String name = topicName(topic, sessionTopics, cluster);
            for (PartitionData pd : topic.partitions()) {
                ByteBuf records = pd.records();
                FetchTarget target = name == null ? null : targets.get(new TopicPartition(name, pd.partitionIndex()));
                if (target == null || !target.isCurrent()) {
                    release(records);
                    continue;
                }
                PartitionState ps = target.partition();
                Errors error = Errors.forCode(pd.errorCode());
                if (error.isNone() && pd.divergingEpoch().epoch() >= 0) {
                    // KIP-320 via Fetch: the log diverges from what was fetched before
                    release(records);
                    validation.onEpochEndOffset(ps, target.fetchOffset(), target.lastFetchedEpoch(), pd.divergingEpoch().epoch(),
                            pd.divergingEpoch().endOffset(), truncated, divergent);
                    continue;
                }
                if (error.isNone()) {
                    ReadReplicas.prefer(ps, node, pd.preferredReadReplica(), nowNanos(), config.metadataMaxAgeMs() * 1_000_000L,
                            config.rackId());
                    ps.logEnd(pd.highWatermark(), pd.lastStableOffset(), pd.logStartOffset());
                    gotData |= accept(target, pd, records, tally);
                    continue;
                }
                release(records);
                if (ReadReplicas.leave(ps, node, error.name())) {
                    // A follower out of range or not (yet) in sync is no verdict on the position: the leader is.
                    leaderErrors.add(target.entering(FetchState.LEADER_BACKOFF));
                    continue;
                }
                if (error == Errors.OFFSET_OUT_OF_RANGE) {
                    outOfRange.put(ps.topicPartition(), target.fetchOffset());
                } else if (OffsetLookup.isLeaderError(error)) {
                    log.debug("Fetch of {} from {}: {}; refreshing metadata", ps.topicPartition(), node, error);
                    metadataRefreshPending = true;
                    leaderErrors.add(target.entering(FetchState.LEADER_BACKOFF));
                } else if (error == Errors.CORRUPT_MESSAGE) {
                    sink.fail(new CorruptRecordException(ps.topicPartition(), target.fetchOffset(),
                            "the broker reported corrupt data for " + ps.topicPartition(), null));
                } else {
                    sink.fail(BrokerErrors.of(pd.errorCode(), "Fetch of " + ps.topicPartition() + " at offset "
                            + target.fetchOffset() + " failed: " + Errors.nameOf(pd.errorCode()), ps.topicPartition().topic(),
                            null));
                }
            }
        }
        if (tally != null) {
            tally.report(metrics);
        }
        if (!outOfRange.isEmpty()) {
            reset.outOfRange(outOfRange);
        }
        if (!truncated.isEmpty()) {
            sink.fail(new LogTruncationException(truncated, divergent));
        }
        // Idle only while some of this broker's partitions are still held back: they call plan() when
        // drained. If they were drained while this Fetch was out, nothing would wake the broker up
        // for fetch.max.wait.ms: the tail stall seen with reactor-kafka.
        if (!gotData && heldBack && planner.hasHeldBack(node.id(), partitions.values(), cluster, bufferedBytes, nowNanos())) {
            idleFor(node.id());
        }
        if (metadataRefreshPending) {
            metadataRefreshPending = false;
            refreshMetadata();
        }
        if (!leaderErrors.isEmpty()) {
            // Not asked again with the same (stale) metadata at once: that would spin on
            // NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH until the refresh lands.
            schedule(config.retryBackoffMs(), () -> {
                leaderErrors.forEach(t -> t.leave(FetchState.LEADER_BACKOFF, FetchState.FETCHABLE));
                plan();
            });
        }
        plan();
    }

    /** The topic's name: v13+ responses name topics by id (those of the session first, then metadata). */
    private static String topicName(FetchableTopicResponse topic, Map<UUID, String> sessionTopics, Cluster cluster) {
        if (topic.topic() != null && !topic.topic().isEmpty()) {
            return topic.topic();
        }
        String name = topic.topicId() == null ? null : sessionTopics.get(topic.topicId());
        return name != null ? name : cluster.topicName(topic.topicId());
    }

    private boolean accept(FetchTarget target, PartitionData pd, ByteBuf records, FetchTally tally) {
        if (records == null || !records.isReadable()) {
            release(records);
            if (tally != null) {
                tally.add(target.partition().topicPartition().topic(), 0, 0);
                target.partition().sampleLag(); // nothing to hand on: sampled now, as the official client does
            }
            return false;
        }
        BatchScan.Result scan = BatchScan.scan(records, target.fetchOffset(), target.lastFetchedEpoch());
        long next = scan.nextOffset();
        if (tally != null) {
            tally.add(target.partition().topicPartition().topic(), next > target.fetchOffset()
                    ? records.readableBytes() : 0, scan.records());
        }
        if (next <= target.fetchOffset()) {
            // Only a partial batch: the broker returns at least one whole batch first (KIP-74), so
            // this is a partition behind others in a full response; it is fetched again.
            release(records);
            return false;
        }
        PartitionState ps = target.partition();
        int size = records.readableBytes();
        ps.fetched(next, scan.lastEpoch());
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

    private void onError(Node node, FetchSession session, Map<TopicPartition, FetchTarget> targets, Throwable error) {
        nodes.answered(node.id());
        targets.values().forEach(t -> t.leave(FetchState.FETCHING, FetchState.FETCHABLE));
        session.onFailure();
        if (loop.isClosed()) {
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
        targets.values().forEach(t -> ReadReplicas.leave(t.partition(), node, error.toString()));
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

    private void refreshMetadata() {
        metadataRefreshes.request();
    }

    private void retryLater() {
        schedule(config.retryBackoffMs(), this::plan);
    }

    private void idleFor(int nodeId) {
        nodes.idle(nodeId);
        schedule(config.maxWaitMs(), () -> {
            nodes.wake(nodeId);
            plan();
        });
    }

    private void schedule(long delayMs, Runnable task) {
        loop.schedule(delayMs, task);
    }
}
