package io.kflux.internal.metrics;

import io.kflux.network.NetworkOptions;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoubleSupplier;

/**
 * The official share consumer's {@code consumer-share-fetch-manager-metrics} (KIP-932) named as Micrometer's
 * {@code KafkaClientMetrics} publishes them: {@code kafka.consumer.share.fetch.manager.<name>}, dashes as dots,
 * counters for {@code -total}, gauges otherwise, tags {@code client.id} and {@code kafka.version}, as
 * {@link MicrometerConsumerMetrics} names the consumer's. Latencies in milliseconds, sizes in bytes, rates per second
 * over the official client's two 30 s windows.
 *
 * <p>Where the meaning differs: {@code records-consumed} and {@code bytes-consumed} count the records a ShareFetch
 * acquired (the official client counts them as {@code poll()} returns them; {@code receive()} hands them on as
 * demanded, within {@code max.poll.records}). Not published: {@code consumer-share-metrics}' poll timings
 * ({@code last-poll-seconds-ago}, {@code time-between-poll-*}, {@code poll-idle-ratio-avg}): {@code receive()} has
 * no poll.
 */
final class MicrometerShareMeters implements ShareMeters {
    private static final String SHARE = "kafka.consumer.share.fetch.manager.";
    private static final double NANOS_PER_MS = 1_000_000.0;

    private final MeterRegistry registry;
    private final List<Meter> meters = new CopyOnWriteArrayList<>();
    private final List<Object> keepAlive = new CopyOnWriteArrayList<>();
    private final WindowedStat fetches = new WindowedStat();
    private final WindowedStat throttle = new WindowedStat();
    private final WindowedStat fetchSize = new WindowedStat();
    private final WindowedStat recordsPerRequest = new WindowedStat();
    private final WindowedStat acknowledgements = new WindowedStat();
    private final WindowedStat acknowledgementErrors = new WindowedStat();
    private volatile boolean closed;

    private MicrometerShareMeters(MeterRegistry registry, String clientId) {
        this.registry = registry;
        Tags tags = Tags.of("client.id", clientId, "kafka.version", NetworkOptions.SOFTWARE_VERSION);
        gauge("fetch.latency.avg", tags, () -> fetches.avg(System.nanoTime()));
        gauge("fetch.latency.max", tags, () -> fetches.max(System.nanoTime()));
        counter("fetch.total", tags, fetches::totalCount);
        gauge("fetch.rate", tags, () -> fetches.rate(System.nanoTime(), false));
        gauge("fetch.throttle.time.avg", tags, () -> throttle.avg(System.nanoTime()));
        gauge("fetch.throttle.time.max", tags, () -> throttle.max(System.nanoTime()));
        gauge("fetch.size.avg", tags, () -> fetchSize.avg(System.nanoTime()));
        gauge("fetch.size.max", tags, () -> fetchSize.max(System.nanoTime()));
        counter("bytes.consumed.total", tags, fetchSize::totalSum);
        gauge("bytes.consumed.rate", tags, () -> fetchSize.rate(System.nanoTime(), true));
        gauge("records.per.request.avg", tags, () -> recordsPerRequest.avg(System.nanoTime()));
        gauge("records.per.request.max", tags, () -> recordsPerRequest.max(System.nanoTime()));
        counter("records.consumed.total", tags, recordsPerRequest::totalSum);
        gauge("records.consumed.rate", tags, () -> recordsPerRequest.rate(System.nanoTime(), true));
        counter("acknowledgements.send.total", tags, acknowledgements::totalSum);
        gauge("acknowledgements.send.rate", tags, () -> acknowledgements.rate(System.nanoTime(), true));
        counter("acknowledgements.error.total", tags, acknowledgementErrors::totalSum);
        gauge("acknowledgements.error.rate", tags, () -> acknowledgementErrors.rate(System.nanoTime(), true));
    }

    static ShareMeters of(Object registry, String clientId) {
        if (!(registry instanceof MeterRegistry r)) {
            throw new IllegalArgumentException("not a Micrometer MeterRegistry: " + registry.getClass().getName());
        }
        return new MicrometerShareMeters(r, clientId);
    }

    @Override
    public boolean enabled() {
        return !closed;
    }

    @Override
    public void shareFetchCompleted(long latencyNanos, int throttleMs, long bytes, int records) {
        long now = System.nanoTime();
        fetches.record(latencyNanos / NANOS_PER_MS, now);
        throttle.record(throttleMs, now);
        fetchSize.record(bytes, now);
        recordsPerRequest.record(records, now);
    }

    @Override
    public void shareAcknowledgementsAnswered(int sent, int failed) {
        long now = System.nanoTime();
        acknowledgements.record(sent, now);
        if (failed > 0) {
            acknowledgementErrors.record(failed, now);
        }
    }

    @Override
    public void close() {
        closed = true;
        meters.forEach(registry::remove);
        meters.clear();
    }

    private void gauge(String name, Tags tags, DoubleSupplier value) {
        meters.add(Gauge.builder(SHARE + name, value, DoubleSupplier::getAsDouble).strongReference(true).tags(tags)
                .register(registry));
    }

    private void counter(String name, Tags tags, DoubleSupplier value) {
        keepAlive.add(value); // a FunctionCounter holds its object weakly
        meters.add(FunctionCounter.builder(SHARE + name, value, DoubleSupplier::getAsDouble).tags(tags)
                .register(registry));
    }
}
