package io.kflux.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConfigException;
import io.kflux.ConsumerOptions;
import io.kflux.Deserializer;
import io.kflux.KafkaFluxConsumer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;

/**
 * The auto-configuration without a broker (no consumer here subscribes to a broker: creating one does no I/O):
 * binding, per-consumer beans, deserializer beans, registries, property errors at start, pipeline failure policies.
 */
class KfluxAutoConfigurationTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KfluxAutoConfiguration.class))
            .withPropertyValues("kflux.consumer.properties.bootstrap.servers=127.0.0.1:9",
                    "kflux.consumer.properties.max.poll.records=7", "kflux.consumer.topics=shared");

    @Test
    void namedConsumersLayTheirKafkaPropertiesOverTheSharedOnesAndBecomeBeans() {
        runner.withPropertyValues(
                        "kflux.consumers.orders.properties.group.id=billing",
                        "kflux.consumers.orders.properties.max.poll.records=11",
                        "kflux.consumers.orders.topics=orders,returns",
                        "kflux.consumers.audit.properties.group.id=audit",
                        "kflux.consumers.audit.close-timeout=3s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KfluxConsumers consumers = context.getBean(KfluxConsumers.class);
                    assertThat(consumers.names()).containsExactly("orders", "audit");
                    ConsumerOptions<?, ?> orders = context.getBean("ordersConsumerOptions", ConsumerOptions.class);
                    assertThat(orders.properties()).containsEntry("bootstrap.servers", "127.0.0.1:9")
                            .containsEntry("group.id", "billing").containsEntry("max.poll.records", "11");
                    assertThat(orders.subscribedTopics()).containsExactly("orders", "returns");
                    ConsumerOptions<?, ?> audit = consumers.options("audit");
                    assertThat(audit.properties()).containsEntry("max.poll.records", "7").containsEntry("group.id", "audit");
                    assertThat(audit.subscribedTopics()).containsExactly("shared");
                    assertThat(consumers.spec("audit").getCloseTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(context.getBean("auditKafkaFluxConsumer")).isSameAs(consumers.consumer("audit"));
                    assertThat(context.getBeansOfType(KafkaFluxConsumer.class)).containsOnlyKeys(
                            "ordersKafkaFluxConsumer", "auditKafkaFluxConsumer");
                });
    }

    @Test
    void misspelledStarterKeysAreNamedAndKafkaKeysAreNot() {
        org.springframework.core.env.StandardEnvironment environment = new org.springframework.core.env.StandardEnvironment();
        java.util.Map<String, Object> values = new java.util.LinkedHashMap<>();
        values.put("kflux.consumer.properties.bootstrap.servers", "127.0.0.1:9");
        values.put("kflux.consumer.topics", "t");
        values.put("kflux.consumer.restart-backof", "2s");
        values.put("kflux.consumers.orders.properties.group.id", "g");
        values.put("kflux.consumers.orders.on-failur", "down");
        values.put("kflux.consumers.orders.on-failure", "restart");
        values.put("kflux.test.anything", "x");
        environment.getPropertySources().addFirst(new org.springframework.core.env.MapPropertySource("test", values));
        KfluxProperties properties = org.springframework.boot.context.properties.bind.Binder.get(environment)
                .bind("kflux", KfluxProperties.class).get();
        assertThat(ConsumerBeansRegistrar.unknownKeys(environment, properties)).containsExactlyInAnyOrder(
                "kflux.consumer.restart-backof", "kflux.consumers.orders.on-failur");
    }

    @Test
    void theSharedConsumerAloneIsTheConsumerNamedDefault() {
        runner.withPropertyValues("kflux.consumer.properties.group.id=g", "kflux.consumer.topics=t")
                .run(context -> {
                    assertThat(context.getBean(KfluxConsumers.class).names()).containsExactly("default");
                    ConsumerOptions<?, ?> options = context.getBean("defaultConsumerOptions", ConsumerOptions.class);
                    assertThat(options.subscribedTopics()).containsExactly("t");
                });
    }

    @Test
    void aConsumerWithoutTopicsFailsTheStartNamingTheProperty() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KfluxAutoConfiguration.class))
                .withPropertyValues("kflux.consumers.orders.properties.bootstrap.servers=127.0.0.1:9",
                        "kflux.consumers.orders.properties.group.id=a")
                .run(context -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "kflux.consumers.orders.topics: no subscription or assignment"));
    }

    @Test
    void deserializersComeFromBeansNamedAfterTheConsumerElseFromTheKafkaPropertiesElseBytes() {
        Deserializer<String> upper = (topic, headers, data) -> StandardCharsets.UTF_8.decode(data).toString().toUpperCase();
        runner.withPropertyValues("kflux.consumers.orders.properties.group.id=a",
                        "kflux.consumers.audit.properties.group.id=b",
                        "kflux.consumers.audit.properties.key.deserializer=org.apache.kafka.common.serialization.LongDeserializer")
                .withBean("ordersValueDeserializer", Deserializer.class, () -> upper)
                .run(context -> {
                    KfluxConsumers consumers = context.getBean(KfluxConsumers.class);
                    assertThat(consumers.options("orders").valueDeserializer()).isSameAs(upper);
                    assertThat(consumers.options("orders").keyDeserializer().deserialize("t", null, bytes("k")))
                            .isEqualTo("k".getBytes(StandardCharsets.UTF_8));
                    assertThat(consumers.options("audit").keyDeserializer().deserialize("t", null,
                            ByteBuffer.allocate(8).putLong(0, 42L))).isEqualTo(42L);
                    assertThat(consumers.options("audit").valueDeserializer().deserialize("t", null, bytes("v")))
                            .isEqualTo("v".getBytes(StandardCharsets.UTF_8));
                });
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theApplicationsMeterAndObservationRegistriesAreBound() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(context -> true);
        runner.withPropertyValues("kflux.consumers.orders.properties.group.id=a")
                .withBean(MeterRegistry.class, () -> meters)
                .withBean(ObservationRegistry.class, () -> observations)
                .run(context -> {
                    ConsumerOptions<?, ?> options = context.getBean(KfluxConsumers.class).options("orders");
                    assertThat(options.meterRegistry()).containsSame(meters);
                    assertThat(options.observationRegistry()).containsSame(observations);
                });
        runner.withPropertyValues("kflux.consumers.orders.properties.group.id=a").run(context -> {
            ConsumerOptions<?, ?> options = context.getBean(KfluxConsumers.class).options("orders");
            assertThat(options.meterRegistry()).isEmpty();
            assertThat(options.observationRegistry()).isEmpty();
        });
    }

    @Test
    void aBadValueFailsTheStartNamingTheSpringPropertyAndKafkasKey() {
        runner.withPropertyValues("kflux.consumers.orders.properties.group.id=a",
                        "kflux.consumers.orders.properties.auto.offset.reset=sometimes")
                .run(context -> {
                    assertThat(context).hasFailed();
                    Throwable failure = context.getStartupFailure();
                    while (!(failure instanceof KfluxConfigurationException)) {
                        failure = failure.getCause();
                    }
                    assertThat(((KfluxConfigurationException) failure).property())
                            .isEqualTo("kflux.consumers.orders.properties.auto.offset.reset");
                    assertThat(failure.getCause()).isInstanceOf(ConfigException.class);
                    assertThat(context.getStartupFailure()).hasStackTraceContaining(
                            "kflux.consumers.orders.properties.auto.offset.reset: Invalid value 'sometimes' for "
                                    + "configuration auto.offset.reset");
                });
        // a shared property is named where it was set
        runner.withPropertyValues("kflux.consumer.properties.session.timeout.ms=soon",
                        "kflux.consumers.orders.properties.group.id=a")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("kflux.consumer.properties.session.timeout.ms: Invalid value 'soon'"));
    }

    @Test
    void aPipelineWithoutAConsumerNameNeedsExactlyOneConsumer() {
        runner.withPropertyValues("kflux.consumers.a.properties.group.id=a", "kflux.consumers.b.properties.group.id=b")
                .withBean(KfluxPipeline.class, () -> consumer -> Flux.never())
                .run(context -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "a KfluxPipeline without a consumer name needs exactly one kflux consumer, but [a, b] are declared"));
        runner.withPropertyValues("kflux.consumers.a.properties.group.id=a")
                .withBean(KfluxPipeline.class, () -> KfluxPipeline.on("z", consumer -> Flux.never()))
                .run(context -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "a KfluxPipeline is for consumer 'z', which is not declared"));
    }

    @Test
    void aFailingPipelineIsRestartedWithBackoffAndStaysUp() {
        AtomicInteger runs = new AtomicInteger();
        runner.withPropertyValues("kflux.consumers.a.properties.group.id=a", "kflux.consumers.a.restart-backoff=10ms",
                        "kflux.consumers.a.restart-max-backoff=20ms")
                .withBean(KfluxPipeline.class, () -> consumer -> runs.incrementAndGet() < 3
                        ? Flux.error(new IllegalStateException("boom")) : Flux.never())
                .run(context -> {
                    KfluxPipelineRunner pipelines = context.getBean(KfluxPipelineRunner.class);
                    awaitState(pipelines, "a", PipelineState.RUNNING, () -> runs.get() >= 3);
                    assertThat(runs.get()).isEqualTo(3);
                    HealthIndicator health = indicator(context.getBean("kfluxHealthContributor",
                            CompositeHealthContributor.class), "a");
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                    assertThat(health.health().getDetails()).containsEntry("restarts", 2)
                            .containsEntry("lastError", "java.lang.IllegalStateException: boom");
                });
    }

    @Test
    void aFailingPipelineWithOnFailureDownStaysStoppedAndReportsDown() {
        AtomicInteger runs = new AtomicInteger();
        runner.withPropertyValues("kflux.consumers.a.properties.group.id=a", "kflux.consumers.a.on-failure=down")
                .withBean(KfluxPipeline.class, () -> consumer -> {
                    runs.incrementAndGet();
                    return Flux.error(new IllegalStateException("no luck"));
                })
                .run(context -> {
                    KfluxPipelineRunner pipelines = context.getBean(KfluxPipelineRunner.class);
                    awaitState(pipelines, "a", PipelineState.FAILED, () -> true);
                    HealthIndicator health = indicator(context.getBean("kfluxHealthContributor",
                            CompositeHealthContributor.class), "a");
                    assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.health().getDetails()).containsEntry("state", "FAILED")
                            .containsEntry("lastError", "java.lang.IllegalStateException: no luck");
                    assertThat(runs.get()).isEqualTo(1);
                });
    }

    private static HealthIndicator indicator(CompositeHealthContributor composite, String name) {
        return (HealthIndicator) composite.getContributor(name);
    }

    private static void awaitState(KfluxPipelineRunner pipelines, String name, PipelineState state,
                                   java.util.function.BooleanSupplier also) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (pipelines.state(name).orElseThrow() == state && also.getAsBoolean()) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError(name + " is " + pipelines.state(name) + ", awaited " + state);
    }

    @Test
    void theConfigurationMetadataListsTheKfluxProperties() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(json).contains("\"kflux.consumer.properties\"", "\"kflux.consumers\"",
                    "\"kflux.consumer.on-failure\"", "\"kflux.consumer.restart-backoff\"", "\"kflux.consumer.close-timeout\"");
        }
    }

}
