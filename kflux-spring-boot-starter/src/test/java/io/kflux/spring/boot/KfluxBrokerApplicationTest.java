package io.kflux.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.Deserializer;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.spring.boot.test.KfluxTestBrokerInitializer;
import io.kflux.test.KafkaTestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * A real Spring Boot WebFlux application with a real broker (kflux-test's, through
 * {@link KfluxTestBrokerInitializer}; one broker and one application context for the class): the properties bind,
 * the pipeline consumes and commits, health and meters show over HTTP, and a second application started on the same
 * broker commits and leaves its group at shutdown under both group protocols.
 */
@SpringBootTest(classes = KfluxBrokerApplicationTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
                "kflux.test.topics=spring-orders:2,spring-shutdown-classic,spring-shutdown-consumer",
                "kflux.consumers.orders.topics=spring-orders",
                "kflux.consumers.orders.properties.group.id=spring-billing",
                "kflux.consumers.orders.properties.client.id=spring-billing-1",
                "kflux.consumers.audit.properties.group.id=spring-audit",
                "kflux.consumers.audit.topics=spring-orders",
                "management.endpoints.web.exposure.include=health,metrics",
                "management.endpoint.health.show-details=always"})
@ContextConfiguration(initializers = KfluxTestBrokerInitializer.class)
@AutoConfigureWebTestClient
class KfluxBrokerApplicationTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Received received() {
            return new Received();
        }

        /** picked up by name for consumer "orders": values as strings */
        @Bean
        Deserializer<String> ordersValueDeserializer() {
            return Deserializers.string();
        }

        @Bean
        KfluxPipeline<byte[], String> billing(Received received) {
            return KfluxPipeline.on("orders", consumer -> consumer.receive()
                    .concatMap(record -> record.commit().doOnSuccess(v -> received.values.add(record.value()))));
        }
    }

    /** What the pipeline processed. */
    static final class Received {
        final List<String> values = new CopyOnWriteArrayList<>();
    }

    @Autowired
    KafkaTestCluster kafka;
    @Autowired
    Received received;
    @Autowired
    WebTestClient http;
    @Autowired
    @Qualifier("ordersKafkaFluxConsumer")
    KafkaFluxConsumer<byte[], String> orders;

    @Test
    void thePipelineConsumesAndCommitsAndHealthAndMetersShowOverHttp() {
        kafka.produce("spring-orders", 0, "a", "b");
        kafka.produce("spring-orders", 1, "c");
        kafka.awaitCommitted("spring-billing", new TopicPartition("spring-orders", 0), 2, WAIT);
        kafka.awaitCommitted("spring-billing", new TopicPartition("spring-orders", 1), 1, WAIT);
        assertThat(received.values).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(orders.assignment()).containsExactlyInAnyOrder(
                new TopicPartition("spring-orders", 0), new TopicPartition("spring-orders", 1));

        http.get().uri("/actuator/health/kflux/orders").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("UP")
                .jsonPath("$.details.state").isEqualTo("RUNNING")
                .jsonPath("$.details.assignment.length()").isEqualTo(2)
                .jsonPath("$.details.lag['spring-orders-0']").isEqualTo(0)
                .jsonPath("$.details.totalLag").isEqualTo(0);
        // audit has no pipeline: never subscribed, nothing assigned
        http.get().uri("/actuator/health/kflux/audit").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.details.state").isEqualTo("NO_PIPELINE")
                .jsonPath("$.details.assignment.length()").isEqualTo(0);
        http.get().uri("/actuator/metrics/kafka.consumer.fetch.manager.records.consumed.total?tag=client.id:spring-billing-1")
                .exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.measurements[0].value").isEqualTo(3.0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void shutdownCommitsTheAcknowledgedOffsetsAndLeavesTheGroup(String protocol) throws Exception {
        String topic = "spring-shutdown-" + protocol;
        String group = "spring-shutdown-group-" + protocol;
        kafka.produce(topic, 0, "1", "2", "3", "4");
        Received seen = new Received();
        ConfigurableApplicationContext app = new SpringApplicationBuilder(ShutdownApp.class)
                .web(WebApplicationType.NONE)
                .initializers(context -> context.getBeanFactory().registerSingleton("received", seen))
                .properties(
                        "kflux.consumer.properties.bootstrap.servers=" + kafka.bootstrapServers(),
                        "kflux.consumer.properties.auto.offset.reset=earliest",
                        "kflux.consumer.properties.group.id=" + group,
                        "kflux.consumer.properties.group.protocol=" + protocol,
                        // nothing commits but the close at shutdown
                        "kflux.consumer.properties.enable.auto.commit=false",
                        "kflux.consumer.topics=" + topic)
                .run();
        try {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (seen.values.size() < 4 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(seen.values).containsExactly("1", "2", "3", "4");
            assertThat(kafka.committedOffsets(group)).isEmpty();
            assertThat(members(group)).isEqualTo(1);
        } finally {
            app.close();
        }
        assertThat(kafka.committedOffsets(group)).containsExactly(Map.entry(new TopicPartition(topic, 0), 4L));
        assertThat(members(group)).isZero();
    }

    private int members(String group) throws Exception {
        ConsumerGroupDescription description = kafka.cluster().admin().describeConsumerGroups(List.of(group))
                .describedGroups().get(group).get(30, TimeUnit.SECONDS);
        return description.members().size();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ShutdownApp {
        /** acknowledges every record; only the close at shutdown commits */
        @Bean
        KfluxPipeline<byte[], byte[]> acknowledging(Received received) {
            return consumer -> consumer.receive().doOnNext(ConsumerRecord::acknowledge)
                    .doOnNext(record -> received.values.add(new String(record.value(), java.nio.charset.StandardCharsets.UTF_8)));
        }
    }
}
