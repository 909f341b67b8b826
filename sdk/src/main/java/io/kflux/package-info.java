/**
 * kflux public API: a reactive, non-blocking Apache Kafka consumer.
 *
 * <p>Start with {@link io.kflux.ConsumerOptions} (properties, deserializers, what to consume, an optional
 * {@link io.kflux.RebalanceListener}) and {@link io.kflux.KafkaFluxConsumer#create}; records arrive as
 * {@link io.kflux.ConsumerRecord}s from {@link io.kflux.KafkaFluxConsumer#receive()}, paced by downstream demand,
 * and are acknowledged one by one ({@link io.kflux.ConsumerRecord#acknowledge()}); only the contiguous acknowledged
 * prefix of each partition is committed. Every error is a {@link io.kflux.KafkaFluxException}. Everything outside
 * this package ({@code io.kflux.internal} and the layer packages) is not API and may change in any release.
 *
 * <h2>Where the rules come from</h2>
 * kflux does not wrap the official client; it implements the Kafka protocol, so its behaviour is defined by:
 * <ul>
 *   <li>the Kafka protocol guide and the message schemas of the Apache Kafka repository
 *       ({@code clients/src/main/resources/common/message/*.json}): request and response formats, versions, error
 *       codes and their retriable flags;</li>
 *   <li>the official Java consumer ({@code org.apache.kafka.clients.consumer.KafkaConsumer}) for property names,
 *       types, defaults and meaning, and for client-side conventions such as "a committed offset is the next offset
 *       to read" and {@code max.poll.interval.ms};</li>
 *   <li>Kafka Improvement Proposals (KIPs) for specific behaviour, among them: KIP-35 and KIP-511 (ApiVersions
 *       negotiation), KIP-43 and KIP-152 (SASL), KIP-74 ({@code fetch.max.bytes}), KIP-79 (offsets by timestamp),
 *       KIP-82 (record headers), KIP-98 and KIP-447 (transactions, {@code read_committed}, stable offsets),
 *       KIP-101 and KIP-320 (leader epochs), KIP-334 (deserialization errors carry partition and offset), KIP-345
 *       (static membership), KIP-392 ({@code client.rack}), KIP-429 (cooperative rebalancing), KIP-848 (the
 *       {@code consumer} group protocol) and KIP-932 (share groups, {@link io.kflux.KafkaShareConsumer}).</li>
 * </ul>
 * Where kflux deliberately differs (e.g. auto commit commits <em>acknowledged</em> offsets, some configuration
 * checks are stricter) the type's documentation says so. TLS, SASL (GSSAPI, PLAIN, SCRAM, OAUTHBEARER, KIP-368
 * re-authentication), both group protocols ({@code classic} and KIP-848's {@code consumer}) and share groups
 * (KIP-932) are implemented; the
 * user guide, {@code docs/guide.md} in the source repository, lists in "Not yet supported" what the API or the
 * configuration declares but kflux does not do yet.
 */
package io.kflux;
