package io.kflux.fetch;

import io.kflux.KafkaProtocolException;
import io.kflux.LogTruncationException;
import io.kflux.TopicPartition;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.Node;
import io.kflux.metadata.SubscriptionWatch;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.Errors;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FetchResponse.PartitionData;
import io.kflux.protocol.message.FetchResponse;
import io.kflux.util.ClientMetrics;
import io.kflux.network.IoLoops;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * next Fetch with the emission of the previous one; a partition whose fetch offset is at the end of its log is
 * not pipelined (its Fetch would only long-poll and keep a seek waiting), it is fetched once its result is emitted
 * ({@code FetchPlanner.isHeldBack}, issue #17). A broker's fetchable partitions are gathered into one Fetch: it goes
 * out once none of them holds two results, half or more have none waiting, or one has had none for a few ms
 * ({@code FetchPlanner.isDue}, issue #32; {@link FetchPlan#wakeAtNanos} sets the timer for that bound).
 *
 * <p>When a broker's partitions are held back (their results wait to be emitted), its Fetch asks
 * for no wait ({@code maxWaitMs} 0): a long poll on the other, idle partitions would otherwise
 * keep the held-back ones from being fetched for up to {@code fetch.max.wait.ms} once drained.
 * When those others are all at their end it is not asked at all until a result drains.
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
 * <p><b>What is where (issue #17).</b> This class keeps the wiring: the assigned partitions, the fetch sessions,
 * the buffered bytes, sending the plan and applying what comes back. {@link FetchPlanner} plans each round (no I/O,
 * the time passed in) into a {@link FetchPlan}; {@link FetchRequestBuilder} builds each broker's request from it and
 * the session; {@link FetchResponseHandler} reads each answer into a {@link FetchOutcome}, which this class
 * applies; {@link PositionReset} resets positions by {@code auto.offset.reset}; {@link PositionValidation}
 * validates them after leader changes; {@link NodeStatus} holds each broker's in-flight, idle and throttle status;
 * {@link ReadReplicas} picks the node a partition is fetched from (KIP-392); {@link SubscriptionWatch} paces
 * metadata refreshes. Every state change runs on the loop ({@link FetchLoop}). The network and metadata are behind
 * {@link FetchIo} and the clock and timers are the injected {@link Scheduler}, so all of it runs against a scripted
 * cluster in virtual time ({@code FetcherTest}).
 *
 * <p><b>Why one class past 500 lines.</b> What is left here is the state every piece above reads and that must
 * change on one thread in one step: the partitions, sessions, buffered bytes and the one gathering timer. Split
 * further, each change would cross a class boundary while the loop's single-thread invariant holds them together.
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
    private final FetchPlanner planner;
    private final FetchRequestBuilder requests;
    private final FetchResponseHandler responses;
    private final PositionReset reset;
    private final PositionValidation validation;
    /** Metadata refreshes when a partition's topic or leader is unknown or after leader errors. */
    private final SubscriptionWatch metadataRefreshes;
    private final Map<Integer, FetchSession> sessions = new HashMap<>();
    private volatile FetchRequestListener requestListener;
    private volatile ClientMetrics metrics = ClientMetrics.NONE;
    private long bufferedBytes;
    private volatile long bufferedBytesGauge;
    /** When the timer set for a gathering deadline fires ({@link FetchPlan#wakeAtNanos}); NO_WAKE when none is set. */
    private long wakeTimerAt = FetchPlan.NO_WAKE;

    public Fetcher(FetchConfig config, NodeConnections connections, MetadataManager metadata, OffsetLookup offsets,
                   OffsetResetStrategy resetStrategy, long resetDurationMs, Executor loop, FetchSink sink) {
        this(config, new NetworkFetchIo(connections, metadata, offsets), resetStrategy, resetDurationMs, loop, sink,
                IoLoops.timers());
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
        this.responses = new FetchResponseHandler(config);
        FetchLoop fetchLoop = this.loop;
        // at most one per retry.backoff.ms (no growth): every plan asks again while a topic or leader is unknown
        this.metadataRefreshes = new SubscriptionWatch(fetchLoop::execute, fetchLoop.scheduler(), io::refreshMetadata,
                n -> config.retryBackoffMs(), () -> !fetchLoop.isClosed(), c -> plan(), e -> {
                    log.debug("metadata refresh failed: {}", e.toString());
                    retryLater();
                });
        this.reset = new PositionReset(io, this.loop, sink, resetStrategy, resetDurationMs, partitions, this::plan,
                this::retryLater);
        this.validation = new PositionValidation(io, this.loop, sink, resetStrategy, config.retryBackoffMs(), partitions,
                this::plan, this::refreshMetadata);
    }

    private long nowNanos() {
        return loop.nowNanos();
    }

    /** Where Fetch latencies and throttle times go; {@link ClientMetrics#NONE} until set. */
    public void metrics(ClientMetrics clientMetrics) {
        this.metrics = java.util.Objects.requireNonNull(clientMetrics, "clientMetrics");
    }

    /** Tells {@code listener} (null for none) about each Fetch request sent (diagnostics, tests). */
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
        boolean readCommitted = config.readCommitted();
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
        nodes.resultDrained(nowNanos());
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
        metadataRefreshes.cancel();
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
        wakeForGathering(plan.wakeAtNanos());
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

    /**
     * Plans again at {@code wakeAtNanos}, when a broker's Fetch held back for gathering is due (issue #32): one timer
     * at a time, the earliest deadline; a timer that fires early for a later deadline plans, and sets the next.
     */
    private void wakeForGathering(long wakeAtNanos) {
        if (wakeAtNanos == FetchPlan.NO_WAKE
                || wakeTimerAt != FetchPlan.NO_WAKE && wakeTimerAt - wakeAtNanos <= 0) {
            return;
        }
        wakeTimerAt = wakeAtNanos;
        long delayMs = Math.max(1, (wakeAtNanos - nowNanos() + 999_999) / 1_000_000);
        schedule(delayMs, () -> {
            if (wakeTimerAt == wakeAtNanos) {
                wakeTimerAt = FetchPlan.NO_WAKE;
            }
            plan();
        });
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
        if (log.isTraceEnabled()) {
            log.trace("Fetch to {}: session {} epoch {}, {} of {} partitions listed ({}), {} forgotten, maxWaitMs {}",
                    node, sessionRequest.sessionId(), sessionRequest.epoch(), sessionRequest.toSend().size(),
                    targets.size(), byPartition.keySet(), sessionRequest.toForget().size(), request.maxWaitMs());
        }
        long sentAt = System.nanoTime(); // a latency measured for the metrics, not a decision: the precise clock
        long sentNanos = nowNanos(); // the decisions' clock: whether a long poll waited its whole time
        io.fetch(node, request)
                .map(answer -> {
                    FetchResponse r = answer.response();
                    metrics.fetchCompleted(System.nanoTime() - sentAt, r.throttleTimeMs());
                    if (log.isTraceEnabled()) {
                        log.trace("Fetch to {} for {} answered in {} us", node, byPartition.keySet(),
                                (System.nanoTime() - sentAt) / 1000);
                    }
                    // KIP-219: from Fetch v8 the broker answers at once and expects the client to hold back
                    if (answer.version() >= 8 && r.throttleTimeMs() > 0) {
                        loop.execute(() -> throttle(node.id(), r.throttleTimeMs()));
                    }
                    return r;
                })
                .subscribe(
                        response -> loop.execute(() -> onResponse(node, session, sessionRequest, byPartition, response, heldBack,
                                sentNanos)),
                        error -> loop.execute(() -> onError(node, session, byPartition, error)));
    }

    /**
     * The broker asked for no request before {@code throttleMs} pass (quota exceeded, KIP-219); it mutes the
     * connection for that long anyway, so a Fetch sent earlier would only wait there, its timeout running.
     */
    private void throttle(int nodeId, int throttleMs) {
        log.debug("node {} throttles fetches for {} ms (quota)", nodeId, throttleMs);
        // the listener first: its "for throttleMs from now" must hold even if this thread is preempted in between
        FetchRequestListener listener = requestListener;
        if (listener != null) {
            listener.onThrottle(nodeId, throttleMs);
        }
        holdOff(nodeId, throttleMs);
    }

    /** No Fetch to {@code nodeId} for {@code delayMs} ({@link NodeStatus#holdOff}); the loop plans again then. */
    private void holdOff(int nodeId, long delayMs) {
        nodes.holdOff(nodeId, nowNanos() + delayMs * 1_000_000L);
        schedule(delayMs, this::plan);
    }

    private void onResponse(Node node, FetchSession session, FetchSession.Request sessionRequest,
                            Map<TopicPartition, FetchTarget> targets, FetchResponse response, boolean heldBack,
                            long sentNanos) {
        nodes.answered(node.id());
        targets.values().forEach(t -> t.leave(FetchState.FETCHING, FetchState.FETCHABLE));
        if (loop.isClosed()) {
            response.release();
            return;
        }
        Cluster cluster = io.cluster();
        FetchOutcome outcome = responses.handle(node, session, sessionRequest, targets, response, cluster);
        FetchOutcome.SessionError sessionError = outcome.sessionError();
        if (sessionError != null) {
            log.debug("Fetch from {} failed: {}; the next one is a full fetch", node, Errors.nameOf(sessionError.errorCode()));
            if (sessionError.refreshMetadata()) {
                refreshMetadata();
            }
            if (sessionError.fetchAtOnce()) {
                plan(); // the session is gone or out of step: fall back to a full fetch at once
            } else {
                retryLater();
            }
            return;
        }
        boolean gotData = false;
        // nothing at all came back: every partition answered without records, or none was named (incremental)
        boolean nothing = true;
        boolean refresh = false;
        FetchTally tally = metrics.enabled() ? new FetchTally() : null;
        List<FetchTarget> leaderErrors = new ArrayList<>();
        Map<TopicPartition, Long> outOfRange = new HashMap<>();
        Map<TopicPartition, Long> truncated = new HashMap<>();
        Map<TopicPartition, Long> divergent = new HashMap<>();
        for (FetchOutcome.PartitionOutcome o : outcome.partitions()) {
            FetchTarget target = o.target();
            PartitionState ps = target.partition();
            String topic = ps.topicPartition().topic();
            nothing &= o instanceof FetchOutcome.NoRecords n && n.empty();
            if (o instanceof FetchOutcome.Fetched f) {
                answered(ps, node, f.answer());
                CompletedFetch fetch = f.fetch();
                if (tally != null) {
                    tally.add(topic, fetch.sizeInBytes(), f.records());
                }
                ps.fetched(fetch.nextFetchOffset(), f.lastEpoch());
                bufferedBytes += fetch.sizeInBytes();
                bufferedBytesGauge = bufferedBytes;
                sink.accept(fetch);
                gotData = true;
            } else if (o instanceof FetchOutcome.NoRecords n) {
                answered(ps, node, n.answer());
                if (tally != null) {
                    tally.add(topic, 0, n.records());
                    if (n.empty()) {
                        ps.sampleLag(); // nothing to hand on: sampled now, as the official client does
                    }
                }
            } else if (o instanceof FetchOutcome.Diverged d) {
                validation.onEpochEndOffset(ps, target.fetchOffset(), target.lastFetchedEpoch(), d.epoch(),
                        d.endOffset(), truncated, divergent);
            } else if (o instanceof FetchOutcome.ReadReplicaFailed r) {
                ReadReplicas.leave(ps, node, r.error().name());
                leaderErrors.add(target.entering(FetchState.LEADER_BACKOFF));
            } else if (o instanceof FetchOutcome.OutOfRange) {
                outOfRange.put(ps.topicPartition(), target.fetchOffset());
            } else if (o instanceof FetchOutcome.LeaderError l) {
                log.debug("Fetch of {} from {}: {}; refreshing metadata", ps.topicPartition(), node, l.error());
                refresh = true;
                leaderErrors.add(target.entering(FetchState.LEADER_BACKOFF));
            } else if (o instanceof FetchOutcome.Failed failed) {
                sink.fail(failed.error());
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
        long pauseMs = nothing && !heldBack ? FetchPlanner.reaskPauseMs(config, nowNanos() - sentNanos) : 0L;
        if (pauseMs > 0) {
            holdOff(node.id(), pauseMs);
        }
        if (refresh) {
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

    /** An answer without error from {@code node}: the preferred read replica it names (KIP-392) and the log's ends. */
    private void answered(PartitionState ps, Node node, PartitionData answer) {
        ReadReplicas.prefer(ps, node, answer.preferredReadReplica(), nowNanos(), config.metadataMaxAgeMs() * 1_000_000L,
                config.rackId());
        ps.logEnd(answer.highWatermark(), answer.lastStableOffset(), answer.logStartOffset());
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
