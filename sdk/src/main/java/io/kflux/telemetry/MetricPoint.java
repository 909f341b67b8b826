package io.kflux.telemetry;

import java.util.Map;

/**
 * One metric value as telemetry pushes it.
 *
 * @param name       the name the official client pushes ({@code org.apache.kafka.consumer.<group>.<name>}, KIP-714)
 * @param monotonic  a counter ({@code *.total}: pushed as an OTLP monotonic Sum, delta or cumulative as the
 *                   subscription says) or not (an OTLP Gauge)
 * @param value      the value now (a counter's cumulative total)
 * @param attributes the metric's own tags ({@code topic}, {@code partition}, {@code node.id}, ...)
 */
public record MetricPoint(String name, boolean monotonic, double value, Map<String, String> attributes) {

    public MetricPoint {
        attributes = Map.copyOf(attributes);
    }
}
