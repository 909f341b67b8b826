package io.kflux.compat.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the annotated test class a real Kafka cluster. Declare a parameter of type
 * {@link io.kflux.test.broker.EmbeddedKafkaCluster} on a test method, a {@code @BeforeAll} or
 * {@code @BeforeEach} method, or the constructor to receive it.
 *
 * <p>By default the cluster is shared: every class of the test run whose annotation has the same
 * {@link #nodes}, {@link #brokerProperties} and {@link #brokerJvmArgs} gets the same running cluster,
 * started for the first of them and stopped when the run ends (a broker start costs seconds, most
 * classes need a few). A sharing class creates only topics and groups of its own (names no other
 * class uses) and asserts nothing about the cluster as a whole (such as "all groups"). A class that
 * stops, kills, pauses or restarts a node, moves partitions, or changes broker-wide configuration,
 * ACLs or quotas says {@link #isolated() isolated = true} and gets a cluster of its own, started
 * before its first test and stopped after its last; a sharing class that leaves a node stopped or
 * paused fails, and the next class gets a new cluster. {@code -Dkflux.test.jvmArgs=-Dkflux.compat.shareClusters=false}
 * makes every class isolated, to tell whether a failure comes from sharing.
 *
 * <p>{@code @Nested} classes share the cluster of their enclosing class unless they carry this
 * annotation themselves.
 *
 * <pre>{@code
 * @KafkaCluster(nodes = 3, isolated = true) // stops the leader
 * class FailoverTest {
 *     @Test
 *     void survivesLeaderLoss(EmbeddedKafkaCluster kafka) { ... }
 * }
 * }</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(KafkaClusterExtension.class)
public @interface KafkaCluster {

    /** @return number of nodes, each a broker and a controller */
    int nodes() default 1;

    /** @return extra or overriding {@code server.properties} lines, each {@code key=value} */
    String[] brokerProperties() default {};

    /**
     * @return options for each broker JVM; by default a quick-starting JIT and a single-threaded GC,
     *         because test clusters handle little data and CI machines have few cores
     */
    String[] brokerJvmArgs() default {"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"};

    /**
     * @return true for a cluster of this class's own, for a class that stops, pauses or restarts nodes or
     *         changes state other classes would see; false (the default) to share one cluster with every
     *         class of the same specification in this test run
     */
    boolean isolated() default false;
}
