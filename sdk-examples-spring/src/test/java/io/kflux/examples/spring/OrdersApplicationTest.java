package io.kflux.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.TopicPartition;
import io.kflux.spring.boot.KfluxPipelineRunner;
import io.kflux.spring.boot.test.KfluxTestBrokerInitializer;
import io.kflux.test.KafkaTestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The example application against kflux-test's broker, started as {@code main} starts it ({@link EmbeddedBroker}):
 * orders written with the official producer before the pipeline starts wait (lag over HTTP above 0, nothing stored)
 * while the database is held back, are all stored once it is not (lag 0), and the application's shutdown commits
 * what was written and leaves the group. Auto commit is off here so that only the shutdown commits.
 */
@SpringBootTest(classes = {OrdersApplication.class, OrdersApplicationTest.HeldBackDatabase.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "kflux.consumers.orders.properties.enable.auto.commit=false")
@ContextConfiguration(initializers = {EmbeddedBroker.class, OrdersApplicationTest.OrdersFirst.class})
// WebTestClient's default 5 s per exchange is short for a first request on a loaded machine
@AutoConfigureWebTestClient(timeout = "30s")
@DirtiesContext
class OrdersApplicationTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int PER_PARTITION = 20;
    private static final String GROUP = "order-writer";

    /** Writes the orders once the broker is up, before the context (and so the pipeline) starts. */
    static final class OrdersFirst implements ApplicationContextInitializer<ConfigurableApplicationContext> {
        @Override
        public void initialize(ConfigurableApplicationContext context) {
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    context.getEnvironment().getRequiredProperty(KfluxTestBrokerInitializer.BOOTSTRAP));
            try (KafkaProducer<String, String> producer =
                         new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
                for (ProducerRecord<String, String> order : SampleOrders.records("orders", 2 * PER_PARTITION)) {
                    // half to each partition, so both have a lag
                    int partition = Integer.parseInt(order.key().substring("order-".length())) % 2;
                    producer.send(new ProducerRecord<>(order.topic(), partition, order.key(), order.value()));
                }
                producer.flush();
            }
        }
    }

    /** The database write waits until the test opens the gate: records wait, so the lag stays. */
    @TestConfiguration(proxyBeanMethods = false)
    static class HeldBackDatabase {
        @Bean
        Sinks.Empty<Void> gate() {
            return Sinks.empty();
        }

        @Bean
        @Primary
        OrderStore heldBackStore(DatabaseClient database, Sinks.Empty<Void> gate) {
            return new OrderStore(database) {
                @Override
                public Mono<Void> save(ConsumerRecord<String, String> record) {
                    return gate.asMono().then(super.save(record));
                }
            };
        }
    }

    @Autowired
    WebTestClient http;
    @Autowired
    KafkaTestCluster kafka;
    @Autowired
    DatabaseClient database;
    @Autowired
    Sinks.Empty<Void> gate;
    @Autowired
    ConfigurableApplicationContext context;

    @Test
    void ordersWaitWithALagThenAreStoredAndTheShutdownCommitsThem() throws Exception {
        LagController.Lag waiting = awaitLag(lag -> lag.total() > 0);
        assertThat(waiting.stored()).isZero();

        gate.tryEmitEmpty();
        LagController.Lag done = awaitLag(lag -> lag.stored() == 2 * PER_PARTITION && lag.total() == 0);
        assertThat(done.partitions()).containsOnlyKeys("orders-0", "orders-1");
        List<String> ids = database.sql("SELECT order_id FROM orders").map(row -> row.get("order_id", String.class))
                .all().collectList().block(WAIT);
        assertThat(ids).hasSize(2 * PER_PARTITION)
                .containsAll(SampleOrders.records("orders", 2 * PER_PARTITION).stream().map(ProducerRecord::key).toList());
        http.get().uri("/actuator/health/kflux/orders").exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.details.state").isEqualTo("RUNNING");
        assertThat(kafka.committedOffsets(GROUP)).isEmpty();
        assertThat(members()).isEqualTo(1);

        // the stop phase of the application's shutdown (the broker, a bean, stays until the context is destroyed)
        context.stop();
        assertThat(context.getBean(KfluxPipelineRunner.class).isRunning()).isFalse();
        assertThat(kafka.committedOffsets(GROUP)).containsOnly(
                Map.entry(new TopicPartition("orders", 0), (long) PER_PARTITION),
                Map.entry(new TopicPartition("orders", 1), (long) PER_PARTITION));
        assertThat(members()).isZero();
    }

    private LagController.Lag awaitLag(Predicate<LagController.Lag> condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        LagController.Lag lag;
        do {
            lag = http.get().uri("/lag").exchange().expectStatus().isOk()
                    .expectBody(LagController.Lag.class).returnResult().getResponseBody();
            if (lag != null && condition.test(lag)) {
                return lag;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("GET /lag did not reach the expected state within " + WAIT + "; last: " + lag);
    }

    private int members() throws Exception {
        return kafka.cluster().admin().describeConsumerGroups(List.of(GROUP)).describedGroups().get(GROUP)
                .get(30, TimeUnit.SECONDS).members().size();
    }
}
