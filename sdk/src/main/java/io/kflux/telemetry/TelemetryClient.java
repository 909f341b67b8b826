package io.kflux.telemetry;

import io.kflux.network.IoLoops;
import io.kflux.metadata.MetadataManager;
import io.kflux.network.BrokerConnection;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.Errors;
import io.kflux.protocol.Types;
import io.kflux.protocol.message.GetTelemetrySubscriptionsRequest;
import io.kflux.protocol.message.PushTelemetryRequest;
import io.kflux.util.LogContext;
import io.kflux.util.SerialExecutor;
import io.kflux.util.WakeTimer;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * Client telemetry (KIP-714) on the wire: drives {@link TelemetryCore} with real time, sends its requests to the broker
 * {@link MetadataManager#anyBroker()} chooses (the KIP: any broker, the least loaded; the one owner of that choice),
 * builds each push with {@link TelemetryPayload}. A broker without the telemetry APIs ends telemetry quietly (the
 * KIP: do nothing). All state is confined to one {@link SerialExecutor}.
 */
public final class TelemetryClient {
    private static final Logger log = LoggerFactory.getLogger(TelemetryClient.class);

    private final MetadataManager metadata;
    private final Supplier<List<MetricPoint>> points;
    private final TelemetryPayload payload;
    private final Scheduler clock;
    private final SerialExecutor loop;
    private final TelemetryCore core;
    private final WakeTimer timer;
    private final AtomicReference<UUID> instanceId;
    private final Sinks.Empty<Void> terminated = Sinks.empty();
    private boolean warnedTooLarge;

    /**
     * @param metadata    chooses the broker
     * @param points      the client's metrics now, read at each push
     * @param payload     encodes a push
     * @param clock       time and timers (milliseconds of a monotonic clock)
     * @param instanceId  the consumer's client instance id across its {@code receive()} calls: read at start (the zero
     *                    uuid until a broker assigned one), set when a broker assigns one (KIP-714: one id for the
     *                    client's lifetime)
     * @param logContext  the client's log context
     */
    public TelemetryClient(MetadataManager metadata, Supplier<List<MetricPoint>> points, TelemetryPayload payload,
                           Scheduler clock, AtomicReference<UUID> instanceId, LogContext logContext) {
        this.metadata = metadata;
        this.points = points;
        this.payload = payload;
        this.clock = clock;
        this.loop = new SerialExecutor(e -> log.warn("client telemetry failed", e), logContext);
        this.instanceId = instanceId;
        this.core = new TelemetryCore(now(), ThreadLocalRandom.current()::nextDouble, instanceId.get());
        this.timer = new WakeTimer(clock, loop, this::step);
    }

    /** Starts: the first GetTelemetrySubscriptions goes out at once. */
    public void start() {
        loop.execute(this::step);
    }

    /**
     * Stops: one terminating push when a subscription wants metrics (KIP-714), then nothing more. Completes when that
     * push was answered or failed, or after {@code timeout} (the close timeout bounds it), never with an error.
     */
    public Mono<Void> close(Duration timeout) {
        loop.execute(() -> {
            if (core.close(now())) {
                step();
            } else {
                ended();
            }
        });
        return terminated.asMono().timeout(timeout, Mono.empty(), IoLoops.timers()).onErrorResume(e -> Mono.empty());
    }

    /** The state now (tests, logs); any thread reads a recent value. */
    public TelemetryState state() {
        return core.state();
    }

    private void step() {
        switch (core.poll(now())) {
            case GET_SUBSCRIPTION -> send(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS,
                    new GetTelemetrySubscriptionsRequest(core.clientInstanceId()), r -> {
                        core.onSubscription(now(), r);
                        if (!Types.isZero(core.clientInstanceId())) {
                            instanceId.set(core.clientInstanceId());
                        }
                        if (core.state() == TelemetryState.PUSH_NEEDED) {
                            log.debug("telemetry subscription {}: {} every {} ms", r.subscriptionId(),
                                    r.requestedMetrics(), r.pushIntervalMs());
                        } else if (r.errorCode() != 0) {
                            log.debug("GetTelemetrySubscriptions answered {}", Errors.nameOf(r.errorCode()));
                        }
                    });
            case PUSH -> push(false);
            case TERMINATING_PUSH -> push(true);
            case NONE -> { }
        }
        after();
    }

    private void push(boolean terminating) {
        TelemetrySubscription s = core.subscription();
        TelemetryPayload.Encoded encoded = payload.encode(points.get(), s, System.currentTimeMillis() * 1_000_000L);
        send(ApiKey.PUSH_TELEMETRY, new PushTelemetryRequest(s.clientInstanceId(), s.subscriptionId(), terminating,
                encoded.compressionType(), encoded.bytes()), r -> {
                    if (r.errorCode() == Errors.TELEMETRY_TOO_LARGE.code() && !warnedTooLarge) {
                        warnedTooLarge = true;
                        log.warn("the broker refused a telemetry push of {} bytes as too large (at most {})",
                                encoded.bytes().length, s.telemetryMaxBytes());
                    } else if (r.errorCode() != 0) {
                        log.debug("PushTelemetry answered {}", Errors.nameOf(r.errorCode()));
                    }
                    core.onPush(now(), r.errorCode());
                });
    }

    private <R> void send(ApiKey key, io.kflux.protocol.ApiRequest<R> request, Consumer<R> onAnswer) {
        metadata.anyBroker()
                .flatMap(connection -> supports(connection, key) ? connection.exchange(request)
                        : Mono.error(new UnsupportedApi()))
                .subscribe(r -> loop.execute(() -> {
                    onAnswer.accept(r);
                    after();
                }), e -> loop.execute(() -> {
                    if (e instanceof UnsupportedApi) {
                        log.debug("the broker does not offer client telemetry (KIP-714): none is sent");
                        core.onUnsupported();
                    } else {
                        log.debug("telemetry request failed: {}", e.toString());
                        core.onFailure(now());
                    }
                    after();
                }));
    }

    private static boolean supports(BrokerConnection connection, ApiKey key) {
        return connection.apiVersions().supports(key);
    }

    private void after() {
        if (core.state() == TelemetryState.TERMINATED) {
            ended();
        } else {
            timer.at(core.nextActionAtMs());
        }
    }

    private void ended() {
        timer.cancel();
        terminated.tryEmitEmpty();
    }

    private long now() {
        return clock.now(TimeUnit.MILLISECONDS);
    }

    /** The chosen broker lacks the API (a broker before Kafka 3.7, or one with telemetry off). */
    private static final class UnsupportedApi extends RuntimeException {
        UnsupportedApi() {
            super(null, null, false, false);
        }
    }
}
