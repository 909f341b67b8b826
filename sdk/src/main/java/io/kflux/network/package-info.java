/**
 * Broker connections: length-prefixed Kafka frames over reactor-netty, correlation ids, pipelined
 * requests, request timeouts, ApiVersions negotiation on connect, and reconnect backoff per node.
 * Uses {@code io.kflux.protocol} only. Entry points: {@link io.kflux.network.BrokerConnection},
 * {@link io.kflux.network.NodeConnections}, {@link io.kflux.network.NetworkOptions}.
 */
package io.kflux.network;
