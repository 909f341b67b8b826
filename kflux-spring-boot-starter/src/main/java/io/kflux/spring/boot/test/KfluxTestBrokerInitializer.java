package io.kflux.spring.boot.test;

import io.kflux.test.KafkaTestCluster;
import java.util.Map;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Gives a {@code @SpringBootTest} (or any context) a real Kafka broker from {@code io.kflux:kflux-test}: a forked
 * single-node cluster, started before the context and stopped when the context closes (after the kflux consumers
 * closed, so their final commits reach it). Spring's test context cache keeps one context, so one broker, per
 * distinct test configuration.
 *
 * <pre>{@code
 * @SpringBootTest(properties = {"kflux.test.topics=orders:2", "kflux.consumers.orders.topics=orders",
 *         "kflux.consumers.orders.properties.group.id=billing"})
 * @ContextConfiguration(initializers = KfluxTestBrokerInitializer.class)
 * class BillingTest {
 *     @Autowired KafkaTestCluster kafka;   // produce test records, read committed offsets
 * }
 * }</pre>
 *
 * <p>It adds, ahead of every other property source, {@value #BOOTSTRAP} and
 * {@code kflux.consumer.properties.bootstrap.servers} (the broker's address, shared by every kflux consumer) and
 * {@code kflux.consumer.properties.auto.offset.reset=earliest} (a test reads what it wrote before the pipeline
 * started); it creates the topics listed in {@value #TOPICS} ({@code name} or {@code name:partitions}, comma
 * separated) and registers the {@link KafkaTestCluster} as a bean. Needs {@code io.kflux:kflux-test} and
 * {@code org.apache.kafka:kafka_2.13} on the test class path.
 */
public final class KfluxTestBrokerInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    /** The property holding the broker's {@code host:port}. */
    public static final String BOOTSTRAP = "kflux.test.bootstrap-servers";
    /** The property listing topics to create: {@code name} or {@code name:partitions}, comma separated. */
    public static final String TOPICS = "kflux.test.topics";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        if (!(context instanceof GenericApplicationContext generic)) {
            throw new IllegalStateException("KfluxTestBrokerInitializer needs a GenericApplicationContext (as "
                    + "@SpringBootTest makes), got " + context.getClass().getName());
        }
        KafkaTestCluster cluster = KafkaTestCluster.start(1);
        try {
            ConfigurableEnvironment environment = context.getEnvironment();
            environment.getPropertySources().addFirst(new MapPropertySource("kflux-test-broker", Map.of(
                    BOOTSTRAP, cluster.bootstrapServers(),
                    "kflux.consumer.properties.bootstrap.servers", cluster.bootstrapServers(),
                    "kflux.consumer.properties.auto.offset.reset", "earliest")));
            for (String topic : environment.getProperty(TOPICS, String[].class, new String[0])) {
                createTopic(cluster, topic.trim());
            }
            // a bean, so the context closes it at its end (AutoCloseable), after the consumers' lifecycle stopped
            generic.registerBean("kfluxTestCluster", KafkaTestCluster.class, () -> cluster);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private static void createTopic(KafkaTestCluster cluster, String topic) {
        int colon = topic.lastIndexOf(':');
        if (colon < 0) {
            cluster.createTopic(topic, 1);
            return;
        }
        try {
            cluster.createTopic(topic.substring(0, colon).trim(), Integer.parseInt(topic.substring(colon + 1).trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(TOPICS + " entry is not name or name:partitions: " + topic, e);
        }
    }
}
