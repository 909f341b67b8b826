package io.kflux.spring.boot;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Runs the application's {@link KfluxPipeline} beans within the context's lifecycle: subscribed in the last start
 * phase ({@link SmartLifecycle#DEFAULT_PHASE}, after the web server has started), and at shutdown, in the first stop
 * phase, each consumer is closed (acknowledged offsets committed, the group left unless {@code group.instance.id}
 * is set) within its {@code close-timeout}, all consumers at once. Spring waits for that up to
 * {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default).
 */
public final class KfluxPipelineRunner implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(KfluxPipelineRunner.class);

    /** The lifecycle's own state: the pipelines carry theirs in {@link PipelineState}. */
    private enum Phase { IDLE, RUNNING, STOPPED }

    private final Map<String, PipelineRun> runs = new LinkedHashMap<>();
    private volatile Phase phase = Phase.IDLE;

    /**
     * Pairs each pipeline with its consumer.
     *
     * @param consumers the starter's consumers
     * @param pipelines the application's pipelines
     * @throws IllegalStateException when a pipeline names no declared consumer, names none while several are
     *                               declared, or two pipelines are for one consumer
     */
    @SuppressWarnings("unchecked")
    public KfluxPipelineRunner(KfluxConsumers consumers, List<KfluxPipeline<?, ?>> pipelines) {
        for (KfluxPipeline<?, ?> pipeline : pipelines) {
            String name = pipeline.consumerName();
            if (name == null) {
                if (consumers.names().size() != 1) {
                    throw new IllegalStateException("a KfluxPipeline without a consumer name needs exactly one kflux "
                            + "consumer, but " + consumers.names() + " are declared: use KfluxPipeline.on(name, ...)");
                }
                name = consumers.names().iterator().next();
            }
            if (!consumers.names().contains(name)) {
                throw new IllegalStateException("a KfluxPipeline is for consumer '" + name
                        + "', which is not declared under kflux.consumers; declared: " + consumers.names());
            }
            if (runs.containsKey(name)) {
                throw new IllegalStateException("two KfluxPipeline beans are for consumer '" + name
                        + "'; a consumer runs one pipeline (declare another consumer for the second)");
            }
            runs.put(name, new PipelineRun(name, consumers.<Object, Object>consumer(name),
                    (KfluxPipeline<Object, Object>) pipeline, consumers.spec(name)));
        }
    }

    @Override
    public void start() {
        if (phase != Phase.IDLE) {
            return;
        }
        phase = Phase.RUNNING;
        runs.values().forEach(run -> {
            LOG.info("starting the kflux pipeline of consumer '{}'", run.name());
            run.start();
        });
    }

    @Override
    public void stop() {
        Duration longest = runs.values().stream().map(PipelineRun::closeTimeout).max(Duration::compareTo)
                .orElse(Duration.ZERO);
        stopAll().block(longest.plusSeconds(5));
    }

    @Override
    public void stop(Runnable callback) {
        stopAll().subscribe(null, e -> callback.run(), callback);
    }

    private Mono<Void> stopAll() {
        if (phase != Phase.RUNNING) {
            return Mono.empty();
        }
        phase = Phase.STOPPED;
        return Flux.fromIterable(runs.values())
                .flatMap(run -> run.stop().doOnSuccess(v -> LOG.info("closed the kflux consumer '{}'", run.name())))
                .then();
    }

    @Override
    public boolean isRunning() {
        return phase == Phase.RUNNING;
    }

    @Override
    public int getPhase() {
        return DEFAULT_PHASE;
    }

    /**
     * @param consumerName a consumer's name
     * @return its pipeline's run, when it has one
     */
    Optional<PipelineRun> run(String consumerName) {
        return Optional.ofNullable(runs.get(consumerName));
    }

    /**
     * @param consumerName a consumer's name
     * @return where its pipeline stands, empty when it has none
     */
    public Optional<PipelineState> state(String consumerName) {
        return run(consumerName).map(PipelineRun::state);
    }


}
