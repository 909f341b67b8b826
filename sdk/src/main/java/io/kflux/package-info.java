/**
 * kflux public API: a reactive, non-blocking Apache Kafka consumer.
 */
package io.kflux;
