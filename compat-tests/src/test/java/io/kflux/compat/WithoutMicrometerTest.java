package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Micrometer is an optional dependency of kflux: a consumer without it on the class path consumes, commits and
 * closes. Runs in the surefire execution {@code without-micrometer}, whose class path leaves every
 * {@code io.micrometer} jar out and which sets {@code kflux.test.withoutMicrometer}; elsewhere (Micrometer present)
 * it is skipped, never passed.
 */
@KafkaTest(nodes = 1)
class WithoutMicrometerTest {

    @Test
    void aConsumerWorksWithoutMicrometerOnTheClassPath(EmbeddedKafkaCluster kafka) {
        assumeTrue(Boolean.getBoolean("kflux.test.withoutMicrometer"), "only in the without-micrometer execution");
        assertThatThrownBy(() -> Class.forName("io.micrometer.core.instrument.MeterRegistry"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("io.micrometer.observation.ObservationRegistry"))
                .isInstanceOf(ClassNotFoundException.class);

        kafka.createTopic("no-micrometer", 2, 1);
        SampleData.produce(kafka.bootstrapServers(), "no-micrometer", 50);
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "group.id", "no-micrometer");
        ConsumerOptions<String, String> options = ConsumerOptions.create(props, Deserializers.string(),
                Deserializers.string()).subscription(List.of("no-micrometer"));
        assertThat(options.meterRegistry()).isEmpty();
        assertThat(options.toString()).isNotEmpty();
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(options);
        try {
            List<ConsumerRecord<String, String>> records = consumer.receive()
                    .doOnNext(ConsumerRecord::acknowledge)
                    .take(50).collectList().block(Duration.ofSeconds(60));
            assertThat(records).hasSize(50);
            consumer.commit().block(Duration.ofSeconds(30));
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
    }
}
