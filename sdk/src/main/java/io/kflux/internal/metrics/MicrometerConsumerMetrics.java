package io.kflux.internal.metrics;

import io.kflux.network.NetworkOptions;
import io.kflux.telemetry.MetricPoint;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The one place kflux meets Micrometer: {@link ConsumerMetrics} as meters named, typed and tagged as Micrometer's
 * {@code KafkaClientMetrics} publishes the official consumer's metrics ({@code kafka.<group>.<name>}, dashes as
 * dots; counters for {@code -total}, gauges otherwise; tags {@code client.id}, {@code kafka.version} and the
 * metric's own, e.g. {@code topic}, {@code partition}, {@code node.id}). Where the official client has a metric both
 * per client and per topic or partition, only the detailed one is published, as {@code KafkaClientMetrics} keeps
 * it. kflux's own meters start with {@code kflux.}. Latencies are in milliseconds, as the official client's.
 *
 * <p>The compat test {@code MetricsCompatTest} holds these names against {@code KafkaClientMetrics} beside the
 * official consumer; the guide's "Metrics and tracing" chapter tables them.
 */
final class MicrometerConsumerMetrics implements ConsumerMetrics {
    private static final String FETCH = "kafka.consumer.fetch.manager.";
    private static final String COORDINATOR = "kafka.consumer.coordinator.";
    private static final String CONSUMER = "kafka.consumer.";
    private static final String NODE = "kafka.consumer.node.";
    private static final double NANOS_PER_MS = 1_000_000.0;

    private final MeterRegistry registry;
    private final Tags tags;
    private final List<Meter> meters = new CopyOnWriteArrayList<>();
    private final Map<String, Meter> partitionMeters = new ConcurrentHashMap<>();
    private final List<Object> keepAlive = new CopyOnWriteArrayList<>();
    /** Per assigned partition: records fetched, not emitted yet. */
    private final Map<String, LongSupplier> waiting = new ConcurrentHashMap<>();
    private final Map<String, TopicStats> topics = new ConcurrentHashMap<>();
    private final Map<Integer, WindowedStat> nodeLatency = new ConcurrentHashMap<>();
    private final Object lifecycle = new Object();
    private boolean started;
    private volatile boolean closed;

    private final AtomicLong connections = new AtomicLong();
    private final WindowedStat connectionsCreated = new WindowedStat();
    private final WindowedStat connectionsClosed = new WindowedStat();
    private final WindowedStat requests = new WindowedStat();
    private final WindowedStat responses = new WindowedStat();
    private final WindowedStat fetches = new WindowedStat();
    private final WindowedStat throttle = new WindowedStat();
    private final WindowedStat commits = new WindowedStat();
    private final WindowedStat joins = new WindowedStat();
    private final WindowedStat syncs = new WindowedStat();
    private final WindowedStat rebalances = new WindowedStat();
    private final WindowedStat failedRebalances = new WindowedStat();
    private final WindowedStat heartbeats = new WindowedStat();
    private final Map<ListenerCallback, WindowedStat> listenerCalls = new java.util.EnumMap<>(ListenerCallback.class);
    private volatile long lastHeartbeatNanos;
    private volatile long lastRebalanceNanos;

    /** Records and bytes emitted of one topic; bytes and records per Fetch answer. */
    private static final class TopicStats {
        final WindowedStat records = new WindowedStat();
        final WindowedStat bytes = new WindowedStat();
        final WindowedStat fetchSize = new WindowedStat();
        final WindowedStat recordsPerRequest = new WindowedStat();
    }

    private MicrometerConsumerMetrics(MeterRegistry registry, String clientId) {
        this.registry = registry;
        this.tags = Tags.of("client.id", clientId, "kafka.version", NetworkOptions.SOFTWARE_VERSION);
        for (ListenerCallback c : ListenerCallback.values()) {
            listenerCalls.put(c, new WindowedStat());
        }
    }

    /** The meters in a registry of this consumer's own (client telemetry without an application registry). */
    static ConsumerMetrics ofOwnRegistry(String clientId) {
        return new MicrometerConsumerMetrics(new SimpleMeterRegistry(), clientId);
    }

    static ConsumerMetrics of(Object registry, String clientId) {
        if (!(registry instanceof MeterRegistry r)) {
            throw new IllegalArgumentException("not a Micrometer MeterRegistry: " + registry.getClass().getName());
        }
        return new MicrometerConsumerMetrics(r, clientId);
    }

    /**
     * KIP-714 names the official client's metrics {@code org.apache.kafka.<group>.<name>} with the group's
     * {@code -metrics} dropped and dashes as dots: this class's {@code kafka.<group>.<name>} with {@code org.apache.}
     * before it. {@code client.id} and {@code kafka.version} are the client's labels, not the metric's.
     */
    @Override
    public List<MetricPoint> telemetryPoints() {
        List<MetricPoint> points = new ArrayList<>();
        List<Meter> all = new ArrayList<>(meters);
        all.addAll(partitionMeters.values());
        for (Meter meter : all) {
            String name = meter.getId().getName();
            if (!name.startsWith(CONSUMER)) {
                continue;
            }
            Map<String, String> attributes = new HashMap<>();
            for (Tag tag : meter.getId().getTags()) {
                if (!tag.getKey().equals("client.id") && !tag.getKey().equals("kafka.version")) {
                    attributes.put(tag.getKey(), tag.getValue());
                }
            }
            for (Measurement m : meter.measure()) {
                if (Double.isFinite(m.getValue())) {
                    points.add(new MetricPoint("org.apache." + name, meter instanceof FunctionCounter, m.getValue(),
                            attributes));
                }
                break; // gauges and function counters have one measurement
            }
        }
        return points;
    }

    @Override
    public boolean enabled() {
        return !closed;
    }

    // --------------------------------------------------------------------------------------- lifecycle

    @Override
    public void start(Figures figures) {
        synchronized (lifecycle) {
            if (started || closed) {
                return;
            }
            started = true;
        }
        // network: consumer-metrics (per client) and consumer-node-metrics (per node, registered as nodes answer)
        gauge(CONSUMER + "connection.count", tags, connections::get);
        counter(CONSUMER + "connection.creation.total", tags, connectionsCreated::totalCount);
        gauge(CONSUMER + "connection.creation.rate", tags, () -> connectionsCreated.rate(System.nanoTime(), false));
        counter(CONSUMER + "connection.close.total", tags, connectionsClosed::totalCount);
        gauge(CONSUMER + "connection.close.rate", tags, () -> connectionsClosed.rate(System.nanoTime(), false));
        counter(CONSUMER + "request.total", tags, requests::totalCount);
        gauge(CONSUMER + "request.rate", tags, () -> requests.rate(System.nanoTime(), false));
        gauge(CONSUMER + "request.size.avg", tags, () -> requests.avg(System.nanoTime()));
        gauge(CONSUMER + "request.size.max", tags, () -> requests.max(System.nanoTime()));
        counter(CONSUMER + "response.total", tags, responses::totalCount);
        gauge(CONSUMER + "response.rate", tags, () -> responses.rate(System.nanoTime(), false));
        counter(CONSUMER + "outgoing.byte.total", tags, requests::totalSum);
        gauge(CONSUMER + "outgoing.byte.rate", tags, () -> requests.rate(System.nanoTime(), true));
        counter(CONSUMER + "incoming.byte.total", tags, responses::totalSum);
        gauge(CONSUMER + "incoming.byte.rate", tags, () -> responses.rate(System.nanoTime(), true));
        // fetch manager, per client (the per-topic ones are registered as topics are consumed)
        gauge(FETCH + "fetch.latency.avg", tags, () -> fetches.avg(System.nanoTime()));
        gauge(FETCH + "fetch.latency.max", tags, () -> fetches.max(System.nanoTime()));
        counter(FETCH + "fetch.total", tags, fetches::totalCount);
        gauge(FETCH + "fetch.rate", tags, () -> fetches.rate(System.nanoTime(), false));
        gauge(FETCH + "fetch.throttle.time.avg", tags, () -> throttle.avg(System.nanoTime()));
        gauge(FETCH + "fetch.throttle.time.max", tags, () -> throttle.max(System.nanoTime()));
        // coordinator
        gauge(COORDINATOR + "assigned.partitions", tags, () -> figures.assignedPartitions().getAsLong());
        gauge(COORDINATOR + "commit.latency.avg", tags, () -> commits.avg(System.nanoTime()));
        gauge(COORDINATOR + "commit.latency.max", tags, () -> commits.max(System.nanoTime()));
        counter(COORDINATOR + "commit.total", tags, commits::totalCount);
        gauge(COORDINATOR + "commit.rate", tags, () -> commits.rate(System.nanoTime(), false));
        if (figures.classicGroup()) {
            gauge(COORDINATOR + "join.time.avg", tags, () -> joins.avg(System.nanoTime()));
            gauge(COORDINATOR + "join.time.max", tags, () -> joins.max(System.nanoTime()));
            counter(COORDINATOR + "join.total", tags, joins::totalCount);
            gauge(COORDINATOR + "join.rate", tags, () -> joins.rate(System.nanoTime(), false));
            gauge(COORDINATOR + "sync.time.avg", tags, () -> syncs.avg(System.nanoTime()));
            gauge(COORDINATOR + "sync.time.max", tags, () -> syncs.max(System.nanoTime()));
            counter(COORDINATOR + "sync.total", tags, syncs::totalCount);
            gauge(COORDINATOR + "sync.rate", tags, () -> syncs.rate(System.nanoTime(), false));
        }
        counter(COORDINATOR + "rebalance.total", tags, rebalances::totalCount);
        gauge(COORDINATOR + "rebalance.rate.per.hour", tags, () -> rebalances.rate(System.nanoTime(), false) * 3600);
        gauge(COORDINATOR + "rebalance.latency.avg", tags, () -> rebalances.avg(System.nanoTime()));
        gauge(COORDINATOR + "rebalance.latency.max", tags, () -> rebalances.max(System.nanoTime()));
        counter(COORDINATOR + "rebalance.latency.total", tags, rebalances::totalSum);
        counter(COORDINATOR + "failed.rebalance.total", tags, failedRebalances::totalCount);
        gauge(COORDINATOR + "failed.rebalance.rate.per.hour", tags,
                () -> failedRebalances.rate(System.nanoTime(), false) * 3600);
        gauge(COORDINATOR + "last.rebalance.seconds.ago", tags, () -> secondsAgo(lastRebalanceNanos));
        counter(COORDINATOR + "heartbeat.total", tags, heartbeats::totalCount);
        gauge(COORDINATOR + "heartbeat.rate", tags, () -> heartbeats.rate(System.nanoTime(), false));
        gauge(COORDINATOR + "heartbeat.response.time.max", tags, () -> heartbeats.max(System.nanoTime()));
        gauge(COORDINATOR + "last.heartbeat.seconds.ago", tags, () -> secondsAgo(lastHeartbeatNanos));
        listenerCalls.forEach((callback, stat) -> {
            String name = COORDINATOR + "partition." + callback.name().toLowerCase(java.util.Locale.ROOT) + ".latency.";
            gauge(name + "avg", tags, () -> stat.avg(System.nanoTime()));
            gauge(name + "max", tags, () -> stat.max(System.nanoTime()));
        });
        // kflux's own
        gauge("kflux.consumer.buffered.bytes", tags, () -> known(figures.bufferedBytes().getAsLong()));
        gauge("kflux.consumer.buffered.bytes.max", tags, () -> figures.maxBufferedBytes());
        gauge("kflux.consumer.demand", tags, () -> known(figures.demand().getAsLong()));
        gauge("kflux.consumer.records.waiting", tags, this::recordsWaiting);
    }

    @Override
    public void close() {
        synchronized (lifecycle) {
            closed = true;
        }
        meters.forEach(registry::remove);
        meters.clear();
        partitionMeters.values().forEach(registry::remove);
        partitionMeters.clear();
    }

    private double recordsWaiting() {
        long n = 0;
        for (LongSupplier s : waiting.values()) {
            n += s.getAsLong();
        }
        return n;
    }

    private static double secondsAgo(long nanos) {
        return nanos == 0L ? Double.NaN : (System.nanoTime() - nanos) / 1e9;
    }

    private static double known(long value) {
        return value < 0 ? Double.NaN : value;
    }

    private void gauge(String name, Tags meterTags, DoubleSupplier value) {
        add(Gauge.builder(name, value, DoubleSupplier::getAsDouble).strongReference(true).tags(meterTags)
                .register(registry));
    }

    private void counter(String name, Tags meterTags, DoubleSupplier value) {
        keepAlive.add(value); // a FunctionCounter holds its object weakly
        add(FunctionCounter.builder(name, value, DoubleSupplier::getAsDouble).tags(meterTags).register(registry));
    }

    private void add(Meter meter) {
        meters.add(meter);
        if (closed) { // a close() racing this registration: withdraw what it may have missed
            registry.remove(meter);
        }
    }

    // --------------------------------------------------------------------------------------- events

    @Override
    public void connectionCreated() {
        connections.incrementAndGet();
        connectionsCreated.record(1, System.nanoTime());
    }

    @Override
    public void connectionClosed() {
        connections.decrementAndGet();
        connectionsClosed.record(1, System.nanoTime());
    }

    @Override
    public void requestSent(int nodeId, int bytes) {
        requests.record(bytes, System.nanoTime());
    }

    @Override
    public void responseReceived(int nodeId, int bytes, long latencyNanos) {
        long now = System.nanoTime();
        responses.record(bytes, now);
        WindowedStat latency = nodeLatency.get(nodeId);
        if (latency == null) {
            latency = nodeLatency.computeIfAbsent(nodeId, id -> {
                WindowedStat s = new WindowedStat();
                if (!closed) {
                    Tags t = tags.and("node.id", "node-" + id);
                    gauge(NODE + "request.latency.avg", t, () -> s.avg(System.nanoTime()));
                    gauge(NODE + "request.latency.max", t, () -> s.max(System.nanoTime()));
                }
                return s;
            });
        }
        latency.record(latencyNanos / NANOS_PER_MS, now);
    }

    @Override
    public void fetchCompleted(long latencyNanos, int throttleMs) {
        long now = System.nanoTime();
        fetches.record(latencyNanos / NANOS_PER_MS, now);
        throttle.record(Math.max(0, throttleMs), now);
    }

    @Override
    public void recordsConsumed(String topic, int records, long bytes) {
        TopicStats stats = topicStats(topic);
        long now = System.nanoTime();
        stats.records.record(records, now);
        stats.bytes.record(bytes, now);
    }

    @Override
    public void topicFetched(String topic, long bytes, int records) {
        TopicStats stats = topicStats(topic);
        long now = System.nanoTime();
        stats.fetchSize.record(bytes, now);
        stats.recordsPerRequest.record(records, now);
    }

    /** The topic's figures; its meters are registered with the first (as the official client's topic sensors). */
    private TopicStats topicStats(String topic) {
        TopicStats stats = topics.get(topic);
        if (stats != null) {
            return stats;
        }
        return topics.computeIfAbsent(topic, t -> {
            TopicStats s = new TopicStats();
            if (!closed) {
                Tags t2 = tags.and("topic", metricTopic(t));
                counter(FETCH + "records.consumed.total", t2, s.records::totalSum);
                gauge(FETCH + "records.consumed.rate", t2, () -> s.records.rate(System.nanoTime(), true));
                counter(FETCH + "bytes.consumed.total", t2, s.bytes::totalSum);
                gauge(FETCH + "bytes.consumed.rate", t2, () -> s.bytes.rate(System.nanoTime(), true));
                gauge(FETCH + "fetch.size.avg", t2, () -> s.fetchSize.avg(System.nanoTime()));
                gauge(FETCH + "fetch.size.max", t2, () -> s.fetchSize.max(System.nanoTime()));
                gauge(FETCH + "records.per.request.avg", t2, () -> s.recordsPerRequest.avg(System.nanoTime()));
            }
            return s;
        });
    }

    /**
     * The topic tag: the topic's name, as the official client tags its topic metrics since KIP-1109 (Kafka 4.1).
     * For a name with a dot it also keeps a deprecated twin with '_' for '.', to go in Kafka 5; kflux publishes the
     * name only, so that a sum over topics never counts a topic twice.
     */
    private static String metricTopic(String topic) {
        return topic;
    }

    @Override
    public PartitionSampler partitionAssigned(String topic, int partition, LongSupplier lag, LongSupplier lead,
                                              LongSupplier fetchedAhead, IntSupplier readReplica) {
        if (closed) {
            return PartitionSampler.NONE;
        }
        String key = topic + "\u0000" + partition;
        waiting.put(key, fetchedAhead);
        Tags t = tags.and("topic", metricTopic(topic), "partition", Integer.toString(partition));
        WindowedStat lags = new WindowedStat();
        WindowedStat leads = new WindowedStat();
        partitionGauge(key, "lag", FETCH + "records.lag", t, () -> known(lag.getAsLong()));
        partitionGauge(key, "lag.avg", FETCH + "records.lag.avg", t, () -> lags.avg(System.nanoTime()));
        partitionGauge(key, "lag.max", FETCH + "records.lag.max", t, () -> lags.max(System.nanoTime()));
        partitionGauge(key, "lead", FETCH + "records.lead", t, () -> known(lead.getAsLong()));
        partitionGauge(key, "lead.avg", FETCH + "records.lead.avg", t, () -> leads.avg(System.nanoTime()));
        partitionGauge(key, "lead.min", FETCH + "records.lead.min", t, () -> leads.min(System.nanoTime()));
        partitionGauge(key, "replica", FETCH + "preferred.read.replica", t, readReplica::getAsInt);
        return () -> {
            long now = System.nanoTime();
            long l = lag.getAsLong();
            if (l >= 0) {
                lags.record(l, now);
            }
            long d = lead.getAsLong();
            if (d >= 0) {
                leads.record(d, now);
            }
        };
    }

    private void partitionGauge(String key, String suffix, String name, Tags t, DoubleSupplier value) {
        putPartitionMeter(key + "\u0000" + suffix,
                Gauge.builder(name, value, DoubleSupplier::getAsDouble).strongReference(true).tags(t).register(registry));
    }

    @Override
    public void uncommitted(String topic, int partition, LongSupplier offsets) {
        if (closed) {
            return;
        }
        Tags t = tags.and("topic", metricTopic(topic), "partition", Integer.toString(partition));
        partitionGauge(topic + "\u0000" + partition, "uncommitted", "kflux.consumer.uncommitted.offsets", t,
                () -> known(offsets.getAsLong()));
    }

    private void putPartitionMeter(String key, Meter meter) {
        Meter previous = partitionMeters.put(key, meter);
        if (previous != null && previous != meter) {
            registry.remove(previous);
        }
        if (closed) {
            registry.remove(meter);
        }
    }

    @Override
    public void partitionRevoked(String topic, int partition) {
        waiting.remove(topic + "\u0000" + partition);
        String prefix = topic + "\u0000" + partition + "\u0000";
        partitionMeters.entrySet().removeIf(e -> {
            if (e.getKey().startsWith(prefix)) {
                registry.remove(e.getValue());
                return true;
            }
            return false;
        });
    }

    @Override
    public void joined(long latencyNanos) {
        joins.record(latencyNanos / NANOS_PER_MS, System.nanoTime());
    }

    @Override
    public void synced(long latencyNanos) {
        syncs.record(latencyNanos / NANOS_PER_MS, System.nanoTime());
    }

    @Override
    public void rebalanced(long latencyNanos) {
        long now = System.nanoTime();
        rebalances.record(latencyNanos / NANOS_PER_MS, now);
        lastRebalanceNanos = now;
    }

    @Override
    public void rebalanceFailed() {
        failedRebalances.record(1, System.nanoTime());
    }

    @Override
    public void heartbeat(long latencyNanos) {
        long now = System.nanoTime();
        heartbeats.record(latencyNanos / NANOS_PER_MS, now);
        lastHeartbeatNanos = now;
    }

    @Override
    public void listenerCalled(ListenerCallback callback, long latencyNanos) {
        listenerCalls.get(callback).record(latencyNanos / NANOS_PER_MS, System.nanoTime());
    }

    @Override
    public void committed(long latencyNanos) {
        commits.record(latencyNanos / NANOS_PER_MS, System.nanoTime());
    }

    @Override
    public String toString() {
        return "Micrometer metrics " + tags;
    }
}
