package io.kflux.test;

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
 * The JUnit 5 extension behind {@link KafkaTest}: starts the cluster once per annotated class, creates the listed
 * topics and resolves {@link KafkaTestCluster} parameters (and {@link EmbeddedKafkaCluster}, for stopping or
 * pausing nodes). The cluster sits in the class-level store, which JUnit closes when the class is done.
 */
public final class KafkaTestExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KafkaTestExtension.class);
    private static final String KEY = "cluster";

    /**
     * A system property naming the class path of the broker JVMs (e.g. another Kafka version's jars); when absent,
     * the broker runs from the {@code kafka_2.13} jars of the test class path.
     */
    public static final String BROKER_CLASSPATH_PROPERTY = "kflux.test.broker.classpath";

    @Override
    public void beforeAll(ExtensionContext context) {
        Optional<KafkaTest> spec = AnnotationSupport.findAnnotation(context.getRequiredTestClass(), KafkaTest.class);
        if (spec.isEmpty() || context.getStore(NAMESPACE).get(KEY) != null && !declaredOn(context)) {
            return; // a nested class without its own annotation uses the enclosing cluster
        }
        if (spec.get().nodes() < 1) {
            throw new ExtensionConfigurationException("@KafkaTest(nodes) must be at least 1, was " + spec.get().nodes());
        }
        EmbeddedKafkaCluster.Builder builder = EmbeddedKafkaCluster.builder().nodes(spec.get().nodes());
        String classpath = System.getProperty(BROKER_CLASSPATH_PROPERTY);
        if (classpath != null && !classpath.isBlank()) {
            builder.classpath(classpath);
        }
        for (String line : spec.get().brokerProperties()) {
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new ExtensionConfigurationException("@KafkaTest brokerProperties entry is not key=value: " + line);
            }
            builder.brokerProperty(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
        }
        KafkaTestCluster cluster = new KafkaTestCluster(builder.start());
        context.getStore(NAMESPACE).put(KEY, cluster);
        for (String topic : spec.get().topics()) {
            int colon = topic.lastIndexOf(':');
            try {
                if (colon < 0) {
                    cluster.createTopic(topic.trim(), 1);
                } else {
                    cluster.createTopic(topic.substring(0, colon).trim(), Integer.parseInt(topic.substring(colon + 1).trim()));
                }
            } catch (NumberFormatException e) {
                throw new ExtensionConfigurationException("@KafkaTest topics entry is not name or name:partitions: "
                        + topic, e);
            }
        }
    }

    private static boolean declaredOn(ExtensionContext context) {
        return context.getRequiredTestClass().isAnnotationPresent(KafkaTest.class);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == KafkaTestCluster.class || type == EmbeddedKafkaCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        KafkaTestCluster cluster = extensionContext.getStore(NAMESPACE).get(KEY, KafkaTestCluster.class);
        if (cluster == null) {
            throw new ParameterResolutionException("no Kafka cluster here: annotate the test class with @KafkaTest");
        }
        return parameterContext.getParameter().getType() == EmbeddedKafkaCluster.class ? cluster.cluster() : cluster;
    }
}
