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

    /** @return extra or overriding {@code server.properties} lines of every node, each {@code key=value} */
    String[] brokerProperties() default {};
}
