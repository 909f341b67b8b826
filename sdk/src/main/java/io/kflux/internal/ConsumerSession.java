package io.kflux.internal;

import io.kflux.ConsumerRecord;
import io.kflux.Deserializer;
import io.kflux.TimeoutException;
import io.kflux.TopicPartition;
import io.kflux.ConsumerOptions;
import io.kflux.commit.CommitManager;
import io.kflux.internal.processing.RevocationHook;
import io.kflux.commit.CommitOffset;
import io.kflux.group.ClassicGroupMember;
import io.kflux.group.ConsumerGroupConfig;
import io.kflux.group.ConsumerGroupMember;
import io.kflux.group.GroupMember;
import io.kflux.group.GroupConfig;
import io.kflux.internal.config.OptionsAccess;
import io.kflux.internal.config.ConsumerConfig;
import io.kflux.internal.config.GroupProtocol;
import io.kflux.fetch.CompletedFetch;
import io.kflux.fetch.FetchSink;
import io.kflux.fetch.Fetcher;
import io.kflux.fetch.PartitionState;
import io.kflux.internal.metrics.ConsumerMetrics;
import io.kflux.metadata.Cluster;
import io.kflux.telemetry.TelemetryClient;
import io.kflux.telemetry.TelemetryPayload;
import io.kflux.network.IoLoops;
import io.kflux.util.SerialExecutor;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.util.retry.Retry;

/**
 * One subscription of {@code receive()}: from subscribe to cancel, error or close. Owns the event
 * loop, the fetcher and the emitter; every state change runs as a task of {@link #loop}.
 *
 * <p><b>Why one class past 500 lines.</b> One subscription's lifetime: it wires fetcher, emitter, commits and the
 * group member, and owns the ordering between them on start and stop (revoke before fetch stops, commit before
 * resources go). Moving parts of that ordering elsewhere would spread one sequence over several files.
 */
final class ConsumerSession<K, V> implements FetchSink {
    private static final Logger log = LoggerFactory.getLogger(ConsumerSession.class);
    private static final AtomicBoolean TELEMETRY_UNAVAILABLE_LOGGED = new AtomicBoolean();
    /** How often the lag of paused partitions is refreshed while metrics are on (see watchPausedLag). */
    static final long PAUSED_LAG_INTERVAL_MS = 1_000;

    private final DefaultKafkaFluxConsumer<K, V> consumer;
    private final ClientSettings settings;
    private final ClientResources resources;
    private final SerialExecutor loop;
    private final Fetcher fetcher;
    private final RecordEmitter<K, V> emitter;
    private final Scheduler.Worker worker;
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final CompletableFuture<Void> stoppedFuture = new CompletableFuture<>();
    private volatile Set<TopicPartition> assignment = Set.of();
    /** The assigned partitions' states, republished whole on each assignment: readable from any thread. */
    private volatile Map<TopicPartition, PartitionState> states = Map.of();
    private Disposable metadataRefreshLoop;
    private Disposable pausedLagLoop;
    private Disposable autoCommitLoop;
    private Disposable heldBackWatch;
    private Disposable pollIntervalLoop;
    /** TLS and SASL refusals end the subscription whichever loop met them (never a silent reconnect loop). */
    private final Disposable authenticationFailures;
    /** Client telemetry (KIP-714), null when {@code enable.metrics.push} is false or there are no meters to push. */
    private final TelemetryClient telemetry;
    private GroupMember member;
    private boolean pollExpired;
    private final io.kflux.util.LogContext logContext;
    /** receivePartitioned(): the emitter gets marker records where partitions start and end. */
    private volatile boolean partitioned;
    /** process(): told of revoked and lost partitions; {@link RevocationHook#NONE} otherwise. */
    private volatile RevocationHook revocationHook = RevocationHook.NONE;
    /** receiveBatches(): the emitter hands over batches; named by a second subscription's error. */
    private final boolean batches;

    ConsumerSession(DefaultKafkaFluxConsumer<K, V> consumer, ClientSettings settings, ClientResources resources,
                    Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer,
                    Downstream<K, V> actual) {
        this.consumer = consumer;
        this.settings = settings;
        this.resources = resources;
        this.logContext = settings.logContext();
        this.batches = actual.batches() != null;
        this.loop = new SerialExecutor(this::onLoopError, logContext);
        // the user's scheduler, else the JVM-wide default; either way only this worker is disposed, at stop
        this.worker = consumer.options().emitScheduler().orElseGet(EmitScheduler::shared).createWorker();
        this.fetcher = new Fetcher(settings.fetch(), resources.connections(), resources.metadata(), resources.offsets(),
                settings.autoOffsetReset(), settings.autoOffsetResetDurationMs(), loop, this);
        RecordEmitter.Returns returns = new RecordEmitter.Returns() {
            @Override
            public void consumed(CompletedFetch cf) {
                loop.execute(() -> fetcher.onConsumed(cf));
            }

            @Override
            public void outOfOrder(CompletedFetch cf) {
                loop.execute(() -> fetcher.onOutOfOrder(cf));
            }
        };
        CommitManager commits = consumer.commits();
        AckHandle ackHandle = new CommitAckHandle(consumer, null);
        RecordEmitter.Progress progress = commits == null ? RecordEmitter.Progress.NONE : new RecordEmitter.Progress() {
            @Override
            public AckHandle positioned(TopicPartition tp, long position, int epoch) {
                return new CommitAckHandle(consumer, commits.track(tp, position, epoch));
            }

            @Override
            public void leaderEpoch(TopicPartition tp, long offset, int epoch) {
                commits.leaderEpoch(tp, offset, epoch);
            }

            @Override
            public void skipped(TopicPartition tp, long from, long to) {
                commits.skip(tp, from, to);
            }
        };
        this.emitter = new RecordEmitter<>(actual, keyDeserializer, valueDeserializer,
                consumer.options().deserializationErrorHandler(), ackHandle,
                settings.fetch().checkCrcs(), returns, this::stop, worker, progress, logContext);
        fetcher.metrics(consumer.metrics());
        emitter.metrics(consumer.metrics());
        emitter.tracing(consumer.tracing());
        this.authenticationFailures = resources.connections().onFatalFailure(e -> loop.execute(() -> fail(e)));
        this.telemetry = telemetry(settings, resources, consumer.metrics(), consumer.telemetryInstanceId());
        if (telemetry != null) {
            telemetry.start();
        }
    }

    RecordEmitter<K, V> emitter() {
        return emitter;
    }

    /** Set before start for receivePartitioned(). */
    void partitioned(boolean partitioned) {
        this.partitioned = partitioned;
    }

    /** Whether this session serves receivePartitioned(). */
    boolean isPartitioned() {
        return partitioned;
    }

    /** Whether this session serves receiveBatches(). */
    boolean isBatches() {
        return batches;
    }

    /**
     * Called on the loop with newly assigned partitions, positioned or awaiting a reset, under a manual assignment and
     * a group alike: their states become readable from any thread ({@link #state}: position, currentLag), then they
     * are fetched. The one place states are published: a group assignment that went straight to the fetcher left
     * position() and currentLag() blind under groups (issue #25).
     */
    void startPartitions(Map<TopicPartition, PartitionState> started) {
        Map<TopicPartition, PartitionState> all = new LinkedHashMap<>(states);
        all.putAll(started);
        states = Map.copyOf(all);
        partitionsStarted(started.keySet());
        fetcher.assign(started);
    }

    /** Called on the loop: {@code partitions} are no longer fetched and their states no longer answer. */
    void stopPartitions(Set<TopicPartition> partitions) {
        fetcher.revoke(partitions);
        Map<TopicPartition, PartitionState> left = new LinkedHashMap<>(states);
        left.keySet().removeAll(partitions);
        states = Map.copyOf(left);
        partitionsEnded(partitions);
    }

    /** Set before start for process(). */
    void revocationHook(RevocationHook hook) {
        this.revocationHook = hook;
    }

    RevocationHook revocationHook() {
        return revocationHook;
    }

    /** Called on the loop before {@code partitions} are first fetched (receivePartitioned: a new inner flux each). */
    private void partitionsStarted(Collection<TopicPartition> partitions) {
        CommitManager commits = consumer.commits();
        if (commits != null) {
            partitions.forEach(tp -> consumer.metrics().uncommitted(tp.topic(), tp.partition(),
                    () -> commits.uncommitted(tp)));
        }
        if (partitioned) {
            partitions.forEach(tp -> emitter.mark(PartitionMarkers.assigned(tp)));
        }
    }

    /** Called on the loop once {@code partitions} stopped being fetched (receivePartitioned: their inner fluxes end). */
    private void partitionsEnded(Collection<TopicPartition> partitions) {
        if (partitioned) {
            partitions.forEach(tp -> emitter.mark(PartitionMarkers.ended(tp)));
        }
    }

    SerialExecutor loop() {
        return loop;
    }

    Fetcher fetcher() {
        return fetcher;
    }

    Set<TopicPartition> assignment() {
        return assignment;
    }

    void assignment(Set<TopicPartition> partitions) {
        this.assignment = Set.copyOf(partitions);
    }

    DefaultKafkaFluxConsumer<K, V> consumer() {
        return consumer;
    }

    /** Put in the MDC around log lines written off the loop (callbacks on Netty or timer threads). */
    io.kflux.util.LogContext logContext() {
        return logContext;
    }

    ClientResources resources() {
        return resources;
    }

    /** Runs {@code task} on the loop; the Mono completes after it ran. */
    Mono<Void> onLoop(Runnable task) {
        return Mono.create(sink -> loop.execute(() -> {
            try {
                task.run();
                sink.success();
            } catch (RuntimeException e) {
                sink.error(e);
            }
        }));
    }

    /** Starts a group subscription: the member joins and assignments arrive through the rebalance handler. */
    void startGroup() {
        ConsumerOptions<K, V> options = consumer.options();
        ConsumerConfig c = OptionsAccess.config(options);
        GroupRebalanceHandler<K, V> handler = new GroupRebalanceHandler<>(this, options.rebalanceListener(),
                consumer.commits(), Duration.ofMillis(c.maxPollIntervalMs()),
                Duration.ofMillis(settings.defaultApiTimeoutMs()));
        if (c.groupProtocol() == GroupProtocol.CONSUMER) {
            ConsumerGroupConfig config = settings.consumerGroup();
            member = new ConsumerGroupMember(config, resources.connections(), resources.metadata(),
                    resources.coordinator(), loop, handler);
        } else {
            GroupConfig config = settings.classicGroup();
            member = new ClassicGroupMember(config, resources.connections(), resources.metadata(),
                    resources.coordinator(), loop, handler);
        }
        member.metrics(consumer.metrics());
        handler.member(member);
        consumer.groupContext().member(member);
        if (options.subscriptionType() == ConsumerOptions.SubscriptionType.PATTERN) {
            resources.metadata().interest(Set.of(), true);
            member.subscribe(options.subscribedPattern().orElseThrow());
        } else {
            resources.metadata().interest(options.subscribedTopics(), false);
            member.subscribe(options.subscribedTopics());
        }
        loop.execute(member::start);
        if (settings.enableAutoCommit()) {
            autoCommitLoop = consumer.commits().startAutoCommit(Duration.ofMillis(settings.autoCommitIntervalMs()));
        }
        watchHeldBackCommits();
        long maxPollNanos = Duration.ofMillis(c.maxPollIntervalMs()).toNanos();
        pollIntervalLoop = Flux.interval(Duration.ofMillis(Math.min(1000, Math.max(10, c.maxPollIntervalMs() / 10))),
                        IoLoops.timers())
                .onBackpressureDrop()
                .subscribe(t -> loop.execute(() -> checkPollInterval(maxPollNanos)));
        metadataRefreshLoop = resources.metadata().refreshEvery(Duration.ofMillis(settings.metadataMaxAgeMs()))
                .subscribe(cl -> loop.execute(fetcher::plan));
        watchPausedLag();
    }

    /**
     * max.poll.interval.ms for a reactive subscriber: records were emitted and downstream asked for
     * no more for that long. The member leaves the group (its partitions go to others) and rejoins
     * once demand returns, as the official client does when poll() is not called in time.
     */
    private void checkPollInterval(long maxPollNanos) {
        if (member == null || stopped.get()) {
            return;
        }
        long stalled = emitter.demandExhaustedNanos();
        if (!pollExpired && stalled > maxPollNanos) {
            pollExpired = true;
            log.warn("no demand for {} ms after records were emitted (max.poll.interval.ms): leaving the group "
                    + "until the subscriber requests more", stalled / 1_000_000);
            member.pollTimeoutExpired();
        } else if (pollExpired && stalled == 0L) {
            pollExpired = false;
            log.info("demand is back: rejoining the group");
            member.pollResumed();
        }
    }

    /** Starts the session: metadata for the assigned topics, then positions, then fetching. */
    void start(Collection<TopicPartition> partitions) {
        Set<String> topics = new java.util.HashSet<>();
        partitions.forEach(tp -> topics.add(tp.topic()));
        resources.metadata().interest(topics, false);
        Duration timeout = Duration.ofMillis(settings.defaultApiTimeoutMs());
        // defer: refresh() returns a cached Mono that replays its error, so a retry must ask for a new refresh
        Mono.defer(() -> resources.metadata().refresh())
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(settings.reconnectBackoffMs()))
                        .maxBackoff(Duration.ofMillis(Math.max(settings.reconnectBackoffMs(), settings.reconnectBackoffMaxMs())))
                        .scheduler(IoLoops.timers())
                        .doBeforeRetry(s -> log.debug("bootstrap metadata failed ({}), retrying", s.failure().toString())))
                .timeout(timeout, Mono.error(() -> new TimeoutException("no broker of bootstrap.servers "
                        + io.kflux.util.HostPort.of(settings.bootstrapServers()) + " answered within default.api.timeout.ms (" + timeout.toMillis() + " ms)")), IoLoops.timers())
                .flatMap(cluster -> committedOffsets(partitions).map(committed -> {
                    loop.execute(() -> assign(partitions, cluster, committed));
                    return cluster;
                }))
                .subscribe(cluster -> { }, this::fail);
        if (consumer.commits() != null && settings.enableAutoCommit()) {
            autoCommitLoop = consumer.commits().startAutoCommit(Duration.ofMillis(settings.autoCommitIntervalMs()));
        }
        if (consumer.commits() != null) {
            watchHeldBackCommits();
        }
        metadataRefreshLoop = resources.metadata().refreshEvery(Duration.ofMillis(settings.metadataMaxAgeMs()))
                .subscribe(c -> loop.execute(fetcher::plan));
        watchPausedLag();
    }

    /**
     * With metrics on, the lag of paused partitions stays current: they are not fetched, so no Fetch answer brings
     * their log end; a ListOffsets (latest, or last stable under read_committed) every
     * {@value #PAUSED_LAG_INTERVAL_MS} ms does, only while some are paused. Without it the lag of a paused
     * partition would stand still while producers go on, hiding exactly what an operator watches it for.
     */
    private void watchPausedLag() {
        if (!consumer.metrics().enabled()) {
            return;
        }
        boolean readCommitted = settings.fetch().isolationLevel() == 1;
        Duration timeout = Duration.ofMillis(settings.requestTimeoutMs());
        pausedLagLoop = Flux.interval(Duration.ofMillis(PAUSED_LAG_INTERVAL_MS), IoLoops.timers())
                .onBackpressureDrop()
                .concatMap(t -> Mono.<Map<TopicPartition, PartitionState>>create(sink -> loop.execute(() -> {
                    Map<TopicPartition, PartitionState> paused = new LinkedHashMap<>();
                    fetcher.partitions().forEach((tp, ps) -> {
                        if (ps.isPaused()) {
                            paused.put(tp, ps);
                        }
                    });
                    sink.success(paused);
                })).flatMap(paused -> {
                    if (paused.isEmpty()) {
                        return Mono.empty();
                    }
                    Map<TopicPartition, Long> latest = new LinkedHashMap<>();
                    paused.keySet().forEach(tp -> latest.put(tp, -1L)); // ListOffsets' LATEST_TIMESTAMP
                    return resources.offsets().list(latest, timeout)
                            .doOnNext(found -> loop.execute(() -> found.forEach((tp, listed) -> {
                                PartitionState ps = paused.get(tp); // written on the loop, as Fetch answers are
                                if (ps != null && listed != null && listed.offset() >= 0) {
                                    ps.logEndListed(listed.offset(), readCommitted);
                                }
                            })))
                            .onErrorResume(e -> {
                                log.debug("listing the end of paused partitions failed: {}", e.toString());
                                return Mono.empty();
                            });
                }), 0)
                .subscribe();
    }

    /**
     * A record not acknowledged for max.poll.interval.ms while later ones were is reported: the same bound the
     * official client puts on processing what one poll() returned.
     */
    private void watchHeldBackCommits() {
        heldBackWatch = consumer.commits().startHeldBackWatch(
                Duration.ofMillis(OptionsAccess.config(consumer.options()).maxPollIntervalMs()));
    }

    /** With a group.id, partitions start at their committed offsets (those without an explicit start position). */
    private Mono<Map<TopicPartition, CommitOffset>> committedOffsets(Collection<TopicPartition> partitions) {
        if (consumer.commits() == null) {
            return Mono.just(Map.of());
        }
        Set<TopicPartition> unknown = new java.util.HashSet<>();
        for (TopicPartition tp : partitions) {
            if (consumer.initialPosition(tp) == null) {
                unknown.add(tp);
            }
        }
        return consumer.commits().fetchCommitted(unknown, Duration.ofMillis(settings.defaultApiTimeoutMs()));
    }

    private void assign(Collection<TopicPartition> partitions, Cluster cluster, Map<TopicPartition, CommitOffset> committed) {
        if (stopped.get()) {
            return;
        }
        Map<TopicPartition, PartitionState> states = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            // a partition missing from metadata is reported by the fetcher while it stays missing (Fetcher.leaderless)
            PartitionState ps = new PartitionState(tp);
            ps.paused(consumer.initiallyPaused(tp));
            CommitOffset position = consumer.takeInitialPosition(tp);
            if (position == null) {
                position = committed.get(tp);
            }
            if (position != null) {
                ps.seekUnvalidated(position.offset(), position.leaderEpoch());
            } else {
                ps.requireReset();
            }
            states.put(tp, ps);
        }
        assignment = Set.copyOf(states.keySet());
        startPartitions(states);
    }

    // FetchSink: called on the loop.
    @Override
    public void accept(CompletedFetch fetch) {
        emitter.offer(fetch);
    }

    @Override
    public void fail(Throwable error) {
        emitter.fail(error);
    }

    private void onLoopError(Throwable t) {
        log.error("kflux consumer event loop task failed", t);
        emitter.fail(t);
    }

    /** LeaveGroup (the member skips it for static members), bounded by the request timeout. */
    private Mono<Void> leaveGroup(String reason) {
        GroupMember m = member;
        if (m == null) {
            return Mono.empty();
        }
        return m.leave(reason).timeout(Duration.ofMillis(settings.requestTimeoutMs()), Mono.empty(), IoLoops.timers())
                .onErrorResume(e -> {
                    logContext.run(() -> log.debug("LeaveGroup failed: {}", e.toString()));
                    return Mono.empty();
                });
    }

    /**
     * Commits acknowledged offsets, then ends the flux normally. Not conditional on enable.auto.commit (it was):
     * acknowledged means processed, so a clean close leaves no acknowledged record uncommitted.
     */
    Mono<Void> close() {
        if (stopped.get()) {
            return Mono.fromFuture(stoppedFuture);
        }
        Mono<Void> finalCommit = consumer.commits() != null
                ? consumer.commits().commitAcknowledged(null).onErrorResume(e -> {
                    logContext.run(() -> log.warn("commit on close failed: {}", e.toString()));
                    return Mono.empty();
                })
                : Mono.empty();
        return finalCommit.then(Mono.defer(() -> {
            emitter.complete();
            return Mono.fromFuture(stoppedFuture);
        }));
    }

    /** Called once the emitter has terminated or was cancelled: release everything. */
    void stop() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        if (metadataRefreshLoop != null) {
            metadataRefreshLoop.dispose();
        }
        if (pausedLagLoop != null) {
            pausedLagLoop.dispose();
        }
        if (autoCommitLoop != null) {
            autoCommitLoop.dispose();
        }
        if (heldBackWatch != null) {
            heldBackWatch.dispose();
        }
        if (pollIntervalLoop != null) {
            pollIntervalLoop.dispose();
        }
        authenticationFailures.dispose();
        // Leave and close the fetch sessions first (both need the connections), then release everything. In
        // parallel: each may wait for a broker (a Fetch still long-polling answers before the close).
        Mono.when(leaveGroup("the consumer stopped"), closeFetchSessions(), closeTelemetry()).then(onLoop(() -> {
            if (member != null) {
                member.close();
                consumer.groupContext().memberGone(member);
            }
            consumer.rememberPositions(fetcher.partitions());
            fetcher.close();
            consumer.sessionEnded(this).doFinally(s -> stoppedFuture.complete(null)).subscribe();
            try {
                worker.schedule(worker::dispose); // after any drain already queued on it
            } catch (java.util.concurrent.RejectedExecutionException e) {
                worker.dispose(); // its scheduler was disposed: nothing runs there any more
            }
        })).subscribe(v -> { }, e -> {
            log.debug("stopping failed", e);
            // never leave the consumer with a dead "active" session: a new receive() waits for this one
            consumer.sessionEnded(this).doFinally(s -> stoppedFuture.complete(null)).subscribe();
        });
    }

    /**
     * The telemetry of this session, or null: {@code enable.metrics.push} off, or Micrometer (which holds the meters
     * pushed) not on the class path, said once at INFO. Labels as KIP-714's client resource labels.
     */
    private static TelemetryClient telemetry(ClientSettings settings, ClientResources resources, ConsumerMetrics metrics,
                                             AtomicReference<UUID> instanceId) {
        if (!settings.config().metricsPush()) {
            return null;
        }
        if (metrics == ConsumerMetrics.NONE) {
            if (TELEMETRY_UNAVAILABLE_LOGGED.compareAndSet(false, true)) {
                log.info("enable.metrics.push: no client telemetry is pushed, Micrometer (micrometer-core), which "
                        + "holds the metrics to push, is not on the class path");
            }
            return null;
        }
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("client_id", settings.clientId());
        labels.put("group_id", settings.groupId());
        labels.put("group_instance_id", settings.config().groupInstanceId().orElse(null));
        labels.put("client_rack", settings.config().clientRack());
        return new TelemetryClient(resources.metadata(), metrics::telemetryPoints,
                new TelemetryPayload(labels, System.currentTimeMillis() * 1_000_000L), IoLoops.timers(),
                instanceId, settings.logContext());
    }

    /** The terminating push (KIP-714), bounded by the request timeout as the fetch sessions' close is. */
    private Mono<Void> closeTelemetry() {
        return telemetry == null ? Mono.empty() : telemetry.close(Duration.ofMillis(settings.requestTimeoutMs()));
    }

    /** Best effort, bounded by the request timeout as the official client's close is. */
    private Mono<Void> closeFetchSessions() {
        Duration timeout = Duration.ofMillis(settings.requestTimeoutMs());
        return Mono.<Mono<Void>>create(sink -> loop.execute(() -> sink.success(fetcher.closeSessions(timeout))))
                .flatMap(closing -> closing)
                .onErrorResume(e -> {
                    log.debug("closing fetch sessions failed: {}", e.toString());
                    return Mono.empty();
                });
    }

    /** True once the subscription was cancelled or terminated: it no longer counts as active for a new one. */
    boolean isStopping() {
        return stopped.get() || emitter.isCancelled();
    }

    /** Completes once {@link #stop()} has released everything (the consumer's active session is cleared by then). */
    CompletableFuture<Void> whenStopped() {
        return stoppedFuture;
    }

    /** The partition's state once the assignment is applied, else null; any thread. */
    PartitionState state(TopicPartition tp) {
        return states.get(tp);
    }

    List<TopicPartition> assignedList() {
        return List.copyOf(assignment);
    }
}
