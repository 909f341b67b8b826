/**
 * Kafka's own deserializers on kflux ({@code io.kflux:kflux-kafka-serde}).
 *
 * <p>{@link io.kflux.kafka.serde.KafkaDeserializerAdapter} runs an
 * {@code org.apache.kafka.common.serialization.Deserializer} (Avro, Protobuf, JSON Schema, your own) as a
 * {@link io.kflux.Deserializer}; {@link io.kflux.kafka.serde.KafkaDeserializerProvider} makes
 * {@code key.deserializer} / {@code value.deserializer} accept such classes in
 * {@link io.kflux.ConsumerOptions#fromProperties(java.util.Map)}.
 *
 * <p>Design: a module of its own, not an optional dependency of {@code kflux-sdk}, so the sdk never names a
 * {@code kafka-clients} type (an optional dependency would still leave Kafka types in sdk classes, failing at link
 * time for users without it). It plugs in through the sdk's {@link io.kflux.DeserializerProvider}
 * {@link java.util.ServiceLoader} SPI: on the class path, it is found without any code or configuration.
 */
package io.kflux.kafka.serde;
