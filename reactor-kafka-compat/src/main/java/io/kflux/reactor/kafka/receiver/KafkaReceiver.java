package io.kflux.reactor.kafka.receiver;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * reactor-kafka 1.3's receiver, running on kflux. Each subscription to one of the {@code receive} methods creates
 * a kflux consumer from the {@link ReceiverOptions}; it joins the group (or takes the assignment) on subscribe and
 * is closed, after committing acknowledged offsets, when the flux terminates or is cancelled.
 *
 * <p>Not offered: {@code receiveExactlyOnce} (kflux has no transactional producer; see
 * docs/migrating-from-reactor-kafka.md for what to do instead). {@link #doOnConsumer} hands a kafka-clients
 * {@code Consumer} that answers what kflux can and refuses the rest by name.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface KafkaReceiver<K, V> {

    /**
     * Creates a receiver. No I/O happens until a {@code receive} method is subscribed to.
     *
     * @param options the options, with a subscription or an assignment
     * @param <K>     key type
     * @param <V>     value type
     * @return the receiver
     * @throws NullPointerException if {@code options} is {@code null}
     */
    static <K, V> KafkaReceiver<K, V> create(ReceiverOptions<K, V> options) {
        return new DefaultKafkaReceiver<>(options);
    }

    /**
     * Records to be acknowledged by the application ({@link ReceiverOffset#acknowledge()}) or committed
     * ({@link ReceiverOffset#commit()}); acknowledged offsets are committed periodically and in batches as the
     * options say, on revocation and when the flux ends.
     *
     * @param prefetch how many records to request ahead from the consumer, or {@code null} for the default
     * @return the records; errors with kflux's {@link io.kflux.KafkaFluxException} subclasses (for instance
     *         {@link io.kflux.RecordDeserializationException}) and, at subscription, {@link io.kflux.ConfigException}
     *         for bad properties and {@link IllegalStateException} without subscription or assignment
     */
    Flux<ReceiverRecord<K, V>> receive(Integer prefetch);

    /**
     * {@link #receive(Integer)} with the default prefetch.
     *
     * @return the records
     */
    default Flux<ReceiverRecord<K, V>> receive() {
        return receive(null);
    }

    /**
     * Records in batches, each acknowledged as a whole once its inner flux terminates; acknowledged offsets are
     * committed as for {@link #receive()}. A batch is what arrived within {@link ReceiverOptions#pollTimeout()} of
     * its first record, at most {@code max.poll.records} (default 500) records: kflux has no poll, so this is what
     * stands for "the records of one poll".
     *
     * @param prefetch how many batches to request ahead, or {@code null} for the default
     * @return the batches; errors as {@link #receive(Integer)}
     */
    Flux<Flux<ConsumerRecord<K, V>>> receiveAutoAck(Integer prefetch);

    /**
     * {@link #receiveAutoAck(Integer)} with the default prefetch.
     *
     * @return the batches
     */
    default Flux<Flux<ConsumerRecord<K, V>>> receiveAutoAck() {
        return receiveAutoAck(null);
    }

    /**
     * Records in batches, each record acknowledged (or committed) by the application through its
     * {@link ReceiverRecord#receiverOffset()}, as with {@link #receive(Integer)}. A batch is one kflux
     * {@code RecordBatch} ({@code KafkaFluxConsumer.receiveBatches()}): the records of one partition's fetched result,
     * at most {@code max.poll.records} (default 500), in offset order, handed over as soon as that result is there (no
     * wait for more; {@link ReceiverOptions#pollTimeout()} plays no part). Where reactor-kafka's batch is one poll and
     * may hold several partitions, kflux has no poll: each batch holds one partition's records. Acknowledged offsets
     * are committed as for {@link #receive()}.
     *
     * @param prefetch how many batches to request ahead, or {@code null} for the default
     * @return the batches; errors as {@link #receive(Integer)}
     */
    Flux<Flux<ReceiverRecord<K, V>>> receiveBatch(Integer prefetch);

    /**
     * {@link #receiveBatch(Integer)} with the default prefetch.
     *
     * @return the batches
     */
    default Flux<Flux<ReceiverRecord<K, V>>> receiveBatch() {
        return receiveBatch(null);
    }

    /**
     * Runs {@code function} with a kafka-clients {@code Consumer} view of the consumer of the receive flux that is
     * subscribed now, on {@code Schedulers.boundedElastic()} (the view's calls block). The view answers assignment,
     * subscription, pause, resume, paused, seeks, position, committed offsets, commits, beginning, end and timestamp
     * offsets and lag from kflux; every other method throws {@link UnsupportedOperationException} naming what to
     * use instead (poll, subscribe, assign and close belong to the receiver; metrics are kflux's Micrometer meters).
     *
     * @param function what to do with the consumer; its result is the Mono's value ({@code null}: empty)
     * @param <T>      the result type
     * @return the result; an {@link IllegalStateException} when no receive flux of this receiver is subscribed, and
     *         whatever the function throws
     * @throws NullPointerException if {@code function} is {@code null}
     */
    <T> Mono<T> doOnConsumer(Function<org.apache.kafka.clients.consumer.Consumer<K, V>, ? extends T> function);

    /**
     * Records committed <em>before</em> they are delivered: a record is lost, never redelivered, if the application
     * fails while handling it. With {@link ReceiverOptions#atmostOnceCommitAheadSize(int)} {@code n > 0}, a commit
     * covers the next {@code n} records as well, so only every {@code n+1}-th record waits for a commit; up to
     * {@code n} more records are lost on a crash. On a clean stop (the flux ends or is cancelled) and when partitions
     * are revoked, a commit that went past the last record delivered is taken back to the offset after it, so those
     * records are read again rather than lost. "Delivered" means emitted by this flux: records waiting in a
     * downstream operator's prefetch queue count as delivered.
     *
     * @param prefetch how many records to request ahead, or {@code null} for the default
     * @return the records; errors as {@link #receive(Integer)}, and with a commit's error when a commit failed
     */
    Flux<ConsumerRecord<K, V>> receiveAtmostOnce(Integer prefetch);

    /**
     * {@link #receiveAtmostOnce(Integer)} with the default prefetch.
     *
     * @return the records
     */
    default Flux<ConsumerRecord<K, V>> receiveAtmostOnce() {
        return receiveAtmostOnce(null);
    }
}
