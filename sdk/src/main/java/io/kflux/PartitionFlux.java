package io.kflux;

import java.util.Objects;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;

/**
 * The records of one assigned partition, as emitted by {@link KafkaFluxConsumer#receivePartitioned()}: in
 * offset order; completes when the partition is revoked or lost. Subscribe at most once; a second
 * subscription fails with {@link IllegalStateException}.
 *
 * @param <K> key type
 * @param <V> value type
 */
public abstract class PartitionFlux<K, V> extends Flux<ConsumerRecord<K, V>> {

    /** For subclasses. */
    protected PartitionFlux() {
    }

    /**
     * The partition whose records this flux emits.
     *
     * @return the partition
     */
    public abstract TopicPartition topicPartition();

    /**
     * Wraps a source flux. Used by the consumer (and tests); the source's subscription rules apply.
     *
     * @param topicPartition the partition
     * @param source         the records of that partition
     * @param <K>            key type
     * @param <V>            value type
     * @return a partition flux delegating to {@code source}
     * @throws NullPointerException if an argument is {@code null}
     */
    public static <K, V> PartitionFlux<K, V> of(TopicPartition topicPartition, Flux<ConsumerRecord<K, V>> source) {
        return new Delegating<>(Objects.requireNonNull(topicPartition, "topicPartition"),
                                Objects.requireNonNull(source, "source"));
    }

    @Override
    public String toString() {
        return "PartitionFlux(" + topicPartition() + ")";
    }

    private static final class Delegating<K, V> extends PartitionFlux<K, V> {
        private final TopicPartition topicPartition;
        private final Flux<ConsumerRecord<K, V>> source;

        Delegating(TopicPartition topicPartition, Flux<ConsumerRecord<K, V>> source) {
            this.topicPartition = topicPartition;
            this.source = source;
        }

        @Override
        public TopicPartition topicPartition() {
            return topicPartition;
        }

        @Override
        public void subscribe(CoreSubscriber<? super ConsumerRecord<K, V>> actual) {
            source.subscribe(actual);
        }
    }
}
