package io.kflux.spring.boot;

import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.core.env.Environment;

/**
 * Registers, for each declared consumer, the beans {@code <name>KafkaFluxConsumer} and {@code <name>ConsumerOptions}
 * (both taken from {@link KfluxConsumers}), so an application injects one with
 * {@code @Qualifier("ordersKafkaFluxConsumer")}. The names are read from the environment before any bean exists.
 *
 * <p>A key under {@code kflux.consumer.*} or {@code kflux.consumers.<name>.*} that the starter does not know (a
 * misspelled {@code on-failure}, say) is logged at WARN with its name: Spring's binding ignores unknown keys, which
 * would leave the setting at its default without a word. Kafka keys under {@code properties.*} are all bound here and
 * checked by kflux itself when the consumers are created.
 */
final class ConsumerBeansRegistrar implements BeanDefinitionRegistryPostProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerBeansRegistrar.class);

    private final Environment environment;

    ConsumerBeansRegistrar(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        KfluxProperties properties = Binder.get(environment)
                .bind("kflux", Bindable.of(KfluxProperties.class)).orElseGet(KfluxProperties::new);
        List<String> unknown = unknownKeys(environment, properties);
        if (!unknown.isEmpty()) {
            LOG.warn("Unknown kflux consumer properties, ignored (misspelled?): {}", unknown);
        }
        for (String name : KfluxConsumers.declared(properties).keySet()) {
            register(registry, name + "KafkaFluxConsumer", KafkaFluxConsumer.class, name, true);
            register(registry, name + "ConsumerOptions", ConsumerOptions.class, name, false);
        }
    }

    /**
     * The keys under {@code kflux.consumer} and each {@code kflux.consumers.<name>} that bind to nothing of
     * {@link KfluxProperties.Consumer}, in the environment's order.
     */
    static List<String> unknownKeys(Environment environment, KfluxProperties properties) {
        Binder binder = Binder.get(environment);
        List<String> unknown = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        prefixes.add("kflux.consumer");
        properties.getConsumers().keySet().forEach(name -> prefixes.add("kflux.consumers." + name));
        for (String prefix : prefixes) {
            try {
                binder.bind(prefix, Bindable.of(KfluxProperties.Consumer.class),
                        new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
            } catch (BindException e) {
                if (e.getCause() instanceof UnboundConfigurationPropertiesException u) {
                    u.getUnboundProperties().forEach(p -> unknown.add(p.getName().toString()));
                } // any other binding error is the real binding's to report
            } catch (RuntimeException e) {
                // a consumer name that is no valid property name: the real binding reports what is wrong
            }
        }
        return unknown;
    }

    private static void register(BeanDefinitionRegistry registry, String beanName, Class<?> type, String name,
                                 boolean consumer) {
        if (registry.containsBeanDefinition(beanName)) {
            return; // the application declared its own
        }
        RootBeanDefinition definition = new RootBeanDefinition(type);
        definition.setInstanceSupplier(() -> {
            KfluxConsumers consumers = ((ConfigurableListableBeanFactory) registry).getBean(KfluxConsumers.class);
            return consumer ? consumers.consumer(name) : consumers.options(name);
        });
        // KfluxConsumers closes the consumer; no destroy method is inferred for this view of it
        definition.setDestroyMethodName(null);
        registry.registerBeanDefinition(beanName, definition);
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    }
}
