package io.kflux.examples.spring;

import io.kflux.Deserializer;
import io.kflux.Deserializers;
import io.kflux.spring.boot.KfluxPipeline;
import io.kflux.test.KafkaTestCluster;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot WebFlux application on {@code kflux-spring-boot-starter}: the consumer {@code orders}
 * ({@code application.properties}) feeds a {@link KfluxPipeline} that writes each order to H2 over R2DBC
 * ({@link OrderStore}) and acknowledges the record only once its row is written, so what is committed is always in
 * the database (at least once; a record delivered again overwrites its own row). {@link LagController} shows the
 * consumer's lag over HTTP; Actuator shows its health and meters.
 *
 * <p>Run from the repository root with {@code mvn -q -pl sdk-examples-spring -am compile exec:exec}: without
 * {@code kflux.consumer.properties.bootstrap.servers} it starts kflux-test's broker ({@link EmbeddedBroker}), writes
 * {@code orders.demo.count} sample orders (default 1,000) with the official producer, and runs until Ctrl+C.
 */
@SpringBootApplication
public class OrdersApplication {

    /**
     * Starts the application; see the class description.
     *
     * @param args Spring Boot arguments, e.g. {@code --server.port=8081} or
     *             {@code --kflux.consumer.properties.bootstrap.servers=host:9092}
     */
    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(OrdersApplication.class);
        application.addInitializers(new EmbeddedBroker());
        ConfigurableApplicationContext context = application.run(args);
        context.getBeanProvider(KafkaTestCluster.class).ifAvailable(kafka -> {
            int count = context.getEnvironment().getProperty("orders.demo.count", Integer.class, 1_000);
            String topic = context.getEnvironment().getRequiredProperty("kflux.consumers.orders.topics");
            System.out.printf("Writing %,d orders to topic %s with the official producer...%n", count, topic);
            kafka.produce(SampleOrders.records(topic, count));
            String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
            System.out.printf("Try: curl %s/lag   curl %s/actuator/health/kflux/orders   (Ctrl+C stops it)%n",
                    base, base);
        });
    }

    /** @return the consumer {@code orders}' key deserializer (picked up by its name) */
    @Bean
    Deserializer<String> ordersKeyDeserializer() {
        return Deserializers.string();
    }

    /** @return the consumer {@code orders}' value deserializer (picked up by its name) */
    @Bean
    Deserializer<String> ordersValueDeserializer() {
        return Deserializers.string();
    }

    /**
     * One record at a time, in order: written, then acknowledged (kflux commits acknowledged offsets, on its auto
     * commit interval and when the application shuts down).
     *
     * @param store where orders are written
     * @return the pipeline the starter runs for the consumer {@code orders}
     */
    @Bean
    KfluxPipeline<String, String> ordersToDatabase(OrderStore store) {
        return KfluxPipeline.on("orders", consumer -> consumer.receive()
                .concatMap(record -> store.save(record).doOnSuccess(written -> record.acknowledge())));
    }
}
