package io.kflux.compat.support;

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
 * Provides the cluster described by {@link KafkaCluster} and injects it into parameters. An isolated
 * cluster lives in the class-level store, a shared one in the root store under its specification;
 * JUnit closes the {@link AutoCloseable} values of a store when its context ends (the class, or the
 * whole run), so teardown happens even if a test or another {@code @AfterAll} fails.
 */
public final class KafkaClusterExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(KafkaClusterExtension.class);
    private static final String KEY = "cluster";

    /**
     * {@code -Dkflux.compat.shareClusters=false} (in the test JVM: {@code -Dkflux.test.jvmArgs=...}) gives every class
     * its own cluster again, to tell whether a failure comes from sharing.
     */
    private static final boolean SHARING = Boolean.parseBoolean(System.getProperty("kflux.compat.shareClusters", "true"));

    /**
     * The cluster a class uses. Not {@link AutoCloseable}: closing the class store must not stop a shared
     * cluster; an isolated one is stored a second time on its own, to be closed with the class.
     */
    private record Lease(EmbeddedKafkaCluster cluster, String sharedKey) {
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        // a nested class without its own annotation inherits this extension and uses the outer cluster
        Optional<KafkaCluster> spec = AnnotationSupport.findAnnotation(context.getRequiredTestClass(), KafkaCluster.class);
        if (spec.isEmpty()) {
            return;
        }
        if (spec.get().isolated() || !SHARING) {
            EmbeddedKafkaCluster own = start(spec.get());
            context.getStore(NAMESPACE).put(KEY + ".own", own);
            context.getStore(NAMESPACE).put(KEY, new Lease(own, null));
            return;
        }
        String key = sharedKey(spec.get());
        EmbeddedKafkaCluster shared = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(key, k -> start(spec.get()), EmbeddedKafkaCluster.class);
        context.getStore(NAMESPACE).put(KEY, new Lease(shared, key));
    }

    /**
     * A class that left a node of a shared cluster stopped or paused would break the classes after it: the
     * cluster is dropped (the next class starts a new one) and this class fails, naming the fix.
     */
    @Override
    public void afterAll(ExtensionContext context) {
        Lease lease = context.getStore(NAMESPACE).get(KEY, Lease.class);
        // only where beforeAll took the lease: a nested class without its own annotation sees its outer class's
        if (lease == null || lease.sharedKey() == null
                || AnnotationSupport.findAnnotation(context.getRequiredTestClass(), KafkaCluster.class).isEmpty()) {
            return;
        }
        EmbeddedKafkaCluster cluster = lease.cluster();
        List<Integer> down = cluster.nodeIds().stream()
                .filter(id -> !cluster.isRunning(id) || cluster.isPaused(id)).toList();
        if (!down.isEmpty()) {
            context.getRoot().getStore(NAMESPACE).remove(lease.sharedKey(), EmbeddedKafkaCluster.class);
            cluster.close();
            throw new IllegalStateException(context.getRequiredTestClass().getName()
                    + " left nodes " + down + " of a shared cluster stopped or paused:"
                    + " annotate it @KafkaCluster(..., isolated = true)");
        }
    }

    /** Classes share a cluster when everything that shapes it is equal (one test JVM runs one broker version). */
    private static String sharedKey(KafkaCluster spec) {
        return "nodes=" + spec.nodes() + " properties=" + List.of(spec.brokerProperties())
               + " jvm=" + List.of(spec.brokerJvmArgs());
    }

    private static EmbeddedKafkaCluster start(KafkaCluster spec) {
        EmbeddedKafkaCluster.Builder builder = EmbeddedKafkaCluster.builder()
                .classpath(BrokerVersion.current().classpath())
                .nodes(spec.nodes())
                .brokerJvmArgs(spec.brokerJvmArgs());
        for (String line : spec.brokerProperties()) {
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new ExtensionConfigurationException("brokerProperties entry is not key=value: " + line);
            }
            builder.brokerProperty(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
        }
        return builder.start();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == EmbeddedKafkaCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        // store lookups fall back to enclosing contexts, so the nearest annotated class wins
        Lease lease = extensionContext.getStore(NAMESPACE).get(KEY, Lease.class);
        if (lease == null) {
            throw new ParameterResolutionException("no Kafka cluster here: annotate the test class with @KafkaCluster");
        }
        return lease.cluster();
    }
}
