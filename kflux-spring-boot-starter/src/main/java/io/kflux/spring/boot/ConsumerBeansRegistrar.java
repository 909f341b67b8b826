package io.kflux.spring.boot;

import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Registers, for each declared consumer, the beans {@code <name>KafkaFluxConsumer} and {@code <name>ConsumerOptions}
 * (both taken from {@link KfluxConsumers}), so an application injects one with
 * {@code @Qualifier("ordersKafkaFluxConsumer")}. The names are read from the environment before any bean exists.
 */
final class ConsumerBeansRegistrar implements BeanDefinitionRegistryPostProcessor {

    private final Environment environment;

    ConsumerBeansRegistrar(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        KfluxProperties properties = Binder.get(environment)
                .bind("kflux", Bindable.of(KfluxProperties.class)).orElseGet(KfluxProperties::new);
        for (String name : KfluxConsumers.declared(properties).keySet()) {
            register(registry, name + "KafkaFluxConsumer", KafkaFluxConsumer.class, name, true);
            register(registry, name + "ConsumerOptions", ConsumerOptions.class, name, false);
        }
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
