package io.kflux.spring.boot;

import io.kflux.KafkaFluxConsumer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * One pipeline subscribed to its consumer: the subscription, the restart-with-backoff policy and the
 * {@link PipelineState} its health indicator reads. Thread-safe.
 */
final class PipelineRun {
    private static final Logger LOG = LoggerFactory.getLogger(PipelineRun.class);

    private final String name;
    private final KafkaFluxConsumer<Object, Object> consumer;
    private final KfluxPipeline<Object, Object> pipeline;
    private final KfluxProperties.Consumer spec;
    private final AtomicReference<PipelineState> state = new AtomicReference<>(PipelineState.NEW);
    private final AtomicReference<String> lastError = new AtomicReference<>();
    private final AtomicInteger restarts = new AtomicInteger();
    private volatile Disposable subscription;

    PipelineRun(String name, KafkaFluxConsumer<Object, Object> consumer, KfluxPipeline<Object, Object> pipeline,
                KfluxProperties.Consumer spec) {
        this.name = name;
        this.consumer = consumer;
        this.pipeline = pipeline;
        this.spec = spec;
    }

    /** Subscribes to the pipeline; a failure is logged and handled as {@code on-failure} says. */
    void start() {
        Retry restart = Retry.backoff(Long.MAX_VALUE, spec.getRestartBackoff())
                .maxBackoff(spec.getRestartMaxBackoff())
                .jitter(0.5)
                .filter(e -> spec.getOnFailure() == KfluxProperties.OnFailure.RESTART && moveTo(PipelineState.BACKING_OFF))
                .doBeforeRetry(signal -> restarts.incrementAndGet());
        subscription = Flux.defer(() -> {
                    moveTo(PipelineState.RUNNING);
                    return Flux.from(pipeline.run(consumer));
                })
                .doOnError(this::logFailure)
                .retryWhen(restart)
                .subscribe(ignored -> { }, e -> moveTo(PipelineState.FAILED), () -> moveTo(PipelineState.COMPLETED));
    }

    private void logFailure(Throwable e) {
        lastError.set(e.getClass().getName() + ": " + e.getMessage());
        if (state.get() != PipelineState.STOPPING) {
            LOG.error("kflux pipeline of consumer '{}' failed ({}); on-failure={}", name, e, spec.getOnFailure(), e);
        }
    }

    /**
     * Closes the consumer (final commit of acknowledged offsets, LeaveGroup unless a static member) within its
     * {@code close-timeout}, then ends the subscription.
     *
     * @return completes when closed
     */
    Mono<Void> stop() {
        if (!moveTo(PipelineState.STOPPING)) {
            return Mono.empty();
        }
        return consumer.close(spec.getCloseTimeout())
                .doFinally(signal -> {
                    Disposable running = subscription;
                    if (running != null) {
                        running.dispose();
                    }
                    moveTo(PipelineState.STOPPED);
                });
    }

    private boolean moveTo(PipelineState target) {
        PipelineState current = state.get();
        while (current.canMoveTo(target)) {
            if (state.compareAndSet(current, target)) {
                return true;
            }
            current = state.get();
        }
        return false;
    }

    String name() {
        return name;
    }

    PipelineState state() {
        return state.get();
    }

    /** @return class and message of the last failure, or {@code null} */
    String lastError() {
        return lastError.get();
    }

    int restarts() {
        return restarts.get();
    }

    Duration closeTimeout() {
        return spec.getCloseTimeout();
    }
}
