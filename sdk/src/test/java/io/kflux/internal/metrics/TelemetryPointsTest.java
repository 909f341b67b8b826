package io.kflux.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.telemetry.MetricPoint;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The consumer's meters as client telemetry pushes them: KIP-714 names, counters marked, client labels dropped. */
class TelemetryPointsTest {

    @Test
    void metersBecomeTheOfficialTelemetryNamesWithTheirOwnTagsOnly() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ConsumerMetrics metrics = ConsumerMetrics.create(registry, "orders-1");
        metrics.start(new ConsumerMetrics.Figures(() -> 0, 1024, () -> 0, () -> 3, true));
        metrics.connectionCreated();
        metrics.requestSent(1, 100);
        metrics.requestSent(1, 50);
        metrics.topicFetched("orders", 4096, 12);

        Map<String, MetricPoint> points = metrics.telemetryPoints().stream()
                .collect(Collectors.toMap(p -> p.name() + p.attributes(), Function.identity(), (x, y) -> x));
        assertThat(points.keySet()).allMatch(k -> k.startsWith("org.apache.kafka.consumer."));
        MetricPoint requests = points.get("org.apache.kafka.consumer.request.total{}");
        assertThat(requests.monotonic()).isTrue();
        assertThat(requests.value()).isEqualTo(2);
        MetricPoint connections = points.get("org.apache.kafka.consumer.connection.count{}");
        assertThat(connections.monotonic()).isFalse();
        assertThat(connections.value()).isEqualTo(1);
        assertThat(points.get("org.apache.kafka.consumer.coordinator.assigned.partitions{}").value()).isEqualTo(3);
        assertThat(points.values()).allSatisfy(p -> assertThat(p.attributes()).doesNotContainKeys("client.id", "kafka.version"));
        assertThat(points.keySet()).anyMatch(k -> k.contains("{topic=orders}"));
        metrics.close();
    }

    @Test
    void withoutAnApplicationRegistryTelemetryGetsMetersOfItsOwnAndNoneWhenOff() {
        ConsumerMetrics own = ConsumerMetrics.create(null, "orders-1", true);
        assertThat(own).isNotSameAs(ConsumerMetrics.NONE);
        own.start(new ConsumerMetrics.Figures(() -> 0, 1024, () -> 0, () -> 0, false));
        assertThat(own.telemetryPoints()).extracting(MetricPoint::name).contains("org.apache.kafka.consumer.request.total");
        own.close();
        assertThat(ConsumerMetrics.create(null, "orders-1", false)).isSameAs(ConsumerMetrics.NONE);
        assertThat(ConsumerMetrics.NONE.telemetryPoints()).isEqualTo(List.of());
    }
}
