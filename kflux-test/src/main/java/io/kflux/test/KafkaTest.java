package io.kflux.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the annotated JUnit 5 test class a real Kafka cluster (KRaft; each node a forked JVM running the broker
 * from {@code org.apache.kafka:kafka_2.13} on the test classpath), started before its first test and stopped after
 * its last, even when a test fails. Declare a parameter of type {@link KafkaTestCluster} on a test, a lifecycle
 * method or the constructor to use it.
 *
 * <pre>{@code
 * @KafkaTest(topics = "orders:3")
 * class OrderPipelineTest {
 *     @Test
 *     void commitsWhatWasProcessed(KafkaTestCluster kafka) {
 *         kafka.produce("orders", 0, "a", "b", "c");
 *         KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
 *                 kafka.consumerProperties("billing"), Deserializers.string(), Deserializers.string())
 *             .subscription(List.of("orders")));
 *         ... run the pipeline ...
 *         kafka.awaitCommitted("billing", new TopicPartition("orders", 0), 3, Duration.ofSeconds(30));
 *     }
 * }
 * }</pre>
 *
 * <p>{@code @Nested} classes share the cluster of their enclosing class unless annotated themselves.
 *
 * <p><b>One cluster for many classes.</b> With the JUnit configuration parameter
 * {@value KafkaTestExtension#SHARE_CLUSTERS} set to {@code true} (in {@code junit-platform.properties}, or as a system
 * property of the test JVM, which wins over the file), every class of the test run whose annotation has the same
 * {@link #nodes}, {@link #brokerProperties} and {@link #brokerJvmArgs} gets the same running cluster, started for the
 * first of them and stopped when the run ends: a broker start costs seconds, most classes need a few. A sharing class
 * then creates topics and groups under names no other class uses (its {@link #topics} too) and asserts nothing about
 * the cluster as a whole (such as "all groups"). A class that stops, kills, pauses or restarts a node, moves
 * partitions, or changes broker-wide configuration, ACLs or quotas says {@link #isolated() isolated = true} and gets a
 * cluster of its own; a sharing class that leaves a node stopped or paused fails after its last test, and the next
 * class gets a new cluster. Without the parameter (or with {@code false}) every class gets its own cluster.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(KafkaTestExtension.class)
public @interface KafkaTest {

    /** @return number of nodes, each a broker and a KRaft controller; at least 1 */
    int nodes() default 1;

    /**
     * @return topics created before the first test, each {@code name} or {@code name:partitions} (one partition
     *         when not given), with a replication factor of 1
     */
    String[] topics() default {};

    /**
     * @return extra or overriding {@code server.properties} lines of every node, each {@code key=value}; in a value,
     *         {@code ${nodeId}}, {@code ${port}} and {@code ${controllerPort}} stand for the node's own
     */
    String[] brokerProperties() default {};

    /**
     * @return options for each broker JVM, after {@code -Xms256m -Xmx1g}; by default a quick-starting JIT and a
     *         single-threaded GC, because test clusters handle little data and CI machines have few cores
     */
    String[] brokerJvmArgs() default {"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"};

    /**
     * @return true for a cluster of this class's own even when clusters are shared
     *         ({@value KafkaTestExtension#SHARE_CLUSTERS}): for a class that stops, pauses or restarts nodes or changes
     *         state other classes would see; false (the default) to share when sharing is on
     */
    boolean isolated() default false;
}
