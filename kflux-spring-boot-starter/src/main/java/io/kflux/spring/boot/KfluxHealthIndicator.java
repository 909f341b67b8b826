package io.kflux.spring.boot;

import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The health of one kflux consumer, under {@code /actuator/health/kflux/<name>}: DOWN when its pipeline failed
 * with {@code on-failure=down} or is backing off before a restart, OUT_OF_SERVICE while the context shuts down,
 * UP otherwise. Details: {@code state} (a {@link PipelineState}, or {@code NO_PIPELINE}), {@code restarts},
 * {@code lastError} (class and message), {@code assignment} (sorted {@code topic-partition} names) and {@code lag}
 * per partition with {@code totalLag}, from the consumer's own {@link KafkaFluxConsumer#currentLag} (records it
 * has not emitted yet, as of its last fetch; partitions with no figure yet are left out). Reads no broker.
 */
public final class KfluxHealthIndicator implements HealthIndicator {

    private final String name;
    private final KfluxConsumers consumers;
    private final KfluxPipelineRunner runner;

    /**
     * @param name      the consumer's name
     * @param consumers the starter's consumers
     * @param runner    the pipelines' runner
     */
    public KfluxHealthIndicator(String name, KfluxConsumers consumers, KfluxPipelineRunner runner) {
        this.name = name;
        this.consumers = consumers;
        this.runner = runner;
    }

    @Override
    public Health health() {
        KafkaFluxConsumer<?, ?> consumer = consumers.consumer(name);
        Health.Builder health = new Health.Builder();
        runner.run(name).ifPresentOrElse(run -> {
            health.status(status(run.state()));
            health.withDetail("state", run.state().name());
            health.withDetail("restarts", run.restarts());
            if (run.lastError() != null) {
                health.withDetail("lastError", run.lastError());
            }
        }, () -> health.up().withDetail("state", "NO_PIPELINE"));
        Map<String, Long> lag = new LinkedHashMap<>();
        long total = 0;
        List<TopicPartition> assignment = consumer.assignment().stream()
                .sorted(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition)).toList();
        for (TopicPartition tp : assignment) {
            OptionalLong partitionLag = consumer.currentLag(tp);
            if (partitionLag.isPresent()) {
                lag.put(tp.topic() + "-" + tp.partition(), partitionLag.getAsLong());
                total += partitionLag.getAsLong();
            }
        }
        return health.withDetail("assignment", assignment.stream().map(tp -> tp.topic() + "-" + tp.partition()).toList())
                .withDetail("lag", lag)
                .withDetail("totalLag", total)
                .build();
    }

    private static Status status(PipelineState state) {
        return switch (state) {
            case FAILED, BACKING_OFF -> Status.DOWN;
            case STOPPING, STOPPED -> Status.OUT_OF_SERVICE;
            case NEW, RUNNING, COMPLETED -> Status.UP;
        };
    }
}
