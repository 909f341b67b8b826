package io.kflux.test;

import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link KafkaTest}: starts the cluster (once per annotated class, or once per
 * specification and test run when {@value #SHARE_CLUSTERS} is on), creates the listed topics and resolves
 * {@link KafkaTestCluster} parameters (and {@link EmbeddedKafkaCluster}, for stopping or pausing nodes). A class's
 * own cluster sits in the class-level store, a shared one in the root store under its specification; JUnit closes
 * the {@link AutoCloseable} values of a store when its context ends (the class, or the whole run), so the brokers stop
 * even when a test or another {@code @AfterAll} fails.
 */
public final class KafkaTestExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KafkaTestExtension.class);
    private static final String KEY = "cluster";

    /**
     * A system property naming the class path of the broker JVMs (e.g. another Kafka version's jars); when absent,
     * the broker runs from the {@code kafka_2.13} jars of the test class path.
     */
    public static final String BROKER_CLASSPATH_PROPERTY = "kflux.test.broker.classpath";

    /**
     * The JUnit configuration parameter ({@code true} or {@code false}, default {@code false}) that lets classes of
     * the same {@link KafkaTest} specification share one running cluster for the whole test run; see
     * {@link KafkaTest} for what a sharing class must not do, and {@link KafkaTest#isolated()}.
     */
    public static final String SHARE_CLUSTERS = "kflux.test.shareClusters";

    /**
     * The cluster a class uses. Not {@link AutoCloseable}: closing the class store must not stop a shared cluster; a
     * class's own cluster is stored a second time on its own, to be closed with the class.
     *
     * @param sharedKey the root store's key of a shared cluster, {@code null} for a class's own
     */
    private record Lease(KafkaTestCluster cluster, String sharedKey) {
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Optional<KafkaTest> found = AnnotationSupport.findAnnotation(context.getRequiredTestClass(), KafkaTest.class);
        if (found.isEmpty() || context.getStore(NAMESPACE).get(KEY) != null && !declaredOn(context)) {
            return; // a nested class without its own annotation uses the enclosing cluster
        }
        KafkaTest spec = found.get();
        if (spec.nodes() < 1) {
            throw new ExtensionConfigurationException("@KafkaTest(nodes) must be at least 1, was " + spec.nodes());
        }
        Lease lease;
        if (spec.isolated() || !context.getConfigurationParameter(SHARE_CLUSTERS, Boolean::parseBoolean).orElse(false)) {
            KafkaTestCluster own = start(spec);
            context.getStore(NAMESPACE).put(KEY + ".own", own);
            lease = new Lease(own, null);
        } else {
            String key = sharedKey(spec);
            lease = new Lease(context.getRoot().getStore(NAMESPACE)
                    .getOrComputeIfAbsent(key, k -> start(spec), KafkaTestCluster.class), key);
        }
        context.getStore(NAMESPACE).put(KEY, lease);
        for (String topic : spec.topics()) {
            int colon = topic.lastIndexOf(':');
            try {
                if (colon < 0) {
                    lease.cluster().createTopic(topic.trim(), 1);
                } else {
                    lease.cluster().createTopic(topic.substring(0, colon).trim(),
                            Integer.parseInt(topic.substring(colon + 1).trim()));
                }
            } catch (NumberFormatException e) {
                throw new ExtensionConfigurationException("@KafkaTest topics entry is not name or name:partitions: "
                        + topic, e);
            }
        }
    }

    /**
     * A class that left a node of a shared cluster stopped or paused would break the classes after it: the cluster is
     * dropped and stopped (the next class starts a new one) and this class fails, naming the fix.
     */
    @Override
    public void afterAll(ExtensionContext context) {
        Lease lease = context.getStore(NAMESPACE).get(KEY, Lease.class);
        // only where beforeAll took the lease: a nested class without its own annotation sees its outer class's
        if (lease == null || lease.sharedKey() == null || !declaredOn(context)) {
            return;
        }
        EmbeddedKafkaCluster cluster = lease.cluster().cluster();
        List<Integer> down = cluster.nodeIds().stream()
                .filter(id -> !cluster.isRunning(id) || cluster.isPaused(id)).toList();
        if (!down.isEmpty()) {
            context.getRoot().getStore(NAMESPACE).remove(lease.sharedKey(), KafkaTestCluster.class);
            lease.cluster().close();
            throw new IllegalStateException(context.getRequiredTestClass().getName() + " left nodes " + down
                    + " of a shared cluster stopped or paused: annotate it @KafkaTest(..., isolated = true)");
        }
    }

    private static boolean declaredOn(ExtensionContext context) {
        return context.getRequiredTestClass().isAnnotationPresent(KafkaTest.class);
    }

    /** Classes share a cluster when everything that shapes it is equal (one test JVM runs one broker class path). */
    private static String sharedKey(KafkaTest spec) {
        return "nodes=" + spec.nodes() + " properties=" + List.of(spec.brokerProperties())
               + " jvm=" + List.of(spec.brokerJvmArgs());
    }

    private static KafkaTestCluster start(KafkaTest spec) {
        EmbeddedKafkaCluster.Builder builder = EmbeddedKafkaCluster.builder().nodes(spec.nodes())
                .brokerJvmArgs(spec.brokerJvmArgs());
        String classpath = System.getProperty(BROKER_CLASSPATH_PROPERTY);
        if (classpath != null && !classpath.isBlank()) {
            builder.classpath(classpath);
        }
        for (String line : spec.brokerProperties()) {
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new ExtensionConfigurationException("@KafkaTest brokerProperties entry is not key=value: " + line);
            }
            builder.brokerProperty(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
        }
        return new KafkaTestCluster(builder.start());
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == KafkaTestCluster.class || type == EmbeddedKafkaCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        // store lookups fall back to enclosing contexts, so the nearest annotated class wins
        Lease lease = extensionContext.getStore(NAMESPACE).get(KEY, Lease.class);
        if (lease == null) {
            throw new ParameterResolutionException("no Kafka cluster here: annotate the test class with @KafkaTest");
        }
        return parameterContext.getParameter().getType() == EmbeddedKafkaCluster.class
                ? lease.cluster().cluster() : lease.cluster();
    }
}
