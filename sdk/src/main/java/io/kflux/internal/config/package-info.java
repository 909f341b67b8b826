/**
 * Consumer configuration: property definitions (names, types, defaults, validation) and the typed, validated
 * {@link io.kflux.internal.config.ConsumerConfig} the internals read. Not API.
 */
package io.kflux.internal.config;
