/**
 * TLS and SASL from the consumer's configuration: the {@code SslContext} of {@code ssl.*}, the built-in SASL
 * mechanisms (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER) and the adapter for plugged-in ones, handed to the network
 * layer as one {@link io.kflux.network.ConnectionSecurity}.
 */
package io.kflux.internal.security;
