package io.kflux.reactor.kafka.receiver;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Each subscription gets its own {@link ReceiverSession} (a kflux consumer), closed when the flux ends; the one
 * subscribed last is what {@link #doOnConsumer} works on.
 */
final class DefaultKafkaReceiver<K, V> implements KafkaReceiver<K, V> {

    private final ReceiverOptions<K, V> options;
    private final AtomicReference<ReceiverSession<K, V>> current = new AtomicReference<>();

    DefaultKafkaReceiver(ReceiverOptions<K, V> options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    private <T> Flux<T> withSession(ReceiverSession.Mode mode, Function<ReceiverSession<K, V>, Flux<T>> body) {
        return Flux.usingWhen(Mono.fromCallable(() -> opened(new ReceiverSession<>(options, mode))), body,
                              this::closed, (s, e) -> closed(s), this::closed);
    }

    private ReceiverSession<K, V> opened(ReceiverSession<K, V> session) {
        current.set(session);
        return session;
    }

    private Mono<Void> closed(ReceiverSession<K, V> session) {
        current.compareAndSet(session, null);
        return session.close();
    }

    @Override
    public Flux<ReceiverRecord<K, V>> receive(Integer prefetch) {
        return withSession(ReceiverSession.Mode.ACKNOWLEDGE, s -> s.records(prefetch));
    }

    @Override
    public Flux<Flux<ConsumerRecord<K, V>>> receiveAutoAck(Integer prefetch) {
        return withSession(ReceiverSession.Mode.ACKNOWLEDGE, s -> s.autoAckBatches(prefetch));
    }

    @Override
    public Flux<Flux<ReceiverRecord<K, V>>> receiveBatch(Integer prefetch) {
        return withSession(ReceiverSession.Mode.ACKNOWLEDGE, s -> s.batches(prefetch));
    }

    @Override
    public Flux<ConsumerRecord<K, V>> receiveAtmostOnce(Integer prefetch) {
        return withSession(ReceiverSession.Mode.AT_MOST_ONCE, s -> s.atmostOnce(prefetch));
    }

    @Override
    public <T> Mono<T> doOnConsumer(Function<org.apache.kafka.clients.consumer.Consumer<K, V>, ? extends T> function) {
        Objects.requireNonNull(function, "function");
        return Mono.defer(() -> {
            ReceiverSession<K, V> session = current.get();
            if (session == null) {
                return Mono.error(new IllegalStateException("doOnConsumer needs a subscribed receive flux of this"
                                                            + " receiver: there is no consumer before or after one"));
            }
            return Mono.<T>fromCallable(() -> function.apply(session.consumerFacade()))
                    .subscribeOn(Schedulers.boundedElastic());
        });
    }
}
