package io.kflux.share;

import io.kflux.AcknowledgeType;
import io.kflux.KafkaFluxException;
import io.kflux.TopicPartition;
import io.kflux.metadata.BrokerErrors;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.Node;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ShareAcknowledgeRequest;
import io.kflux.protocol.message.ShareAcknowledgeResponse;
import io.kflux.protocol.message.ShareFetchRequest;
import io.kflux.protocol.message.ShareFetchResponse;
import io.kflux.util.Backoff;
import io.kflux.util.ClientMetrics;
import io.kflux.util.StateTransitions;
import io.kflux.util.WakeTimer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The share consumer's fetch path (KIP-932): one {@link ShareSession} per partition leader, at most one request out
 * per broker, ShareFetch only while downstream wants records (what it asked for and the acknowledgements it waits
 * for, less what is buffered and what the requests out may acquire: {@link ShareRequestPlanner}), so what is
 * acquired stays bounded by demand. Acknowledgements gathered while a broker's request is out
 * ride on its next ShareFetch, or go by ShareAcknowledge when no fetch is wanted (RENEW always by ShareAcknowledge
 * with {@code IsRenewAck}, KIP-1222): never one round trip per record. Each acknowledgement's {@link Mono} completes
 * when the broker confirmed its partition's acknowledgements, or fails with the partition's error
 * (INVALID_RECORD_STATE: the lock had expired or the record was not this member's) as a
 * {@link io.kflux.KafkaProtocolException}.
 *
 * <p>Errors: SHARE_SESSION_NOT_FOUND / INVALID_SHARE_SESSION_EPOCH open a new session; leader errors refresh
 * metadata; GROUP_AUTHORIZATION_FAILED, TOPIC_AUTHORIZATION_FAILED and a broker without ShareFetch v1 end the
 * consumer ({@link Sink#onFatalError}); other failures are retried after {@code retry.backoff.ms}, growing.
 * Loop-only state; public methods may be called from any thread.
 *
 * <p>Built as the fetch path is: what to send when comes from {@link ShareRequestPlanner} (pure, time passed in), the
 * requests from {@code ShareRequestBuilder}, what an answer means from {@code ShareFetchResponseHandler} (pure: an
 * answer and what its request carried in, a {@code ShareOutcome} out, which this class applies), and all I/O goes
 * through {@code ShareIo} ({@code NetworkShareIo} over the connections and metadata; a scripted one in
 * {@code ShareFetcherTest}, on virtual time).
 *
 * <p><b>Why one class past 500 lines.</b> It is the share path's one event loop: what each request carries, what an
 * answer settles and which acknowledgement waits for which answer all read and change the same per-broker state
 * ({@code ShareBroker}: session, request out, acknowledgements pending), on one thread, and the hand-over of
 * acknowledgements from any thread to that loop ({@code handOver}, bursts, coalesced wakes) is kept beside it. What
 * does not need that state is out of it: besides the planner, builder, handler and seam above, the lock bookkeeping
 * ({@code LockRenewals}), acknowledgement encoding ({@code PartitionAcknowledgements}), the waiters' completion
 * ({@code AckCompletions}), the partitions by leader ({@code PartitionLeaders}) and the session rules
 * ({@code ShareSession}).
 */
public final class ShareFetcher {
    private static final Logger log = LoggerFactory.getLogger(ShareFetcher.class);

    /** Where acquired records and fatal errors go; called on the loop. */
    public interface Sink {
        /** Records were acquired; the sink owns {@code batch.records()} and releases it. */
        void onBatch(AcquiredBatch batch);

        /** The fetcher stopped on an error no retry mends. */
        void onFatalError(KafkaFluxException error);

        /**
         * Whether records acquired earlier are still being handed out to a subscriber that wants more than them: it
         * will {@link #wake} the fetcher when they are out, and a ShareFetch then carries the acknowledgements
         * gathered meanwhile. Any thread.
         */
        default boolean handingOut() {
            return false;
        }

        /** Records the subscriber asked for and was not handed yet (Long.MAX_VALUE: unbounded). Any thread. */
        long requested();

        /** Records acquired and not handed out yet. Any thread. */
        long buffered();
    }

    private final ShareFetchConfig config;
    private final ShareIo io;
    private final Executor loop;
    private final Scheduler clock;
    private final ShareRequestPlanner planner;
    private final ShareFetchResponseHandler handler;
    private final ShareRequestBuilder requests;
    private final Sink sink;
    private final Backoff backoff;
    private final LockRenewals locks;
    private final ClientMetrics metrics;
    private final Map<Integer, ShareBroker> brokers = new HashMap<>();
    /**
     * Acknowledgements handed over from any thread, taken on the loop in one go: one hop to the loop and one plan
     * per burst, not per record. {@link #incomingWip} counts the hand-overs not yet taken (the task runs at 0 -> 1).
     */
    private final ConcurrentLinkedQueue<AcknowledgeMono.Pending> incoming = new ConcurrentLinkedQueue<>();
    private final AtomicInteger incomingWip = new AtomicInteger();
    /** While the emitter hands out a burst, hand-overs wait for its end: one take and one plan per burst. */
    private final BurstHold burst = new BurstHold();
    /** Where broker answers complete the acknowledgements' waiters, one pass per answer. */
    private final AckCompletions completions = new AckCompletions();
    /** A {@link #wake} plan is queued on the loop and has not started yet. */
    private final AtomicBoolean wakeQueued = new AtomicBoolean();
    private final Sinks.Empty<Void> closed = Sinks.empty();
    private Map<TopicPartition, UUID> assigned = Map.of();
    private Map<UUID, String> topicNames = Map.of();
    private ShareFetcherState state = ShareFetcherState.RUNNING;
    private final WakeTimer timer;
    private long lastMetadataRefreshMs = Long.MIN_VALUE / 2;
    private final PartitionLeaders leaders = new PartitionLeaders();

    /**
     * @param memberId      the share member's id, sent with every request
     * @param metrics       where ShareFetch answers and acknowledgements are counted
     */
    public ShareFetcher(ShareFetchConfig config, NodeConnections connections, MetadataManager metadata,
                        Executor loop, Scheduler clock, Supplier<String> memberId,
                        ClientMetrics metrics, Sink sink) {
        this(config, new NetworkShareIo(connections, metadata),
                connections.config().value("share.lock.renewal.max.ms", Long.class), loop, clock, memberId, metrics,
                sink);
    }

    /**
     * @param io             the network and metadata, behind the seam tests script
     * @param lockRenewalMaxMs {@code share.lock.renewal.max.ms}: how long after acquisition a lock is still renewed
     */
    ShareFetcher(ShareFetchConfig config, ShareIo io, long lockRenewalMaxMs, Executor loop, Scheduler clock,
                 Supplier<String> memberId, ClientMetrics metrics, Sink sink) {
        this.metrics = metrics;
        this.config = config;
        this.io = io;
        this.loop = loop;
        this.clock = clock;
        this.planner = new ShareRequestPlanner(config.maxRecords(), config.maxWaitMs());
        this.handler = new ShareFetchResponseHandler(config.groupId());
        this.requests = new ShareRequestBuilder(config, memberId);
        this.sink = sink;
        this.backoff = new Backoff(config.retryBackoffMs(), config.retryBackoffMaxMs());
        this.locks = new LockRenewals(lockRenewalMaxMs);
        this.timer = new WakeTimer(clock, loop, this::plan);
    }

    /** The member's assignment changed (on the loop): fetch from these partitions only. */
    public void assign(Map<TopicPartition, UUID> partitions) {
        assigned = Map.copyOf(partitions);
        Map<UUID, String> names = new HashMap<>();
        partitions.forEach((tp, id) -> names.put(id, tp.topic()));
        topicNames = names;
        plan();
    }

    /**
     * The member lost its assignment (fenced, or its session expired: KIP-932 removes the member and releases what it
     * acquired): nothing acquired until now is held any more, so an acknowledgement of it fails at once with
     * INVALID_RECORD_STATE instead of going out as if held, and no renewal goes out for it. On the loop.
     */
    public void assignmentLost() {
        locks.forgetAll();
    }

    /**
     * Demand grew, or buffered records were emitted: plan again. Any thread. Wakes coalesce into one plan while one
     * is queued and has not started: {@code flatMap} asks for one record per acknowledgement it saw confirmed, so
     * without this a broker answer confirming N acknowledgements queued N plans (15 % of the CPU of the explicit
     * accept benchmark). Safe because a plan reads the demand when it runs, not when it was asked for.
     */
    public void wake() {
        completions.help(); // asked from inside a completion pass: finish the pass there (see AckCompletions)
        // read before the CAS: while a plan is queued (most wakes of a completion pass), no locked write per wake
        if (!wakeQueued.get() && wakeQueued.compareAndSet(false, true)) {
            loop.execute(() -> {
                wakeQueued.set(false);
                plan();
            });
        }
    }

    /**
     * Decides, at each subscription to an acknowledgement's {@link Mono}, whether it may go (the record's own rules:
     * the acknowledgement mode, one final acknowledgement per record).
     */
    public interface AckGate {
        /** @return null when {@code type} may be sent now (and is taken), else the error its subscriber gets */
        RuntimeException admit(AcknowledgeType type);

        /**
         * The final acknowledgement {@code type} that {@link #admit} took failed with {@code error} (refused by the
         * broker, or not sent): later ones report that cause instead of "acknowledged already".
         */
        void refused(AcknowledgeType type, RuntimeException error);
    }

    /**
     * Acknowledges one acquired offset; sent with the next request to {@code nodeId}. A record whose acquisition lock
     * ran out (or whose renewal the broker refused), or that was acquired again since under another delivery count,
     * is not held any more: nothing is sent for it and the acknowledgement fails at once with INVALID_RECORD_STATE,
     * as the broker would answer (see {@link LockRenewals}).
     *
     * @param deliveryCount the delivery being acknowledged; negative for any (gaps)
     * @param type          the acknowledgement
     * @param gate          asked at each subscription whether it may go; null for always
     * @return completes when the broker confirmed it; fails with {@link io.kflux.KafkaProtocolException}
     *         (INVALID_RECORD_STATE and the like), {@link io.kflux.UnsupportedVersionException} for RENEW to a broker
     *         without ShareAcknowledge v2, {@link KafkaFluxException} when it could not be sent (consumer closed,
     *         broker unreachable), or the gate's error
     */
    public Mono<Void> acknowledge(int nodeId, TopicPartition tp, SharePartition sp, long offset, short deliveryCount,
                                  AcknowledgeType type, AckGate gate) {
        return new AcknowledgeMono(this, nodeId, tp, sp, offset, deliveryCount, type, gate);
    }

    /**
     * As {@link #acknowledge} with nobody waiting (releases and gaps the consumer sends on its own). Any thread.
     *
     * @param type the acknowledgement, or null for a gap (an acquired offset without a record)
     */
    public void acknowledgeQuietly(int nodeId, TopicPartition tp, SharePartition sp, long offset, short deliveryCount,
                                   AcknowledgeType type) {
        handOver(new AcknowledgeMono.Pending(new AcknowledgeMono(this, nodeId, tp, sp, offset, deliveryCount, type,
                null), null));
    }

    /**
     * Queues an acknowledgement for the loop. Outside an emitter's burst, order with the loop's other tasks holds: a
     * task posted after this call runs after the acknowledgement was taken (the taking task was posted earlier, or is
     * running and takes it). During a burst it is taken at the burst's end, or by {@link #close} if that comes first.
     */
    void handOver(AcknowledgeMono.Pending a) {
        incoming.add(a);
        if (!burst.holds()) {
            takeIncomingSoon();
        }
    }

    private void takeIncomingSoon() {
        if (incomingWip.getAndIncrement() == 0) {
            loop.execute(this::takeIncoming);
        }
    }

    /**
     * The emitter starts handing out a burst of records: acknowledgements handed over until {@link #burstEnded} wait
     * and are then taken together (see {@link BurstHold}).
     *
     * @return whether this burst holds them; only then call {@link #burstEnded} (false while another burst does)
     */
    public boolean burstStarted() {
        return burst.hold();
    }

    /** The burst {@link #burstStarted} returned true for ended: what was handed over meanwhile is taken now. */
    public void burstEnded() {
        if (burst.release()) {
            takeIncomingSoon();
        }
    }

    /** On the loop: every queued acknowledgement into its broker's pending ones, then one plan. */
    private void takeIncoming() {
        int missed = 1;
        do {
            takeWaiting();
            missed = incomingWip.addAndGet(-missed);
        } while (missed != 0);
        plan();
    }

    /** On the loop: the queued acknowledgements into their brokers' pending ones. */
    private void takeWaiting() {
        AcknowledgeMono.Pending a;
        while ((a = incoming.poll()) != null) {
            try {
                add(a);
            } catch (RuntimeException e) { // one bad acknowledgement must not stall the ones behind it
                log.error("acknowledgement of {}@{} failed", a.ack.tp, a.ack.offset, e);
                a.error(e);
            }
        }
    }

    /**
     * Stops fetching, sends what is pending and closes every share session (epoch -1).
     *
     * @return completes when every session closed (or could not be reached); never fails
     */
    public Mono<Void> close() {
        loop.execute(() -> {
            if (state == ShareFetcherState.RUNNING) {
                // acknowledgements handed over before close() (a burst may still hold them) go with the closing
                // requests, as they did when every hand-over was taken at once
                takeWaiting();
                state = StateTransitions.check(this, state, ShareFetcherState.CLOSING);
                plan();
            }
        });
        return closed.asMono();
    }

    private void add(AcknowledgeMono.Pending pending) {
        AcknowledgeMono a = pending.ack;
        if (state == ShareFetcherState.CLOSED) {
            log.debug("{}@{}: the share consumer is closed; its {} is not sent", a.tp, a.offset, a.type);
            pending.error(new KafkaFluxException("the share consumer is closed: acknowledgement of offset " + a.offset
                    + " not sent"));
            return;
        }
        ShareBroker b = brokers.get(a.nodeId);
        ShareSessionState session = b == null ? ShareSessionState.NONE : b.session.state();
        if (session == ShareSessionState.CLOSING || session == ShareSessionState.CLOSED) {
            log.debug("{}@{}: the share session with broker {} is {}; its {} is not sent", a.tp, a.offset, a.nodeId,
                    session, a.type);
            // nothing goes to a broker once its session's closing request went: kept pending, it waited for ever
            pending.error(new KafkaFluxException("the share consumer is closing: acknowledgement " + a.type + " of "
                    + a.tp + "@" + a.offset + " not sent, its share session with broker " + a.nodeId + " was closed"
                    + " already (the broker hands the record to the group again)"));
            return;
        }
        if (!locks.isHeld(a.sp, a.offset, a.deliveryCount, now())) {
            log.debug("{}@{} (delivery {}) is no longer held; its {} is not sent", a.tp, a.offset, a.deliveryCount,
                    a.type);
            pending.error(BrokerErrors.of(Errors.INVALID_RECORD_STATE.code(), "acknowledgement " + a.type + " of " + a.tp
                    + "@" + a.offset + " (delivery " + a.deliveryCount + ") not sent: INVALID_RECORD_STATE (its "
                    + "acquisition lock had expired or the member lost its assignment, so the broker may have handed"
                    + " it to another member)",
                    a.tp.topic(), config.groupId()));
            return;
        }
        if (a.type == AcknowledgeType.RENEW) {
            locks.renewRequested(new LockRenewals.Key(a.sp, a.offset));
        } else {
            locks.settled(a.sp, a.offset);
        }
        if (b == null) {
            b = new ShareBroker(a.nodeId);
            brokers.put(a.nodeId, b);
        }
        if (!b.hasPending()) {
            b.pendingSinceMs = now();
        }
        b.add(a.sp, a.offset, a.type, pending.waited() ? pending : null);
    }

    /** Whether broker {@code nodeId} takes RENEW (ShareAcknowledge v2, KIP-1222), as its last connection said. */
    private boolean renewable(int nodeId) {
        ShareBroker b = brokers.get(nodeId);
        return b != null && b.acknowledgeVersion >= 2;
    }

    // ------------------------------------------------------------------------------------------------ planning

    private void plan() {
        if (state == ShareFetcherState.CLOSED) {
            return;
        }
        Map<Integer, Set<SharePartition>> byLeader = leaders.of(io.cluster(), assigned);
        if (leaders.leaderMissing()) {
            refreshMetadata();
        }
        long now = now();
        long wakeAt = Long.MAX_VALUE;
        if (state == ShareFetcherState.RUNNING) {
            byLeader.keySet().forEach(id -> brokers.computeIfAbsent(id, ShareBroker::new));
            for (LockRenewals.Due due : locks.due(now, this::renewable)) {
                brokers.get(due.nodeId()).add(due.key().partition(), due.key().offset(), AcknowledgeType.RENEW, null);
            }
            wakeAt = locks.nextWakeMs(this::renewable);
        }
        boolean allClosed = true;
        for (ShareBroker b : brokers.values()) {
            if (b.notBeforeMs > now) {
                wakeAt = Math.min(wakeAt, b.notBeforeMs);
                allClosed = false;
                continue;
            }
            wakeAt = Math.min(wakeAt, send(b, byLeader.getOrDefault(b.nodeId, Set.of()), now));
            allClosed &= b.session.state() == ShareSessionState.CLOSED;
        }
        if (state == ShareFetcherState.CLOSING && allClosed) {
            state = StateTransitions.check(this, state, ShareFetcherState.CLOSED);
            closed.tryEmitEmpty();
        }
        timer.at(wakeAt);
    }

    /** The next request to {@code b}, if {@link ShareRequestPlanner} says one is due; returns when to plan again. */
    private long send(ShareBroker b, Set<SharePartition> wanted, long now) {
        ShareRequestPlanner.Plan p = planner.plan(new ShareRequestPlanner.Broker(b.session.state(), !wanted.isEmpty(),
                b.hasPending(), b.hasPendingWaiters(), b.hasPendingRenew(), b.pendingSinceMs), downstream(),
                state == ShareFetcherState.CLOSING, now);
        switch (p.kind()) {
            case NONE -> {
            }
            case CLOSED_WITHOUT_SESSION -> b.session.close(Set.of());
            case OPEN -> openSession(b, wanted, p);
            case OPEN_TO_ACKNOWLEDGE -> openSession(b, Set.of(), p);
            case CLOSE -> {
                ShareBroker.Drained d = b.drain();
                b.inFlight = d;
                exchange(b, requests.acknowledge(b.session.close(d.batches().keySet()).orElseThrow(), d));
            }
            case ACKNOWLEDGE -> {
                ShareBroker.Drained d = b.drain();
                b.inFlight = d;
                exchange(b, requests.acknowledge(b.session.acknowledge(d.batches().keySet()), d));
            }
            case FETCH -> {
                ShareBroker.Drained d = b.drain();
                b.inFlight = d;
                b.inFlightRecords = p.maxRecords();
                exchange(b, requests.fetch(b.session.fetch(wanted, d.batches().keySet()), d, p.maxRecords(),
                        p.maxWaitMs()));
            }
        }
        return p.wakeAtMs();
    }

    /** Downstream as the planner sees it: demand, buffered records, confirmations awaited, records asked for. */
    private ShareRequestPlanner.Downstream downstream() {
        long confirming = 0;
        long inFlight = 0;
        for (ShareBroker b : brokers.values()) {
            confirming += b.waiting();
            inFlight += b.inFlightRecords;
        }
        return new ShareRequestPlanner.Downstream(sink.requested(), sink.buffered(), confirming, inFlight,
                sink.handingOut());
    }

    /** Opens a session listing {@code wanted} (none: only to carry acknowledgements afterwards). */
    private void openSession(ShareBroker b, Set<SharePartition> wanted, ShareRequestPlanner.Plan p) {
        b.inFlightRecords = wanted.isEmpty() ? 0 : p.maxRecords();
        b.inFlight = new ShareBroker.Drained(Map.of(), Map.of(), false);
        ShareSession.Request r = b.session.fetch(wanted, Set.of());
        exchange(b, requests.fetch(r, b.inFlight, p.maxRecords(), p.maxWaitMs()));
    }

    // ------------------------------------------------------------------------------------------------ answers

    private void exchange(ShareBroker b, ShareFetchRequest request) {
        if (log.isDebugEnabled()) {
            log.debug("ShareFetch to broker {}: session epoch {}, max wait {} ms, {}", b.nodeId,
                    request.shareSessionEpoch(), request.maxWaitMs(), request.topics());
        }
        exchange(b, node -> io.shareFetch(node, request, connected(b)));
    }

    private void exchange(ShareBroker b, ShareAcknowledgeRequest request) {
        if (log.isDebugEnabled()) {
            log.debug("ShareAcknowledge to broker {}: session epoch {}, {}", b.nodeId, request.shareSessionEpoch(),
                    request.topics());
        }
        exchange(b, node -> io.shareAcknowledge(node, request, connected(b)));
    }

    private void exchange(ShareBroker b, Function<Node, Mono<?>> request) {
        Node node = io.cluster().node(b.nodeId);
        if (node == null) {
            loop.execute(() -> onFailure(b, new KafkaFluxException("broker " + b.nodeId + " is not in metadata")));
            refreshMetadata();
            return;
        }
        b.sentAtMs = now();
        b.sentAtNanos = System.nanoTime();
        request.apply(node).subscribe(r -> loop.execute(() -> onAnswer(b, r)), e -> loop.execute(() -> onFailure(b, e)));
    }

    /** Where {@code b}'s connection tells its ShareAcknowledge versions: on the loop, before the answer (also posted). */
    private ShareIo.Connected connected(ShareBroker b) {
        return v -> loop.execute(() -> {
            if (b.acknowledgeVersion != v) {
                b.acknowledgeVersion = v;
                locks.renewableChanged();
            }
        });
    }

    private void onAnswer(ShareBroker b, Object response) {
        ShareBroker.Drained d = b.inFlight;
        b.inFlightDone();
        ShareOutcome o = response instanceof ShareFetchResponse f
                ? handler.fetched(b.nodeId, d, f, assigned, topicNames)
                : handler.acknowledged(b.nodeId, d, (ShareAcknowledgeResponse) response, topicNames);
        b.session.onAnswer(o.errorCode());
        if (o.verdict() != ShareOutcome.Verdict.ANSWERED) {
            ShareBroker.fail(d, o.error(), completions);
            completions.run();
            d.batches().forEach((sp, batches) -> renewAnswered(b, d, sp, 0, false));
            metrics.shareAcknowledgementsAnswered(o.acknowledged(), o.refused());
            if (o.verdict() == ShareOutcome.Verdict.FATAL) {
                fatal(o.error());
                return;
            }
            log.info("share request to broker {} answered {}; retrying", b.nodeId, Errors.nameOf(o.errorCode()));
            b.notBeforeMs = now() + backoff.delayMs(++b.failures);
            plan();
            return;
        }
        b.failures = 0;
        if (o.throttleMs() > 0) {
            b.notBeforeMs = now() + o.throttleMs();
        }
        for (ShareOutcome.PartitionOutcome p : o.partitions()) {
            if (p.acknowledgeError() != null) {
                log.debug("broker {} refused the acknowledgements of {}: {}", b.nodeId, p.partition(),
                        p.acknowledgeError().toString());
            }
            ShareBroker.answer(d, p.partition(), p.acknowledgeError(), completions);
            renewAnswered(b, d, p.partition(), p.lockMs(), p.acknowledgeError() == null);
            if (p.result() != null) {
                apply(b, p.partition(), p.lockMs(), p.result());
            }
        }
        if (response instanceof ShareFetchResponse) {
            metrics.shareFetchCompleted(System.nanoTime() - b.sentAtNanos, o.throttleMs(), o.fetchedBytes(),
                    o.fetchedRecords());
        }
        if (!d.isEmpty()) {
            metrics.shareAcknowledgementsAnswered(o.acknowledged(), o.refused());
        }
        completions.run(); // every waiter this answer settled, in one pass
        plan();
    }

    /** What an answer says of partition {@code sp} beyond its acknowledgements, in the answer's order. */
    private void apply(ShareBroker b, SharePartition sp, int lockMs, ShareOutcome.Result result) {
        if (result instanceof ShareOutcome.Acquired a) {
            for (ShareFetchResponse.AcquiredRecords r : a.batch().acquired()) {
                locks.acquired(b.nodeId, sp, r.firstOffset(), r.lastOffset(), r.deliveryCount(), b.sentAtMs, lockMs);
            }
            sink.onBatch(a.batch());
        } else if (result instanceof ShareOutcome.NotAssigned n) {
            // acquired for a partition no longer assigned: hand the records back at once
            for (ShareFetchResponse.AcquiredRecords r : n.acquired()) {
                for (long o = r.firstOffset(); o <= r.lastOffset(); o++) {
                    b.add(sp, o, AcknowledgeType.RELEASE, null);
                }
            }
        } else if (result instanceof ShareOutcome.LeaderError) {
            refreshMetadata();
        } else if (result instanceof ShareOutcome.Fatal f) {
            fatal(f.error());
        } else if (result instanceof ShareOutcome.PartitionError e) {
            log.info("ShareFetch of {} from broker {} answered {}: {}", e.partition(), b.nodeId,
                    Errors.nameOf(e.errorCode()), e.message());
        }
    }

    /**
     * Tells the lock planner how the broker answered the RENEWs {@code d} carried for {@code sp} (if any).
     *
     * @param lockMs the response's lock duration (0 when it has none)
     */
    private void renewAnswered(ShareBroker b, ShareBroker.Drained d, SharePartition sp, int lockMs, boolean ok) {
        if (!d.renew()) {
            return;
        }
        List<Long> offsets = LockRenewals.renewOffsets(d.batches().getOrDefault(sp, List.of()));
        if (!offsets.isEmpty()) {
            locks.renewAnswered(sp, offsets, b.sentAtMs, lockMs, ok);
        }
    }

    private void onFailure(ShareBroker b, Throwable e) {
        ShareBroker.Drained d = b.inFlight;
        b.inFlightDone();
        if (d.renew()) {
            d.batches().forEach((sp, batches) -> locks.renewUnanswered(sp, LockRenewals.renewOffsets(batches)));
        }
        ShareSessionState before = b.session.state();
        if (before != ShareSessionState.NONE && before != ShareSessionState.OPEN && before != ShareSessionState.CLOSED) {
            b.session.onNoAnswer();
        }
        ShareOutcome.NoAnswer o = handler.noAnswer(b.nodeId, e, d.renew());
        ShareBroker.fail(d, o.error(), completions);
        completions.run();
        if (o.fatal()) {
            fatal(o.error());
            return;
        }
        if (state == ShareFetcherState.CLOSING && b.session.state() == ShareSessionState.NONE) {
            b.failPending(new KafkaFluxException("broker " + b.nodeId + " unreachable while closing"), completions);
            completions.run();
            b.session.close(Set.of());
            plan();
            return;
        }
        log.info("share request to broker {} failed: {}; retrying", b.nodeId, e.toString());
        b.notBeforeMs = now() + backoff.delayMs(++b.failures);
        plan();
    }

    private void fatal(KafkaFluxException error) {
        if (state == ShareFetcherState.CLOSED) {
            return;
        }
        state = StateTransitions.check(this, state, ShareFetcherState.CLOSED);
        for (ShareBroker b : brokers.values()) {
            b.failPending(error, completions);
        }
        completions.run();
        timer.cancel();
        closed.tryEmitEmpty();
        sink.onFatalError(error);
    }

    private void refreshMetadata() {
        long now = now();
        if (now - lastMetadataRefreshMs < config.retryBackoffMs()) {
            return;
        }
        lastMetadataRefreshMs = now;
        io.refreshMetadata().subscribe(c -> loop.execute(this::plan), e -> log.debug("metadata refresh failed: {}",
                e.toString()));
    }

    private long now() {
        return clock.now(TimeUnit.MILLISECONDS);
    }
}
