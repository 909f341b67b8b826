package io.kflux.internal.metrics;

import io.kflux.network.NetworkOptions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/** {@link ProcessingMeters} as Micrometer meters named {@code kflux.processing.*}. */
final class MicrometerProcessingMeters implements ProcessingMeters {
    private final MeterRegistry registry;
    private final Counter retries;
    private final Counter failedHandled;
    private final Counter skipped;
    private final Timer latency;
    private final List<Meter> meters;

    private MicrometerProcessingMeters(MeterRegistry registry, String clientId, IntSupplier inFlight,
                                       IntSupplier waiting, IntSupplier mostWaitingPerKey) {
        this.registry = registry;
        Tags tags = Tags.of("client.id", clientId, "kafka.version", NetworkOptions.SOFTWARE_VERSION);
        Gauge inFlightGauge = Gauge.builder("kflux.processing.in.flight", inFlight, IntSupplier::getAsInt)
                .description("records of process() whose handler (or failure handler) runs now")
                .tags(tags).strongReference(true).register(registry);
        Gauge waitingGauge = Gauge.builder("kflux.processing.waiting", waiting, IntSupplier::getAsInt)
                .description("records of process() held and not started: their key or partition is busy, or"
                        + " maxInFlight is reached").tags(tags).strongReference(true).register(registry);
        Gauge mostWaitingGauge = Gauge.builder("kflux.processing.waiting.key.max", mostWaitingPerKey,
                        IntSupplier::getAsInt)
                .description("the most records of process() held behind one key's record (one partition's under"
                        + " PARTITION ordering; 0 under UNORDERED)").tags(tags).strongReference(true).register(registry);
        this.retries = Counter.builder("kflux.processing.retries").description("handler calls after a failed one")
                .tags(tags).register(registry);
        this.failedHandled = Counter.builder("kflux.processing.failed.handled")
                .description("records whose last attempt failed, handed to the failure handler").tags(tags)
                .register(registry);
        this.skipped = Counter.builder("kflux.processing.skipped")
                .description("records whose last attempt failed, skipped").tags(tags).register(registry);
        this.latency = Timer.builder("kflux.processing.handler.latency")
                .description("from a record's first handler call to its outcome, retries included").tags(tags)
                .register(registry);
        this.meters = List.of(inFlightGauge, waitingGauge, mostWaitingGauge, retries, failedHandled, skipped, latency);
    }

    static ProcessingMeters of(Object registry, String clientId, IntSupplier inFlight, IntSupplier waiting,
                               IntSupplier mostWaitingPerKey) {
        if (!(registry instanceof MeterRegistry r)) {
            throw new IllegalArgumentException("not a Micrometer MeterRegistry: " + registry.getClass().getName());
        }
        return new MicrometerProcessingMeters(r, clientId, inFlight, waiting, mostWaitingPerKey);
    }

    @Override
    public void retried() {
        retries.increment();
    }

    @Override
    public void failedHandled() {
        failedHandled.increment();
    }

    @Override
    public void skipped() {
        skipped.increment();
    }

    @Override
    public void finished(long nanos) {
        latency.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        meters.forEach(registry::remove);
    }
}
