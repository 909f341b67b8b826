package io.kflux.reactor.kafka.receiver;

import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Each subscription gets its own {@link ReceiverSession} (a kflux consumer), closed when the flux ends. */
final class DefaultKafkaReceiver<K, V> implements KafkaReceiver<K, V> {

    private final ReceiverOptions<K, V> options;

    DefaultKafkaReceiver(ReceiverOptions<K, V> options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    private <T> Flux<T> withSession(ReceiverSession.Mode mode, Function<ReceiverSession<K, V>, Flux<T>> body) {
        return Flux.usingWhen(Mono.fromCallable(() -> new ReceiverSession<>(options, mode)), body,
                              ReceiverSession::close, (s, e) -> s.close(), ReceiverSession::close);
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
    public Flux<ConsumerRecord<K, V>> receiveAtmostOnce(Integer prefetch) {
        return withSession(ReceiverSession.Mode.AT_MOST_ONCE, s -> s.atmostOnce(prefetch));
    }
}
