/**
 * A test kit for applications built on kflux: {@link io.kflux.test.KafkaTest} gives a JUnit 5 test class a real,
 * forked Kafka cluster ({@link io.kflux.test.KafkaTestCluster}) to create topics on, write test records to and read
 * a group's committed offsets from, so that pipelines are tested the way kflux tests itself.
 */
package io.kflux.test;
