package io.kflux;

import io.kflux.internal.DefaultKafkaShareConsumer;
import java.time.Duration;
import java.util.Objects;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A member of a share group (KIP-932, Kafka 4.2+): many members read the same partitions, each record is handed to
 * one of them under an acquisition lock, and each is acknowledged on its own ({@link ShareRecord#accept()},
 * {@code release()}, {@code reject()}, {@code renew()}). Exactly-once is not offered: a record whose lock expires,
 * or whose acknowledgement did not reach the broker, is delivered again.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface KafkaShareConsumer<K, V> {

    /**
     * Creates a share consumer; nothing connects before {@link #receive()}.
     *
     * @param options options with a subscription
     * @return the consumer
     * @throws IllegalArgumentException when {@code options} has no subscription
     */
    static <K, V> KafkaShareConsumer<K, V> create(ShareConsumerOptions<K, V> options) {
        Objects.requireNonNull(options, "options");
        if (options.subscribedTopics().isEmpty()) {
            throw new IllegalArgumentException("a share consumer needs a subscription: call subscription(topics)");
        }
        return new DefaultKafkaShareConsumer<>(options);
    }

    /**
     * Joins the share group and emits the records it acquires, as downstream demands them: records are acquired
     * only for the demand not yet served (with unbounded demand, at most {@code max.poll.records} ahead), so memory
     * stays bounded and no record is locked long before it can be processed. Records from several brokers
     * interleave. One active subscription at a time; cancelling it leaves the group as {@link #close()} does, after
     * the flux has ended: a {@code receive()} subscribed while an ended one is still leaving (e.g. right after
     * {@code take(n)} completed) waits for that, then joins the group again.
     *
     * @return the records; ends with {@link UnsupportedVersionException} on a broker without share groups (its
     *         message names the versions the broker offers), {@link GroupAuthorizationException},
     *         {@link TopicAuthorizationException}, {@link RecordDeserializationException}, or
     *         {@link IllegalStateException} when another subscription is active
     */
    Flux<ShareRecord<K, V>> receive();

    /** {@code close(Duration.ofSeconds(30))}. */
    default Mono<Void> close() {
        return close(Duration.ofSeconds(30));
    }

    /**
     * Stops: records acquired but not emitted are released, in implicit mode the emitted ones are accepted, pending
     * acknowledgements are sent and confirmed, every share session is closed and the member leaves the group
     * (heartbeat with epoch -1).
     *
     * @param timeout how long it may take; what is not done by then is abandoned (unsent acknowledgements' records
     *                return to the group when their locks expire)
     * @return completes when done; never fails
     */
    Mono<Void> close(Duration timeout);
}
