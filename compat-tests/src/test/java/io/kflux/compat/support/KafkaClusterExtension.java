package io.kflux.compat.support;

import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.util.Optional;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Starts the cluster described by {@link KafkaCluster} once per test class and injects it into
 * parameters. The cluster is kept in the class-level store, whose {@link AutoCloseable} values
 * JUnit closes when the class is done, so teardown happens even if a test or another
 * {@code @AfterAll} fails.
 */
public final class KafkaClusterExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(KafkaClusterExtension.class);
    private static final String KEY = "cluster";

    @Override
    public void beforeAll(ExtensionContext context) {
        // a nested class without its own annotation inherits this extension and uses the outer cluster
        Optional<KafkaCluster> spec = AnnotationSupport.findAnnotation(context.getRequiredTestClass(), KafkaCluster.class);
        if (spec.isEmpty()) {
            return;
        }
        EmbeddedKafkaCluster.Builder builder = EmbeddedKafkaCluster.builder()
                .classpath(BrokerVersion.current().classpath())
                .nodes(spec.get().nodes())
                .brokerJvmArgs(spec.get().brokerJvmArgs());
        for (String line : spec.get().brokerProperties()) {
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new ExtensionConfigurationException("brokerProperties entry is not key=value: " + line);
            }
            builder.brokerProperty(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
        }
        context.getStore(NAMESPACE).put(KEY, builder.start());
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == EmbeddedKafkaCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        // store lookups fall back to enclosing contexts, so the nearest annotated class wins
        EmbeddedKafkaCluster cluster = extensionContext.getStore(NAMESPACE).get(KEY, EmbeddedKafkaCluster.class);
        if (cluster == null) {
            throw new ParameterResolutionException("no Kafka cluster here: annotate the test class with @KafkaCluster");
        }
        return cluster;
    }
}
