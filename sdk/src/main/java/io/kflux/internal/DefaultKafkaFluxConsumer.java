package io.kflux.internal;

import io.kflux.network.IoLoops;
import io.kflux.ConsumerOptions;
import io.kflux.ConfigException;
import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.OffsetAndTimestamp;
import io.kflux.PartitionFlux;
import io.kflux.ProcessedRecord;
import io.kflux.ProcessingOptions;
import io.kflux.RecordBatch;
import io.kflux.TopicPartition;
import io.kflux.commit.CommitManager;
import io.kflux.internal.config.ConsumerConfig;
import io.kflux.internal.config.OptionsAccess;
import io.kflux.internal.config.EffectiveConfig;
import io.kflux.internal.config.GroupProtocol;
import io.kflux.internal.metrics.ConsumerMetrics;
import io.kflux.internal.metrics.RecordTracing;
import io.kflux.internal.processing.ProcessingDriver;
import io.kflux.internal.processing.RevocationHook;
import io.kflux.internal.security.ConnectionSecurities;
import io.kflux.commit.CommitOffset;
import io.kflux.commit.OffsetCommitter;
import io.kflux.fetch.FetchRequestListener;
import io.kflux.fetch.ListedOffset;
import io.kflux.fetch.PartitionState;
import io.kflux.protocol.Types;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer. State that outlives one subscription (positions to start from, paused
 * partitions) lives here; everything of a running subscription lives in its {@link ConsumerSession}.
 *
 * @param <K> key type
 * @param <V> value type
 *
 * <p><b>Why one class past 500 lines.</b> It implements the public interface: every public operation (receive,
 * commit, seek, position, offsets, close) is a short method delegating to the layers below, plus the shared
 * resources' reference counting. Its length is the API's breadth, not logic.
 */
public final class DefaultKafkaFluxConsumer<K, V> implements KafkaFluxConsumer<K, V> {
    private static final Logger log = LoggerFactory.getLogger(DefaultKafkaFluxConsumer.class);
    private final ConsumerOptions<K, V> options;
    private final ClientSettings settings;
    private final AtomicReference<ConsumerSession<K, V>> active = new AtomicReference<>();
    /**
     * Where partitions start: the offset, and the leader epoch of the record before it when a seek gave one (an
     * OffsetAndMetadata, KIP-320; -1 otherwise), validated before fetching. One value, so the two never disagree.
     */
    private final Map<TopicPartition, CommitOffset> startPositions = new ConcurrentHashMap<>();
    /**
     * Manual assignment: the end of each partition's log as the last subscription's last Fetch answer reported it
     * (-1 unknown), so currentLag between subscriptions is the last known figure, as position is.
     */
    private final Map<TopicPartition, Long> lastLogEnds = new ConcurrentHashMap<>();
    private final Set<TopicPartition> paused = ConcurrentHashMap.newKeySet();
    private final Object resourcesLock = new Object();
    private ClientResources resources;
    /** Lookups and commits running now (see withResources); guarded by resourcesLock. */
    private int resourceUsers;
    private volatile boolean closed;
    /** Deserializers are closed by the first close() only, however often it is called. */
    private final AtomicBoolean deserializersClosed = new AtomicBoolean();
    /** Acknowledgements and commits outlive subscriptions: records are often acknowledged after cancel. */
    private final CommitManager commits;
    private final ConsumerGroupContext groupContext;
    private volatile FetchRequestListener fetchRequestListener;
    /** Meters from the first subscription to close; {@link ConsumerMetrics#NONE} without a registry. */
    private final ConsumerMetrics metrics;
    private final AtomicReference<UUID> telemetryInstanceId = new AtomicReference<>(Types.ZERO_UUID);
    /** One observation per delivered record, or null without an observation registry. */
    private final RecordTracing tracing;

    public DefaultKafkaFluxConsumer(ConsumerOptions<K, V> options) {
        this.options = Objects.requireNonNull(options, "options");
        ConsumerConfig config = OptionsAccess.config(options);
        this.settings = ClientSettings.from(config, options.maxBufferedBytes(), ConnectionSecurities.from(
                config, options.oauthBearerTokenProvider().orElse(null), options.saslMechanism().orElse(null)));
        this.metrics = ConsumerMetrics.create(options.meterRegistry().orElse(null), settings.clientId(),
                settings.config().metricsPush());
        this.tracing = RecordTracing.create(options.observationRegistry().orElse(null), settings.clientId(),
                settings.groupId());
        this.groupContext = settings.groupId() == null ? null
                : new ConsumerGroupContext(settings.groupId(), this::resources, options.assignedPartitions());
        OffsetCommitter committer = groupContext == null ? null
                : new OffsetCommitter(groupContext, settings.retryBackoffMs(), settings.retryBackoffMaxMs());
        if (committer != null) {
            committer.metrics(metrics);
        }
        this.commits = committer == null ? null : new CommitManager(committer,
                Duration.ofMillis(settings.defaultApiTimeoutMs()), settings.logContext());
        if (commits != null) {
            commits.commitBatchSize(options.commitBatchSize());
        }
        logEffectiveConfig();
    }

    /** Once per consumer, at INFO, as the official client logs its ConsumerConfig values; secrets hidden. */
    private void logEffectiveConfig() {
        if (!log.isInfoEnabled()) {
            return;
        }
        Map<String, Object> extras = new java.util.LinkedHashMap<>();
        extras.put("(ConsumerOptions) withMaxBufferedBytes", options.maxBufferedBytes());
        extras.put("(ConsumerOptions) withCommitBatchSize", options.commitBatchSize());
        extras.put("(ConsumerOptions) withDeserializationErrorHandler",
                options.deserializationErrorHandler().getClass().getName());
        String described = EffectiveConfig.describe(OptionsAccess.config(options), settings.clientId(),
                options.keyDeserializer(), options.valueDeserializer(), extras);
        settings.logContext().run(() -> log.info(described));
    }

    /** True once close() was called: acknowledgements from then on are ignored (CommitAckHandle). */
    boolean isClosed() {
        return closed;
    }

    /** Where commits go, or null without a group.id. */
    ConsumerGroupContext groupContext() {
        return groupContext;
    }

    ConsumerOptions<K, V> options() {
        return options;
    }

    /** The commit machinery, or null without a group.id. */
    CommitManager commits() {
        return commits;
    }

    private ClientResources resources() {
        synchronized (resourcesLock) {
            if (resources == null) {
                resources = ClientResources.create(settings, metrics);
            }
            return resources;
        }
    }

    /**
     * Runs a lookup or commit with the connections, counted so that connections opened for it outside a
     * subscription are closed once the last such call ended, and never under a call still running (a call starting
     * right after another one ended must not pick up the connections that one is closing).
     */
    private <T> Mono<T> withResources(java.util.function.Function<ClientResources, Mono<T>> use) {
        return Mono.defer(() -> {
            ClientResources r;
            synchronized (resourcesLock) {
                resourceUsers++;
                r = resources();
            }
            return use.apply(r).doFinally(s -> endResourceUse());
        });
    }

    private void endResourceUse() {
        ClientResources idle = null;
        synchronized (resourcesLock) {
            if (--resourceUsers == 0 && active.get() == null) {
                idle = resources;
                resources = null;
            }
        }
        if (idle != null) {
            idle.close().subscribe();
        }
    }

    private Mono<Void> releaseResources() {
        ClientResources r;
        synchronized (resourcesLock) {
            r = resources;
            resources = null;
        }
        return r == null ? Mono.empty() : r.close();
    }

    @Override
    public Flux<ConsumerRecord<K, V>> receive() {
        return new Flux<>() {
            @Override
            public void subscribe(CoreSubscriber<? super ConsumerRecord<K, V>> actual) {
                subscribeReceive(actual);
            }
        };
    }

    private void subscribeReceive(CoreSubscriber<? super ConsumerRecord<K, V>> actual) {
        subscribeReceive(actual, false);
    }

    private void subscribeReceive(CoreSubscriber<? super ConsumerRecord<K, V>> actual, boolean partitioned) {
        subscribeReceive(Downstream.records(actual), partitioned, RevocationHook.NONE);
    }

    /** One {@link RecordBatch} per partition's fetched result, through the same emitter as receive(). */
    @Override
    public Flux<RecordBatch<K, V>> receiveBatches() {
        return new Flux<>() {
            @Override
            public void subscribe(CoreSubscriber<? super RecordBatch<K, V>> actual) {
                subscribeReceive(Downstream.batches(actual, OptionsAccess.config(options).maxPollRecords()), false,
                        RevocationHook.NONE);
            }
        };
    }

    /** The records of {@code receive()} driven by a {@link ProcessingDriver}, which also hears of revocations. */
    @Override
    public Flux<ProcessedRecord<K, V>> process(ProcessingOptions<K, V> processing,
                                               Function<ConsumerRecord<K, V>, ? extends Publisher<?>> handler) {
        Objects.requireNonNull(processing, "options");
        Objects.requireNonNull(handler, "handler");
        return new Flux<>() {
            @Override
            public void subscribe(CoreSubscriber<? super ProcessedRecord<K, V>> actual) {
                ProcessingDriver<K, V> driver = ProcessingDriver.create(actual, processing, handler,
                        commits == null ? (tp, offset) -> false : commits::completedEarlier, tracing,
                        options.meterRegistry().orElse(null), settings.clientId(), settings.logContext(),
                        options.emitScheduler().orElseGet(EmitScheduler::shared));
                // partitions take turns in slices, so the records held span several partitions (issue #27)
                subscribeReceive(Downstream.inTurns(driver, driver.resultSlice()), false, driver);
            }
        };
    }

    /**
     * The error for a second subscription: it names the call whose subscription is active (issue #27: a second
     * subscription during process() said receive()).
     */
    private static IllegalStateException alreadyActive(ConsumerSession<?, ?> active) {
        String call = active == null ? "receive()" : active.revocationHook() != RevocationHook.NONE ? "process()"
                : active.isPartitioned() ? "receivePartitioned()" : active.isBatches() ? "receiveBatches()"
                : "receive()";
        return new IllegalStateException("this consumer already has an active " + call
                + " subscription (one subscription at a time, of receive(), receivePartitioned(), receiveBatches()"
                + " or process()); cancel it first");
    }

    /** A subscriber waiting for the previous subscription to finish stopping. */
    private record WaitingReceiver<K, V>(Downstream<K, V> actual, boolean partitioned,
                                         RevocationHook revocationHook) {
    }

    /** Subscribers waiting for a stopping session, oldest first. */
    private final java.util.Queue<WaitingReceiver<K, V>> waitingReceivers =
            new java.util.concurrent.ConcurrentLinkedQueue<>();

    private void subscribeReceive(Downstream<K, V> downstream, boolean partitioned, RevocationHook revocationHook) {
        CoreSubscriber<?> actual = downstream.subscriber();
        if (closed) {
            Operators.error(actual, new IllegalStateException("this consumer is closed"));
            return;
        }
        ConsumerSession<K, V> previous = active.get();
        if (previous != null && previous.isStopping()) {
            // The previous subscription was cancelled or has terminated, but is still releasing
            // (LeaveGroup, remembering positions, closing connections): start once it is done, so
            // that re-subscribing right after a cancel (or retry() after an error) continues where
            // it stopped instead of failing with "already has an active subscription".
            // Waiters are served in the order they subscribed: each callback takes the oldest waiter (the
            // future runs its callbacks newest first, which served the last subscriber first).
            waitingReceivers.add(new WaitingReceiver<>(downstream, partitioned, revocationHook));
            previous.whenStopped().whenComplete((v, e) -> {
                WaitingReceiver<K, V> next = waitingReceivers.poll();
                if (next != null) {
                    subscribeReceive(next.actual(), next.partitioned(), next.revocationHook());
                }
            });
            return;
        }
        if (previous != null) {
            // checked before building a session: a session built and then discarded would leak its worker
            Operators.error(actual, alreadyActive(previous));
            return;
        }
        if (options.emitScheduler().map(reactor.core.scheduler.Scheduler::isDisposed).orElse(false)) {
            Operators.error(actual, new IllegalStateException("the emit scheduler given to "
                    + "ConsumerOptions.withEmitScheduler is disposed: " + options.emitScheduler().get()));
            return;
        }
        // Held as a resource user until the session is the active one: a commit of the previous subscription ending
        // in between (endResourceUse) would otherwise see no active session and close what this one just took.
        ClientResources taken;
        synchronized (resourcesLock) {
            resourceUsers++;
            taken = resources();
        }
        ConsumerSession<K, V> session;
        try {
            session = new ConsumerSession<>(this, settings, taken, options.keyDeserializer(),
                    options.valueDeserializer(), downstream);
            if (!active.compareAndSet(null, session)) {
                Operators.error(actual, alreadyActive(active.get()));
                return;
            }
        } finally {
            endResourceUse();
        }
        metrics.start(new ConsumerMetrics.Figures(
                () -> sessionFigure(s -> s.fetcher().bufferedBytes()), settings.fetch().maxBufferedBytes(),
                () -> sessionFigure(s -> s.emitter().demand()),
                () -> sessionFigure(s -> s.assignment().size()),
                OptionsAccess.config(options).groupProtocol() != GroupProtocol.CONSUMER));
        session.fetcher().requestListener(fetchRequestListener);
        session.partitioned(partitioned);
        session.revocationHook(revocationHook);
        if (revocationHook != RevocationHook.NONE) {
            // process() observes each record's handling itself (its driver); one observation per record, not two
            session.emitter().tracing(null);
        }
        if (commits != null) {
            commits.keepProgress(revocationHook != RevocationHook.NONE); // process() keeps progress in its commits
            // and with automatic commits commits it every so many records too, so a crash re-does a bounded number
            commits.commitAhead(settings.enableAutoCommit() ? revocationHook.commitAfterRecords() : 0,
                    ProcessingOptions.MIN_COMMIT_SPACING);
        }
        actual.onSubscribe(session.emitter());
        if (options.subscriptionType() == ConsumerOptions.SubscriptionType.ASSIGNMENT) {
            session.start(options.assignedPartitions());
        } else {
            session.startGroup();
        }
    }

    /** Tracing of delivered records, or null when off. */
    RecordTracing tracing() {
        return tracing;
    }

    /** The metrics of this consumer ({@link ConsumerMetrics#NONE} without a registry). */
    ConsumerMetrics metrics() {
        return metrics;
    }

    /**
     * The client instance id a broker assigned this consumer for client telemetry (KIP-714), the zero uuid until then;
     * kept across {@code receive()} calls, since the KIP keeps one id for a client's lifetime.
     */
    AtomicReference<UUID> telemetryInstanceId() {
        return telemetryInstanceId;
    }

    /** A figure of the running subscription for a gauge, -1 without one. */
    private long sessionFigure(java.util.function.ToLongFunction<ConsumerSession<K, V>> figure) {
        ConsumerSession<K, V> s = active.get();
        return s == null ? -1L : figure.applyAsLong(s);
    }

    /** Where a partition starts: an explicit seek, else where the previous subscription stopped. */
    CommitOffset initialPosition(TopicPartition tp) {
        return startPositions.get(tp);
    }

    /** As {@link #initialPosition}, and forgets it: a session that starts from it owns the position from then on. */
    CommitOffset takeInitialPosition(TopicPartition tp) {
        return startPositions.remove(tp);
    }

    /** A start position without a leader epoch: nothing to validate it against. */
    private static CommitOffset startAt(long offset) {
        return new CommitOffset(offset, -1, "");
    }

    boolean initiallyPaused(TopicPartition tp) {
        return paused.contains(tp);
    }

    /**
     * Where the next subscription starts: the stopping session's positions, except where a seek
     * made while it stopped already says otherwise (sessions take their start positions away, so
     * anything still here was set after this session started).
     */
    void rememberPositions(Map<TopicPartition, PartitionState> states) {
        states.forEach((tp, ps) -> {
            if (ps.position() >= 0) {
                startPositions.putIfAbsent(tp, startAt(ps.position()));
            }
            lastLogEnds.put(tp, ps.logEnd(readCommitted()));
        });
    }

    private boolean readCommitted() {
        return settings.fetch().isolationLevel() == 1;
    }

    private boolean manualAssignment() {
        return options.subscriptionType() == ConsumerOptions.SubscriptionType.ASSIGNMENT;
    }

    /** The subscription whose receive() still runs, or null once it ended (cancel, completion, error) or never ran. */
    private ConsumerSession<K, V> running() {
        ConsumerSession<K, V> session = active.get();
        return session == null || session.isStopping() ? null : session;
    }

    /**
     * The session stopped: its connections (and the coordinator manager) are released unless a lookup or commit
     * still uses them, in which case the last of those releases them (endResourceUse). The session never closes them
     * itself: a commit of the same consumer (e.g. {@code commit()} right after {@code receive()} was cancelled) may
     * be using them, and would fail on a closed coordinator.
     *
     * @return completes when they are released (at once when they are left to a running call)
     */
    Mono<Void> sessionEnded(ConsumerSession<K, V> session) {
        active.compareAndSet(session, null);
        synchronized (resourcesLock) {
            if (resourceUsers > 0) {
                return Mono.empty();
            }
        }
        return releaseResources();
    }

    /**
     * The session's marker records ({@link PartitionMarkers}) say where each assignment of a partition starts and
     * ends, in order with its records: a group per assignment opens at the assigned marker (so every assigned
     * partition gets its inner flux, records or not) and completes at the ended marker (revoked or lost), after
     * the last record emitted for it. (It was {@code receive().groupBy(partition)}, whose inner fluxes never
     * completed on revocation.) The group key counts assignments of the partition, so records of a re-assignment
     * go to a new inner flux even while the old one has not drained up to its end. Backpressure is groupBy's:
     * bounded per-group buffers; every inner flux must be consumed (e.g. flatMap with a concurrency of at least
     * the number of assigned partitions).
     */
    @Override
    public Flux<PartitionFlux<K, V>> receivePartitioned() {
        return Flux.defer(() -> {
            Map<TopicPartition, Long> assignments = new HashMap<>(); // groupBy calls the key function serially
            Flux<ConsumerRecord<K, V>> withMarkers = new Flux<>() {
                @Override
                public void subscribe(CoreSubscriber<? super ConsumerRecord<K, V>> actual) {
                    subscribeReceive(actual, true);
                }
            };
            return withMarkers
                    .groupBy(r -> new PartitionKey(r.topicPartition(), PartitionMarkers.isAssigned(r)
                            ? assignments.merge(r.topicPartition(), 1L, Long::sum)
                            : assignments.getOrDefault(r.topicPartition(), 0L)))
                    .map(group -> PartitionFlux.of(group.key().tp(), group
                            .takeWhile(r -> !PartitionMarkers.isEnded(r))
                            .filter(r -> !PartitionMarkers.isAssigned(r))));
        });
    }

    /** A partition's n-th assignment in one receivePartitioned() subscription. */
    private record PartitionKey(TopicPartition tp, long assignment) {
    }

    @Override
    public Mono<Void> commit() {
        return Mono.defer(() -> closed && commits != null ? Mono.error(commitAfterClose())
                : withCommits(commits -> commits.commitAcknowledged(null)));
    }

    /**
     * {@code ConsumerRecord.commit()}: checked and released as {@link #commit()} is. After close (records still in
     * flight then), it succeeds when close() committed the record's offset, else fails with CommitFailedException:
     * the pipelines of the guide handle that error, an IllegalStateException would end them.
     */
    Mono<Void> commitRecord(io.kflux.commit.PartitionAssignment assignment, TopicPartition tp, long offset) {
        return Mono.defer(() -> closed && commits != null ? commits.commitRecordAfterClose(tp, offset)
                : withCommits(commits -> assignment == null ? commits.commitRecord(tp, offset)
                        : commits.commitRecord(assignment, offset)));
    }

    /** A commit asked for after close(): typed as the commit failure it is, not as a misuse. */
    private static io.kflux.CommitFailedException commitAfterClose() {
        return new io.kflux.CommitFailedException("this consumer is closed: nothing can be committed any more"
                + " (close() committed what was acknowledged before it)");
    }

    @Override
    public Mono<Void> commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Objects.requireNonNull(offsets, "offsets");
        if (offsets.isEmpty()) {
            // as documented: an empty map is a caller's mistake, not a commit that trivially succeeds
            return Mono.error(new IllegalArgumentException("offsets to commit must not be empty"));
        }
        Map<TopicPartition, CommitOffset> exact = new HashMap<>();
        offsets.forEach((tp, om) -> exact.put(tp, CommitOffset.of(om)));
        return Mono.defer(() -> closed && commits != null ? Mono.error(commitAfterClose())
                : withCommits(commits -> commits.commit(exact)));
    }

    @Override
    public Mono<Map<TopicPartition, OffsetAndMetadata>> committed(Set<TopicPartition> partitions) {
        Objects.requireNonNull(partitions, "partitions");
        return withCommits(commits -> commits.committer()
                .fetch(Set.copyOf(partitions), Duration.ofMillis(settings.defaultApiTimeoutMs()))
                .map(found -> {
                    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
                    found.forEach((tp, o) -> out.put(tp, o.toPublic()));
                    return out;
                }));
    }

    /** Runs {@code action} with the commit machinery; without a group.id commits are refused. */
    private <T> Mono<T> withCommits(java.util.function.Function<CommitManager, Mono<T>> action) {
        return Mono.defer(() -> {
            if (closed) {
                return Mono.error(closedError());
            }
            if (settings.groupId() == null) {
                return Mono.error(new ConfigException("group.id", null,
                        "a group id: offsets are committed to and read from the group coordinator"));
            }
            return withResources(r -> action.apply(commits));
        });
    }

    @Override
    public Mono<Void> seek(TopicPartition tp, long offset) {
        Objects.requireNonNull(tp, "tp");
        if (offset < 0) {
            return Mono.error(new IllegalArgumentException("offset must be >= 0, was " + offset));
        }
        return seekAll(Map.of(tp, startAt(offset)));
    }

    @Override
    public Mono<Void> seek(TopicPartition tp, OffsetAndMetadata offset) {
        Objects.requireNonNull(tp, "tp");
        Objects.requireNonNull(offset, "offset");
        return seekAll(Map.of(tp, CommitOffset.of(offset)));
    }

    private static IllegalStateException closedError() {
        return new IllegalStateException("this consumer is closed");
    }

    /** A position's leader epoch (of the record before it, -1 unknown) is validated before fetching (KIP-320). */
    private Mono<Void> seekAll(Map<TopicPartition, CommitOffset> positions) {
        return Mono.defer(() -> {
            if (closed) {
                return Mono.error(closedError());
            }
            checkAssigned(positions.keySet());
            ConsumerSession<K, V> session = active.get();
            if (session == null || session.isStopping()) {
                // A stopping session only remembers positions no seek has set since (see rememberPositions).
                startPositions.putAll(positions);
                return Mono.empty();
            }
            return session.onLoop(() -> {
                positions.forEach((tp, position) -> {
                    PartitionState ps = session.fetcher().partition(tp);
                    if (ps != null) {
                        ps.seekUnvalidated(position.offset(), position.leaderEpoch());
                    } else {
                        startPositions.put(tp, position); // assignment not applied yet: start there
                    }
                });
                session.fetcher().plan();
            });
        });
    }

    /** Manual assignment: the configured partitions; groups: what the member owns now. */
    private void checkAssigned(Collection<TopicPartition> partitions) {
        Collection<TopicPartition> assigned = assignment();
        for (TopicPartition tp : partitions) {
            if (!assigned.contains(tp)) {
                throw new IllegalStateException("No current assignment for partition " + tp);
            }
        }
    }

    @Override
    public Mono<Void> seekToBeginning(Collection<TopicPartition> partitions) {
        return seekToListed(partitions, -2L);
    }

    @Override
    public Mono<Void> seekToEnd(Collection<TopicPartition> partitions) {
        return seekToListed(partitions, -1L);
    }

    private Mono<Void> seekToListed(Collection<TopicPartition> partitions, long timestamp) {
        return Mono.defer(() -> {
            if (closed) {
                return Mono.error(closedError());
            }
            checkAssigned(partitions);
            return logBoundaries(partitions, timestamp).flatMap(listed -> {
                Map<TopicPartition, CommitOffset> positions = new HashMap<>();
                listed.forEach((tp, offset) -> positions.put(tp, startAt(Math.max(0L, offset))));
                return seekAll(positions);
            });
        });
    }

    private Mono<Map<TopicPartition, ListedOffset>> listOffsets(Map<TopicPartition, Long> query) {
        return withResources(r -> listOffsets(r, query));
    }

    private Mono<Map<TopicPartition, ListedOffset>> listOffsets(ClientResources r, Map<TopicPartition, Long> query) {
        Set<String> topics = new HashSet<>();
        query.keySet().forEach(tp -> topics.add(tp.topic()));
        Duration timeout = Duration.ofMillis(settings.defaultApiTimeoutMs());
        Mono<Void> ensureMetadata = r.metadata().current().topics().keySet().containsAll(topics)
                ? Mono.empty()
                : Mono.defer(() -> {
                    Set<String> wanted = new HashSet<>(r.metadata().current().topics().keySet());
                    wanted.addAll(topics);
                    wanted.addAll(topicsOf(options.assignedPartitions()));
                    r.metadata().interest(wanted, false);
                    // a cluster not reachable yet is the lookup's to wait for (its retries end in TimeoutException
                    // after default.api.timeout.ms); only errors that waiting cannot cure end it here
                    return r.metadata().refresh().then()
                            .onErrorResume(io.kflux.network.ConnectionFailedException.class, e -> Mono.empty());
                });
        return ensureMetadata.then(r.offsets().list(query, timeout));
    }

    private static Set<String> topicsOf(Collection<TopicPartition> partitions) {
        Set<String> topics = new HashSet<>();
        partitions.forEach(tp -> topics.add(tp.topic()));
        return topics;
    }

    @Override
    public Mono<Map<TopicPartition, OffsetAndTimestamp>> offsetsForTimes(Map<TopicPartition, Long> timestamps) {
        return Mono.defer(() -> {
            if (closed) {
                return Mono.error(closedError());
            }
            for (Map.Entry<TopicPartition, Long> e : timestamps.entrySet()) {
                if (e.getValue() < 0) {
                    return Mono.error(new IllegalArgumentException("timestamp of " + e.getKey()
                            + " must be >= 0 (ms since epoch), was " + e.getValue()));
                }
            }
            return listOffsets(timestamps).map(listed -> {
                Map<TopicPartition, OffsetAndTimestamp> out = new HashMap<>();
                timestamps.keySet().forEach(tp -> {
                    ListedOffset lo = listed.get(tp);
                    out.put(tp, lo == null || lo.offset() < 0 ? null : new OffsetAndTimestamp(lo.offset(), lo.timestamp()));
                });
                return out;
            });
        });
    }

    @Override
    public Mono<Void> pause(Collection<TopicPartition> partitions) {
        return setPaused(partitions, true);
    }

    @Override
    public Mono<Void> resume(Collection<TopicPartition> partitions) {
        return setPaused(partitions, false);
    }

    private Mono<Void> setPaused(Collection<TopicPartition> partitions, boolean pause) {
        return Mono.defer(() -> {
            if (closed) {
                return Mono.error(closedError());
            }
            checkAssigned(partitions);
            Consumer<TopicPartition> mark = pause ? paused::add : paused::remove;
            partitions.forEach(mark);
            ConsumerSession<K, V> session = active.get();
            if (session == null) {
                return Mono.empty();
            }
            return session.onLoop(() -> {
                for (TopicPartition tp : partitions) {
                    PartitionState ps = session.fetcher().partition(tp);
                    if (ps != null) {
                        ps.paused(pause);
                    }
                }
                if (!pause) {
                    session.emitter().unpark();
                }
                session.fetcher().plan();
            });
        });
    }

    @Override
    public Set<TopicPartition> paused() {
        return Set.copyOf(paused);
    }

    @Override
    public Set<TopicPartition> assignment() {
        if (closed) {
            return Set.of();
        }
        if (manualAssignment()) {
            return Set.copyOf(options.assignedPartitions()); // this consumer's across subscriptions (KafkaFluxConsumer)
        }
        ConsumerSession<K, V> session = active.get();
        return session == null ? Set.of() : session.assignment();
    }

    /** Fetched bytes not yet emitted, for the active subscription (0 without one). */
    public long bufferedBytes() {
        ConsumerSession<K, V> session = active.get();
        return session == null ? 0L : session.fetcher().bufferedBytes();
    }

    /**
     * Tells {@code listener} (null for none) about each Fetch request this consumer sends, from the
     * consumer's event loop: which broker, full or incremental (fetch sessions), which partitions it
     * lists and forgets. For diagnostics and tests; not API. Applies to the active subscription and
     * later ones.
     */
    public void fetchRequestListener(FetchRequestListener listener) {
        this.fetchRequestListener = listener;
        ConsumerSession<K, V> session = active.get();
        if (session != null) {
            session.fetcher().requestListener(listener);
        }
    }

    /**
     * The next offset this consumer emits for {@code tp}, or -1 when not known yet (no position, or awaiting a
     * reset). Without an active subscription it is where the next one starts (an explicit seek or where the last
     * one stopped). Never waits: {@link #position(TopicPartition)} is the API; tests poll this one.
     */
    public long currentPosition(TopicPartition tp) {
        ConsumerSession<K, V> session = active.get();
        PartitionState ps = session == null ? null : session.state(tp);
        if (ps != null) {
            return ps.position();
        }
        CommitOffset start = startPositions.get(tp);
        return start == null ? PartitionState.UNKNOWN : start.offset();
    }

    /** How often {@link #position(TopicPartition)} looks again while a position is being decided. */
    private static final Duration POSITION_POLL = Duration.ofMillis(10);

    @Override
    public Mono<Long> position(TopicPartition tp) {
        Objects.requireNonNull(tp, "tp");
        return Mono.defer(() -> {
            long now = positionNow(tp);
            if (now >= 0) {
                return Mono.just(now);
            }
            // The position is decided on the consumer's loop (OffsetFetch, ListOffsets); polling it keeps the
            // fetch layer free of callbacks, as ConsumerGroupContext.awaitStable does.
            Duration timeout = Duration.ofMillis(settings.defaultApiTimeoutMs());
            return Flux.interval(POSITION_POLL, IoLoops.timers())
                    .map(t -> positionNow(tp))
                    .filter(p -> p >= 0)
                    .next()
                    .timeout(timeout, Mono.error(() -> new io.kflux.TimeoutException("the position of " + tp
                            + " was not known within default.api.timeout.ms (" + timeout.toMillis() + " ms)")),
                            IoLoops.timers());
        });
    }

    /**
     * The position of {@code tp} as {@link #position} answers it: the offset, or -1 while the running subscription
     * is still deciding it. Throws {@link IllegalStateException} when no position will come: see
     * {@link KafkaFluxConsumer#position}'s rule for an ended {@code receive()}.
     */
    private long positionNow(TopicPartition tp) {
        if (closed) {
            throw closedError();
        }
        ConsumerSession<K, V> session = active.get();
        boolean running = session != null && !session.isStopping();
        CommitOffset start = running || !manualAssignment() ? null : startPositions.get(tp);
        if (start != null) {
            return start.offset(); // where the next receive() starts: a seek since, or where the last one stopped
        }
        PartitionState ps = session == null ? null : session.state(tp);
        if (ps != null && ps.position() >= 0) {
            return ps.position(); // the running subscription's, or the last known one while an ended one shuts down
        }
        if (running) {
            checkAssigned(List.of(tp));
            return PartitionState.UNKNOWN;
        }
        if (manualAssignment()) {
            checkAssigned(List.of(tp));
            throw new IllegalStateException("the position of " + tp + " is not known: receive() is not running, and "
                    + "neither a seek nor an earlier receive() fixed where the next one starts");
        }
        throw new IllegalStateException("receive() is not running (it has ended, or was never subscribed): this "
                + "consumer's group member owns no partition until the next receive() is assigned some (asked for "
                + tp + ")");
    }

    @Override
    public Mono<Map<TopicPartition, Long>> beginningOffsets(Collection<TopicPartition> partitions) {
        return logBoundaries(partitions, -2L);
    }

    @Override
    public Mono<Map<TopicPartition, Long>> endOffsets(Collection<TopicPartition> partitions) {
        return logBoundaries(partitions, -1L);
    }

    /** ListOffsets with -2 (log start) or -1 (high watermark, or last stable offset under read_committed). */
    private Mono<Map<TopicPartition, Long>> logBoundaries(Collection<TopicPartition> partitions, long timestamp) {
        Objects.requireNonNull(partitions, "partitions");
        return Mono.defer(() -> {
            if (closed) {
                return Mono.error(closedError());
            }
            if (partitions.isEmpty()) {
                return Mono.just(Map.of());
            }
            Map<TopicPartition, Long> query = new HashMap<>();
            partitions.forEach(tp -> query.put(Objects.requireNonNull(tp, "partition"), timestamp));
            return listOffsets(query).map(listed -> {
                Map<TopicPartition, Long> out = new HashMap<>();
                listed.forEach((tp, lo) -> out.put(tp, lo.offset()));
                return Map.copyOf(out);
            });
        });
    }

    @Override
    public OptionalLong currentLag(TopicPartition tp) {
        Objects.requireNonNull(tp, "tp");
        if (closed) {
            return OptionalLong.empty();
        }
        ConsumerSession<K, V> session = active.get();
        PartitionState ps = session == null ? null : session.state(tp);
        long end = ps == null || ps.isRevoked() ? PartitionState.UNKNOWN : ps.logEnd(readCommitted());
        if (ps == null && running() == null && manualAssignment()) {
            end = lastLogEnds.getOrDefault(tp, PartitionState.UNKNOWN); // the last subscription's last answer
        }
        long position;
        try {
            position = end < 0 ? PartitionState.UNKNOWN : positionNow(tp);
        } catch (IllegalStateException notAssigned) {
            return OptionalLong.empty();
        }
        return position < 0 ? OptionalLong.empty() : OptionalLong.of(Math.max(0L, end - position));
    }

    @Override
    public Mono<Void> close() {
        return close(Duration.ofMillis(settings.defaultApiTimeoutMs()));
    }

    @Override
    public Mono<Void> close(Duration timeout) {
        return Mono.defer(() -> {
            // process(): its records in flight finish first (within the budget), so the final commit has them
            ConsumerSession<K, V> running = active.get();
            long start = System.nanoTime();
            Mono<Void> finishing = running == null || running.isStopping() || closed ? Mono.empty()
                    : running.revocationHook().closing().timeout(timeout, Mono.empty(), IoLoops.timers());
            return finishing.then(Mono.defer(() -> {
                Duration left = timeout.minusNanos(System.nanoTime() - start);
                return closeNow(left.isNegative() ? Duration.ZERO : left);
            }));
        });
    }

    private Mono<Void> closeNow(Duration timeout) {
        return Mono.defer(() -> {
            closed = true;
            ConsumerSession<K, V> session = active.get();
            Mono<Void> stop;
            if (session != null && !session.isStopping()) {
                stop = session.close(); // commits what was acknowledged, then completes receive()
            } else {
                // receive() ended already (an error, a cancel) or never ran: what was acknowledged since is committed
                // here, after the ending subscription let go (a group member's revoke committed its part already)
                Mono<Void> stopped = session == null ? Mono.empty() : Mono.fromFuture(session.whenStopped());
                stop = stopped.then(finalCommit()).then(Mono.defer(this::releaseResources));
            }
            return stop.timeout(timeout, Mono.empty(), IoLoops.timers()).then(Mono.<Void>fromRunnable(this::closeDeserializers))
                    // before close() completes: whoever waited on it finds the meters gone
                    .doOnTerminate(metrics::close)
                    .doOnCancel(metrics::close);
        });
    }

    /** close() without an active subscription: commits acknowledged offsets, a failure logged as the session does. */
    private Mono<Void> finalCommit() {
        if (commits == null || commits.uncommitted((Set<TopicPartition>) null).isEmpty()) {
            return Mono.empty();
        }
        return withResources(r -> commits.commitAcknowledged(null)).onErrorResume(e -> {
            settings.logContext().run(() -> log.warn("commit on close failed: {}", e.toString()));
            return Mono.empty();
        });
    }

    private void closeDeserializers() {
        if (!deserializersClosed.compareAndSet(false, true)) {
            return;
        }
        closeQuietly("key", options.keyDeserializer());
        if (options.valueDeserializer() != (Object) options.keyDeserializer()) {
            closeQuietly("value", options.valueDeserializer());
        }
    }

    private static void closeQuietly(String which, io.kflux.Deserializer<?> deserializer) {
        try {
            deserializer.close();
        } catch (RuntimeException e) {
            // the consumer is closed either way; a failing close must not hide that
            log.warn("closing the {} deserializer {} failed", which, deserializer.getClass().getName(), e);
        }
    }
}
