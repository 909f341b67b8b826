package io.kflux.spring.boot;

import io.kflux.KafkaFluxConsumer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * kflux's auto-configuration: the {@code kflux.*} properties ({@link KfluxProperties}), the consumers
 * ({@link KfluxConsumers}, plus a {@code <name>KafkaFluxConsumer} and {@code <name>ConsumerOptions} bean each), the
 * application's {@link KfluxPipeline}s run by {@link KfluxPipelineRunner}, the application's {@code MeterRegistry}
 * and {@code ObservationRegistry} bound to every consumer when present, and a health contributor {@code kflux}
 * with one {@link KfluxHealthIndicator} per consumer when Spring Boot's health module is present.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"})
@ConditionalOnClass(KafkaFluxConsumer.class)
@EnableConfigurationProperties(KfluxProperties.class)
public class KfluxAutoConfiguration {

    /**
     * @param environment where the consumers' names are read from
     * @return the registrar of the per-consumer beans
     */
    @Bean
    static ConsumerBeansRegistrar kfluxConsumerBeansRegistrar(Environment environment) {
        return new ConsumerBeansRegistrar(environment);
    }

    /**
     * @param properties  the {@code kflux.*} properties
     * @param beans       where deserializer beans are looked up
     * @param customizers applied to every consumer's options
     * @return the consumers
     */
    @Bean
    @ConditionalOnMissingBean
    KfluxConsumers kfluxConsumers(KfluxProperties properties, ListableBeanFactory beans,
                                  ObjectProvider<KfluxConsumerCustomizer> customizers) {
        return new KfluxConsumers(properties, beans, customizers.orderedStream().toList());
    }

    /**
     * @param consumers the consumers
     * @param pipelines the application's pipelines
     * @return their runner
     */
    @Bean
    @ConditionalOnMissingBean
    KfluxPipelineRunner kfluxPipelineRunner(KfluxConsumers consumers, ObjectProvider<KfluxPipeline<?, ?>> pipelines) {
        return new KfluxPipelineRunner(consumers, pipelines.orderedStream().toList());
    }

    /** Binds the application's {@code MeterRegistry}: kflux's meters show under {@code /actuator/metrics}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {
        @Bean
        @Order(Ordered.HIGHEST_PRECEDENCE)
        KfluxConsumerCustomizer kfluxMeterRegistryCustomizer(ObjectProvider<MeterRegistry> registry) {
            return (name, options) -> {
                MeterRegistry unique = registry.getIfUnique();
                return unique == null ? options : options.withMeterRegistry(unique);
            };
        }
    }

    /** Binds the application's {@code ObservationRegistry}: one observation per record processed. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    static class Observations {
        @Bean
        @Order(Ordered.HIGHEST_PRECEDENCE)
        KfluxConsumerCustomizer kfluxObservationRegistryCustomizer(ObjectProvider<ObservationRegistry> registry) {
            return (name, options) -> {
                ObservationRegistry unique = registry.getIfUnique();
                return unique == null || unique.isNoop() ? options : options.withObservationRegistry(unique);
            };
        }
    }

    /** {@code /actuator/health/kflux/<name>} for each consumer. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthContributor.class)
    @ConditionalOnEnabledHealthIndicator("kflux")
    static class HealthChecks {
        @Bean
        @ConditionalOnMissingBean(name = "kfluxHealthContributor")
        CompositeHealthContributor kfluxHealthContributor(KfluxConsumers consumers, KfluxPipelineRunner runner) {
            Map<String, String> names = new java.util.LinkedHashMap<>();
            consumers.names().forEach(n -> names.put(n, n));
            return CompositeHealthContributor.fromMap(names,
                    (Function<String, HealthContributor>) n -> new KfluxHealthIndicator(n, consumers, runner));
        }
    }

}
