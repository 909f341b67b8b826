/**
 * A real Apache Kafka KRaft cluster for tests (the kit's {@link io.kflux.test.KafkaTestCluster}, kflux's
 * examples and compatibility tests): every node is a forked JVM running {@code kafka.Kafka} from the Maven
 * artifacts on the current classpath, with the log4j2 binding the kit carries in its own jar first, so a test can
 * stop, kill or freeze a broker exactly as production faults would.
 *
 * <p>Start with {@link io.kflux.test.broker.EmbeddedKafkaCluster}; fill topics with
 * {@link io.kflux.test.broker.SampleData}.
 */
package io.kflux.test.broker;
