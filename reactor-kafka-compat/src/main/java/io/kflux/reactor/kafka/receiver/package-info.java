/**
 * reactor-kafka 1.3's receiver API on kflux ({@code io.kflux:kflux-reactor-kafka-compat}).
 *
 * <p>Moving a reactor-kafka application: replace the {@code io.projectreactor.kafka:reactor-kafka} dependency with
 * this module and the imports {@code reactor.kafka.receiver.X} with {@code io.kflux.reactor.kafka.receiver.X}.
 * {@link io.kflux.reactor.kafka.receiver.ReceiverOptions}, {@link io.kflux.reactor.kafka.receiver.KafkaReceiver},
 * {@link io.kflux.reactor.kafka.receiver.ReceiverRecord}, {@link io.kflux.reactor.kafka.receiver.ReceiverOffset} and
 * {@link io.kflux.reactor.kafka.receiver.ReceiverPartition} keep reactor-kafka's names, signatures and kafka-clients
 * types ({@code ConsumerRecord}, {@code TopicPartition}, {@code Deserializer}); underneath, each subscription is a
 * {@link io.kflux.KafkaFluxConsumer}.
 *
 * <p>Where behaviour differs (acknowledgements commit only contiguous prefixes; {@code receiveAutoAck} batches are
 * time-bounded groups rather than polls; no {@code receiveExactlyOnce}, {@code receiveBatch} or
 * {@code doOnConsumer}) is listed in docs/migrating-from-reactor-kafka.md.
 */
package io.kflux.reactor.kafka.receiver;
