package io.kflux.compat.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the annotated test class its own real Kafka cluster, started before its first test and
 * stopped after its last. Declare a parameter of type
 * {@link io.kflux.test.broker.EmbeddedKafkaCluster} on a test method, a {@code @BeforeAll} or
 * {@code @BeforeEach} method, or the constructor to receive it.
 *
 * <p>{@code @Nested} classes share the cluster of their enclosing class unless they carry this
 * annotation themselves, in which case they get a separate one.
 *
 * <pre>{@code
 * @KafkaCluster(nodes = 3)
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
}
