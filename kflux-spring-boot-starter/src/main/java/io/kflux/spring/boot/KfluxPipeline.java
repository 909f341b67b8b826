package io.kflux.spring.boot;

import io.kflux.KafkaFluxConsumer;
import java.util.Objects;
import org.reactivestreams.Publisher;

/**
 * A pipeline the application declares as a bean: given its consumer, it returns the publisher to run, typically
 * {@code consumer.receive()} (or {@code process(...)}) with the application's processing. The starter subscribes to
 * it once the context has started (after the web server, if any), keeps it running and, at shutdown, closes the
 * consumer (acknowledged offsets committed, the group left) within Spring's graceful-shutdown phase.
 *
 * <pre>{@code
 * @Bean
 * KfluxPipeline<String, String> billing(OrderStore store) {
 *     return KfluxPipeline.on("orders", consumer -> consumer.receive()
 *             .concatMap(record -> store.save(record.value()).doOnSuccess(v -> record.acknowledge())));
 * }
 * }</pre>
 *
 * <p>When the publisher ends with an error, the error is logged and, as
 * {@code kflux.consumers.<name>.on-failure} says, the pipeline is subscribed to again after a backoff
 * ({@code restart}, the default) or left stopped with the consumer's health DOWN ({@code down}). A pipeline that
 * completes is not restarted. At most one pipeline runs per consumer (a consumer has one active subscription).
 *
 * @param <K> key type, as the consumer's key deserializer makes
 * @param <V> value type, as the consumer's value deserializer makes
 */
@FunctionalInterface
public interface KfluxPipeline<K, V> {

    /**
     * Builds the publisher to run; called once at start and again on each restart.
     *
     * @param consumer the consumer this pipeline is for; the starter closes it, the pipeline does not
     * @return what to subscribe to; its elements are ignored
     */
    Publisher<?> run(KafkaFluxConsumer<K, V> consumer);

    /**
     * The consumer this pipeline is for.
     *
     * @return a name under {@code kflux.consumers}, or {@code null} (the default) for the only consumer declared;
     *         with several consumers declared a pipeline without a name fails the start
     */
    default String consumerName() {
        return null;
    }

    /**
     * A pipeline for the named consumer.
     *
     * @param consumerName a name under {@code kflux.consumers} ({@value KfluxProperties#DEFAULT_CONSUMER} for
     *                     {@code kflux.consumer} alone)
     * @param pipeline     what to run
     * @param <K>          key type
     * @param <V>          value type
     * @return a pipeline whose {@link #consumerName()} is {@code consumerName}
     * @throws NullPointerException for a null argument
     */
    static <K, V> KfluxPipeline<K, V> on(String consumerName, KfluxPipeline<K, V> pipeline) {
        Objects.requireNonNull(consumerName, "consumerName");
        Objects.requireNonNull(pipeline, "pipeline");
        return new KfluxPipeline<>() {
            @Override
            public Publisher<?> run(KafkaFluxConsumer<K, V> consumer) {
                return pipeline.run(consumer);
            }

            @Override
            public String consumerName() {
                return consumerName;
            }
        };
    }
}
