package io.kflux.examples.spring;

import io.kflux.spring.boot.test.KfluxTestBrokerInitializer;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts kflux-test's broker for the application (through {@link KfluxTestBrokerInitializer}: a forked Kafka JVM,
 * the topics of {@code kflux.test.topics} created, stopped when the context closes) unless
 * {@code kflux.consumer.properties.bootstrap.servers} names a cluster.
 */
public final class EmbeddedBroker implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        if (context.getEnvironment().containsProperty("kflux.consumer.properties.bootstrap.servers")) {
            return;
        }
        System.out.println("Starting a Kafka broker (a forked JVM; it logs to a temporary data folder, deleted when "
                + "the broker stops)...");
        new KfluxTestBrokerInitializer().initialize(context);
    }
}
