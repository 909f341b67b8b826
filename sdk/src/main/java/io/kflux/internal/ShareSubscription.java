package io.kflux.internal;

import io.kflux.KafkaFluxException;
import io.kflux.ShareConsumerOptions;
import io.kflux.ShareRecord;
import io.kflux.group.ShareGroupMember;
import io.kflux.share.AcquiredBatch;
import io.kflux.share.ShareFetchConfig;
import io.kflux.share.ShareFetcher;
import io.kflux.util.Backoff;
import io.kflux.util.ClientMetrics;
import io.kflux.network.IoLoops;
import io.kflux.util.SerialExecutor;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;

/**
 * One {@code receive()} of a share consumer: its connections and metadata, the share member, the share fetcher
 * and the emitter, wired on one event loop. Stops once, whichever comes first (cancel, close, a fatal error):
 * emitter (releases what was not emitted), fetcher (flushes acknowledgements, closes the share sessions), member
 * (leaves the group), connections.
 */
final class ShareSubscription<K, V> {
    private static final Logger log = LoggerFactory.getLogger(ShareSubscription.class);

    private final ClientSettings settings;
    private final ClientResources resources;
    private final SerialExecutor loop;
    private final ShareEmitter<K, V> emitter;
    private final ShareFetcher fetcher;
    private final ShareGroupMember member;
    private final io.kflux.internal.metrics.ShareMeters meters;
    private final FluxSink<ShareRecord<K, V>> sink;
    private final AtomicReference<Mono<Void>> stopping = new AtomicReference<>();
    private Disposable metadataLoop;
    private Disposable fatalFailures;

    ShareSubscription(ShareConsumerOptions<K, V> options, ClientSettings settings, FluxSink<ShareRecord<K, V>> sink) {
        this.settings = settings;
        this.sink = sink;
        this.resources = ClientResources.create(settings, ClientMetrics.NONE);
        this.meters = io.kflux.internal.metrics.ShareMeters.create(
                options.consumerOptions().meterRegistry().orElse(null), settings.clientId());
        this.loop = new SerialExecutor(e -> log.error("share consumer task failed", e), settings.logContext());
        int maxRecords = settings.config().<Integer>get("max.poll.records");
        ShareFetchConfig fetchConfig = new ShareFetchConfig(settings.groupId(), settings.config().fetchMaxWaitMs(),
                settings.config().fetchMinBytes(), settings.config().fetchMaxBytes(), maxRecords,
                settings.retryBackoffMs(), settings.retryBackoffMaxMs());
        AtomicReference<ShareEmitter<K, V>> emitterRef = new AtomicReference<>();
        AtomicReference<ShareGroupMember> memberRef = new AtomicReference<>();
        this.fetcher = new ShareFetcher(fetchConfig, resources.connections(), resources.metadata(), loop,
                IoLoops.timers(), () -> memberRef.get().memberId(), meters,
                new ShareFetcher.Sink() {
                    @Override
                    public void onBatch(AcquiredBatch batch) {
                        emitterRef.get().offer(batch);
                    }

                    @Override
                    public void onFatalError(KafkaFluxException error) {
                        fail(error);
                    }

                    @Override
                    public boolean handingOut() {
                        return emitterRef.get().handingOut();
                    }

                    @Override
                    public long requested() {
                        return emitterRef.get().requested();
                    }

                    @Override
                    public long buffered() {
                        return emitterRef.get().buffered();
                    }
                });
        boolean explicit = options.acknowledgementMode() == ShareConsumerOptions.AcknowledgementMode.EXPLICIT;
        RecordBuilder<K, V> builder = new RecordBuilder<>(options.consumerOptions().keyDeserializer(),
                options.consumerOptions().valueDeserializer(),
                options.consumerOptions().deserializationErrorHandler(), null);
        this.emitter = new ShareEmitter<>(options.consumerOptions().emitScheduler().orElseGet(EmitScheduler::shared)
                .createWorker(), builder, fetcher, explicit, sink,
                io.kflux.internal.metrics.RecordTracing.create(
                        options.consumerOptions().observationRegistry().orElse(null), settings.clientId(),
                        settings.groupId()), settings.logContext());
        emitterRef.set(emitter);
        this.member = new ShareGroupMember(settings.groupId(), options.subscribedTopics(),
                settings.config().clientRack(), new Backoff(settings.retryBackoffMs(), settings.retryBackoffMaxMs()),
                resources.connections(), resources.metadata(), resources.coordinator(), loop,
                settings.requestTimeoutMs(), settings.config().sessionTimeoutMs(), new ShareGroupMember.Listener() {
                    @Override
                    public void onAssignment(java.util.Map<io.kflux.TopicPartition, java.util.UUID> partitions,
                                             boolean lost) {
                        log.info("share group {} assigned {}{}", settings.groupId(), partitions.keySet(),
                                lost ? " (the previous assignment was lost)" : "");
                        if (lost) {
                            fetcher.assignmentLost();
                        }
                        fetcher.assign(partitions);
                    }

                    @Override
                    public void onFatalError(KafkaFluxException error) {
                        fail(error);
                    }
                });
        memberRef.set(member);
    }

    void start() {
        fatalFailures = resources.connections().onFatalFailure(this::fail);
        metadataLoop = resources.metadata().refreshEvery(Duration.ofMillis(settings.metadataMaxAgeMs()))
                .subscribe(c -> { }, e -> log.debug("metadata refresh loop ended: {}", e.toString()));
        sink.onRequest(emitter::request);
        sink.onCancel(() -> stop(Duration.ofMillis(settings.requestTimeoutMs())).subscribe());
        member.start();
    }

    /** Stops once, then completes the stream; later calls share the first stop. */
    Mono<Void> stop(Duration timeout) {
        return stop(timeout, null);
    }

    /** Stops once, then ends the stream with {@code error} (null: completes); later calls share the first stop. */
    Mono<Void> stop(Duration timeout, Throwable error) {
        // each step deferred: fetcher.close() and member.leave() act when called, and the emitter's stop hands its
        // last acknowledgements (implicit ACCEPTs, RELEASEs of what was not emitted) over on its own worker, later;
        // called eagerly, the closing requests went first and those acknowledgements were refused (s21-user finding 4)
        Mono<Void> s = Mono.defer(() -> emitter.stop()
                        .then(Mono.defer(fetcher::close))
                        .then(Mono.defer(member::leave))
                        .timeout(timeout, IoLoops.timers())
                        .onErrorResume(e -> {
                            log.warn("share consumer close did not finish within {}: {}", timeout, e.toString());
                            return Mono.empty();
                        }))
                .then(Mono.defer(() -> {
                    dispose(metadataLoop);
                    dispose(fatalFailures);
                    meters.close();
                    return resources.close().onErrorResume(e -> Mono.empty());
                }))
                .doFinally(x -> {
                    if (error == null) {
                        sink.complete();
                    } else {
                        sink.error(error);
                    }
                })
                .cache();
        if (stopping.compareAndSet(null, s)) {
            return s;
        }
        return stopping.get();
    }

    private void fail(KafkaFluxException error) {
        stop(Duration.ofMillis(settings.requestTimeoutMs()), error).subscribe();
    }

    private static void dispose(Disposable d) {
        if (d != null) {
            d.dispose();
        }
    }
}
