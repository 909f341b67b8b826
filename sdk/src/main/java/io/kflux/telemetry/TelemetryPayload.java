package io.kflux.telemetry;

import com.github.luben.zstd.Zstd;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.MetricsData;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.resource.v1.Resource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;

/**
 * Builds the body of a PushTelemetry request: an OTLP {@code MetricsData} (KIP-714 "metrics serialization"), built
 * with the published OpenTelemetry protobuf classes, of the points a subscription selects, compressed as the broker
 * accepts. Keeps, per counter, the total last pushed so delta temporality can send differences; one instance per
 * client, used by one push at a time.
 */
public final class TelemetryPayload {
    /** Record-batch compression ids (KIP-714 reuses them). */
    static final byte NONE = 0;
    static final byte GZIP = 1;
    static final byte ZSTD = 4;
    private static final String SCOPE = "org.apache.kafka";

    private final Map<String, String> resourceAttributes;
    private final Map<String, double[]> lastTotals = new HashMap<>();
    private final long startNanos;
    private long lastPushNanos;

    /**
     * @param resourceAttributes the client's labels (KIP-714 "client resource labels": {@code client_id},
     *                           {@code group_id}, ...); null values left out
     * @param startEpochNanos    when the client started (cumulative sums start there), epoch nanoseconds
     */
    public TelemetryPayload(Map<String, String> resourceAttributes, long startEpochNanos) {
        Map<String, String> copy = new LinkedHashMap<>();
        resourceAttributes.forEach((k, v) -> {
            if (v != null && !v.isEmpty()) {
                copy.put(k, v);
            }
        });
        this.resourceAttributes = copy;
        this.startNanos = startEpochNanos;
        this.lastPushNanos = startEpochNanos;
    }

    /** The encoded, compressed push and the compression it used. */
    public record Encoded(byte compressionType, byte[] bytes, int metricCount) {
    }

    /**
     * The subscribed subset of {@code points} as {@code MetricsData}, compressed with the first codec of the
     * broker's list kflux writes (none, gzip, zstd), none when the list names none of them.
     *
     * @param points       every metric of the client now
     * @param subscription what the broker asked for (prefixes, temporality, compressions)
     * @param nowEpochNanos the time of the data points, epoch nanoseconds
     */
    public Encoded encode(List<MetricPoint> points, TelemetrySubscription subscription, long nowEpochNanos) {
        Map<String, String> resource = new LinkedHashMap<>(resourceAttributes);
        resource.put("client_instance_id", subscription.clientInstanceId().toString());
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder()
                .setScope(InstrumentationScope.newBuilder().setName(SCOPE).build());
        int count = 0;
        for (MetricPoint p : points) {
            if (!subscription.selects(p.name())) {
                continue;
            }
            scope.addMetrics(metric(p, subscription.deltaTemporality(), nowEpochNanos));
            count++;
        }
        lastPushNanos = nowEpochNanos;
        MetricsData data = MetricsData.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder().addAllAttributes(keyValues(resource)).build())
                        .addScopeMetrics(scope.build()))
                .build();
        byte codec = codec(subscription.acceptedCompressions());
        return new Encoded(codec, compress(data.toByteArray(), codec), count);
    }

    private Metric metric(MetricPoint p, boolean delta, long now) {
        Map<String, String> sorted = new TreeMap<>(p.attributes());
        NumberDataPoint.Builder point = NumberDataPoint.newBuilder().addAllAttributes(keyValues(sorted))
                .setTimeUnixNano(now);
        Metric.Builder metric = Metric.newBuilder().setName(p.name());
        if (!p.monotonic()) {
            return metric.setGauge(Gauge.newBuilder().addDataPoints(point.setAsDouble(p.value()))).build();
        }
        double[] last = lastTotals.computeIfAbsent(p.name() + sorted, k -> new double[] {0});
        double value = delta ? p.value() - last[0] : p.value();
        last[0] = p.value();
        point.setStartTimeUnixNano(delta ? lastPushNanos : startNanos).setAsDouble(value);
        return metric.setSum(Sum.newBuilder().setIsMonotonic(true).addDataPoints(point)
                .setAggregationTemporality(delta ? AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA
                        : AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)).build();
    }

    private static List<KeyValue> keyValues(Map<String, String> attributes) {
        return attributes.entrySet().stream().map(e -> KeyValue.newBuilder().setKey(e.getKey())
                .setValue(AnyValue.newBuilder().setStringValue(e.getValue())).build()).toList();
    }

    static byte codec(List<Byte> accepted) {
        for (byte b : accepted) {
            if (b == NONE || b == GZIP || b == ZSTD) {
                return b;
            }
        }
        return NONE;
    }

    static byte[] compress(byte[] raw, byte codec) {
        return switch (codec) {
            case GZIP -> gzip(raw);
            case ZSTD -> Zstd.compress(raw);
            default -> raw;
        };
    }

    private static byte[] gzip(byte[] raw) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length / 2 + 64);
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(raw);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array stream does not fail
        }
        return out.toByteArray();
    }
}
