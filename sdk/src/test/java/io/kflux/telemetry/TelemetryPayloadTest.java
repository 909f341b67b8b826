package io.kflux.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.MetricsData;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import java.io.ByteArrayInputStream;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** The pushed MetricsData decoded with the OpenTelemetry classes: selection, temporality, compression, labels. */
class TelemetryPayloadTest {
    private static final UUID ID = UUID.fromString("6f1c2e4a-93b0-4d7e-8a55-0c2d9e7f1b33");
    private static final String FETCH = "org.apache.kafka.consumer.fetch.manager.";

    private static final List<MetricPoint> POINTS = List.of(
            new MetricPoint(FETCH + "fetch.latency.avg", false, 12.5, Map.of()),
            new MetricPoint(FETCH + "fetch.total", true, 40, Map.of()),
            new MetricPoint(FETCH + "records.lag", false, 7, Map.of("topic", "orders", "partition", "3")),
            new MetricPoint("org.apache.kafka.consumer.coordinator.commit.total", true, 5, Map.of()));

    private static TelemetrySubscription subscription(boolean delta, List<Byte> codecs, String... prefixes) {
        return new TelemetrySubscription(ID, 3, codecs, 1000, 1 << 20, delta, List.of(prefixes));
    }

    private static MetricsData decode(TelemetryPayload.Encoded e) throws Exception {
        byte[] raw = switch (e.compressionType()) {
            case TelemetryPayload.GZIP -> new GZIPInputStream(new ByteArrayInputStream(e.bytes())).readAllBytes();
            case TelemetryPayload.ZSTD -> Zstd.decompress(e.bytes(), (int) Zstd.getFrameContentSize(e.bytes()));
            default -> e.bytes();
        };
        return MetricsData.parseFrom(raw);
    }

    private static Map<String, Metric> byName(MetricsData data) {
        return data.getResourceMetrics(0).getScopeMetrics(0).getMetricsList().stream()
                .collect(Collectors.toMap(Metric::getName, m -> m));
    }

    private static Map<String, String> attributes(List<KeyValue> kvs) {
        return kvs.stream().collect(Collectors.toMap(KeyValue::getKey, kv -> kv.getValue().getStringValue()));
    }

    @Test
    void pushesOnlyWhatThePrefixesSelectWithTheClientsLabels() throws Exception {
        TelemetryPayload payload = new TelemetryPayload(Map.of("client_id", "orders-1", "group_id", "orders"), 1_000);
        TelemetryPayload.Encoded e = payload.encode(POINTS, subscription(false, List.of(), FETCH), 5_000);
        assertThat(e.compressionType()).isEqualTo(TelemetryPayload.NONE);
        assertThat(e.metricCount()).isEqualTo(3);
        MetricsData data = decode(e);
        assertThat(attributes(data.getResourceMetrics(0).getResource().getAttributesList())).containsEntry("client_id", "orders-1")
                .containsEntry("group_id", "orders").containsEntry("client_instance_id", ID.toString());
        Map<String, Metric> metrics = byName(data);
        assertThat(metrics).containsOnlyKeys(FETCH + "fetch.latency.avg", FETCH + "fetch.total", FETCH + "records.lag");
        assertThat(metrics.get(FETCH + "fetch.latency.avg").getGauge().getDataPoints(0).getAsDouble()).isEqualTo(12.5);
        NumberDataPoint lag = metrics.get(FETCH + "records.lag").getGauge().getDataPoints(0);
        assertThat(attributes(lag.getAttributesList())).containsExactlyInAnyOrderEntriesOf(Map.of("topic", "orders", "partition", "3"));
        assertThat(lag.getTimeUnixNano()).isEqualTo(5_000);

        assertThat(payload.encode(POINTS, subscription(false, List.of(), ""), 6_000).metricCount())
                .as("a single empty prefix selects everything").isEqualTo(4);
    }

    @Test
    void countersAreCumulativeFromTheStartOrDeltasSinceTheLastPush() throws Exception {
        TelemetryPayload cumulative = new TelemetryPayload(Map.of(), 1_000);
        cumulative.encode(POINTS, subscription(false, List.of(), FETCH), 5_000);
        List<MetricPoint> later = List.of(new MetricPoint(FETCH + "fetch.total", true, 55, Map.of()));
        Metric c = byName(decode(cumulative.encode(later, subscription(false, List.of(), FETCH), 9_000))).get(FETCH + "fetch.total");
        assertThat(c.getSum().getAggregationTemporality()).isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
        assertThat(c.getSum().getIsMonotonic()).isTrue();
        assertThat(c.getSum().getDataPoints(0).getAsDouble()).isEqualTo(55);
        assertThat(c.getSum().getDataPoints(0).getStartTimeUnixNano()).isEqualTo(1_000);

        TelemetryPayload delta = new TelemetryPayload(Map.of(), 1_000);
        Metric first = byName(decode(delta.encode(POINTS, subscription(true, List.of(), FETCH), 5_000))).get(FETCH + "fetch.total");
        assertThat(first.getSum().getDataPoints(0).getAsDouble()).isEqualTo(40);
        Metric d = byName(decode(delta.encode(later, subscription(true, List.of(), FETCH), 9_000))).get(FETCH + "fetch.total");
        assertThat(d.getSum().getAggregationTemporality()).isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA);
        assertThat(d.getSum().getDataPoints(0).getAsDouble()).isEqualTo(15);
        assertThat(d.getSum().getDataPoints(0).getStartTimeUnixNano()).isEqualTo(5_000);
    }

    @Test
    void compressesWithTheBrokersFirstCodecKfluxWrites() throws Exception {
        TelemetryPayload payload = new TelemetryPayload(Map.of(), 0);
        for (List<Byte> accepted : List.of(List.of((byte) 4, (byte) 1), List.of((byte) 3, (byte) 2, (byte) 1),
                List.of((byte) 3))) {
            TelemetryPayload.Encoded e = payload.encode(POINTS, subscription(false, accepted, ""), 1);
            byte expected = accepted.contains((byte) 4) ? (byte) 4 : accepted.contains((byte) 1) ? (byte) 1 : (byte) 0;
            assertThat(e.compressionType()).as("accepted %s", accepted).isEqualTo(expected);
            assertThat(byName(decode(e))).hasSize(4);
        }
    }
}
