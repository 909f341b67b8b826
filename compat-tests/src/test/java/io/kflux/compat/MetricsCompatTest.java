package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.OfficialConsumers;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * kflux's meters against those Micrometer's {@code KafkaClientMetrics} publishes for the official consumer: both
 * drain one topic with a registry each; every {@code kafka.*} meter kflux publishes must exist in the official
 * registry with the same name, type and tag keys, and the figures that must agree do. Also the meters' life
 * (registered on subscribe, removed on close, consumers kept apart by {@code client.id}) and the lag of a paused
 * partition while a producer goes on. The same side by side under {@code group.protocol=consumer} (KIP-848); in both
 * modes every official meter kflux does not publish must be listed in the guide's table of them.
 *
 * <p>One class past 500 lines: its tests share the reading and comparing of the two registries ({@link Seen},
 * {@code dump}, {@code named}, the guide check), which would otherwise move into a support class used by this test
 * alone.
 */
@KafkaTest(nodes = 1)
class MetricsCompatTest {
    private static final int RECORDS = 300;
    private static final int PARTITIONS = 3;
    private static final ConsumerRebalanceListener NO_OP_LISTENER = new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<org.apache.kafka.common.TopicPartition> partitions) {
        }

        @Override
        public void onPartitionsAssigned(Collection<org.apache.kafka.common.TopicPartition> partitions) {
        }
    };

    /** One meter as read: what is compared. */
    private record Seen(String name, Meter.Type type, Map<String, String> tags, double value) {
        Set<String> tagKeys() {
            return new TreeSet<>(tags.keySet());
        }

        @Override
        public String toString() {
            return name + " " + type + " " + tags + " = " + value;
        }
    }

    private static List<Seen> dump(MeterRegistry registry) {
        List<Seen> out = new ArrayList<>();
        for (Meter m : registry.getMeters()) {
            Map<String, String> tags = new HashMap<>();
            for (Tag t : m.getId().getTagsAsIterable()) {
                tags.put(t.getKey(), t.getValue());
            }
            double value = m.measure().iterator().hasNext() ? m.measure().iterator().next().getValue() : Double.NaN;
            out.add(new Seen(m.getId().getName(), m.getId().getType(), tags, value));
        }
        return out;
    }

    private static List<Seen> named(List<Seen> meters, String name) {
        return meters.stream().filter(s -> s.name().equals(name)).toList();
    }

    /** The value of the one meter named {@code name}; fails if there is none or more than one, or it is NaN. */
    private static double only(List<Seen> meters, String name) {
        List<Seen> found = named(meters, name);
        assertThat(found).as("meters named %s", name).hasSize(1);
        assertThat(found.get(0).value()).as("%s holds a measurement", name).isNotNaN();
        return found.get(0).value();
    }

    private static double sum(List<Seen> meters, String name) {
        return named(meters, name).stream().mapToDouble(Seen::value).sum();
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    private static KafkaFluxConsumer<String, String> kflux(EmbeddedKafkaCluster kafka, String group, String topic,
                                                           MeterRegistry registry, Object... extra) {
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(), "group.id", group,
                "enable.auto.commit", "false");
        for (int i = 0; i < extra.length; i += 2) {
            props.put((String) extra[i], extra[i + 1]);
        }
        return KafkaFluxConsumer.create(ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                .subscription(List.of(topic)).withMeterRegistry(registry)
                .rebalanceListener(new RebalanceListener() { })); // timed: partition-*-latency
    }

    @Test
    void kfluxMetersAreNamedTypedAndTaggedAsKafkaClientMetricsPublishesTheOfficialConsumers(EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "metrics.compat"; // a dot: see the topic tags below
        kafka.createTopic(topic, PARTITIONS, 1);
        SampleData.produce(kafka.bootstrapServers(), topic, RECORDS);

        // the official consumer, bound as Micrometer users bind it; three commits of explicit offsets
        MeterRegistry officialRegistry = new SimpleMeterRegistry();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        List<Seen> official;
        int officialCommits = 0;
        try (KafkaConsumer<String, String> oc = OfficialConsumers.classic(kafka.bootstrapServers(), "official-metrics");
             KafkaClientMetrics binder = new KafkaClientMetrics(oc, Tags.empty(), scheduler, Duration.ofMillis(200))) {
            binder.bindTo(officialRegistry);
            oc.subscribe(List.of(topic), NO_OP_LISTENER); // the official client times a listener it was given
            int read = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> next = new HashMap<>();
            while (read < RECORDS && System.nanoTime() < deadline) {
                for (var r : oc.poll(Duration.ofMillis(200))) {
                    read++;
                    next.put(new org.apache.kafka.common.TopicPartition(r.topic(), r.partition()),
                            new OffsetAndMetadata(r.offset() + 1));
                    if (read % 100 == 0) {
                        oc.commitSync(next);
                        officialCommits++;
                    }
                }
            }
            assertThat(read).isEqualTo(RECORDS);
            official = settle(oc, officialRegistry);
        } finally {
            scheduler.shutdownNow();
        }

        // kflux, the same way
        MeterRegistry registry = new SimpleMeterRegistry();
        KafkaFluxConsumer<String, String> consumer = kflux(kafka, "kflux-metrics", topic, registry);
        AtomicInteger received = new AtomicInteger();
        Disposable running = consumer.receive()
                .concatMap(r -> {
                    r.acknowledge();
                    return received.incrementAndGet() % 100 == 0 ? consumer.commit().thenReturn(r) : Mono.just(r);
                })
                .subscribe();
        List<Seen> ours;
        try {
            await(RECORDS + " records", Duration.ofSeconds(60), () -> received.get() >= RECORDS);
            await("lag 0 on every partition", Duration.ofSeconds(10), () -> {
                List<Seen> lag = named(dump(registry), "kafka.consumer.fetch.manager.records.lag");
                return lag.size() == PARTITIONS && lag.stream().allMatch(s -> s.value() == 0.0);
            });
            Thread.sleep(500);
            ours = dump(registry);
        } finally {
            running.dispose();
        }
        String clientId = named(ours, "kafka.consumer.fetch.manager.fetch.total").get(0).tags().get("client.id");
        writeReport(official, ours);

        // every kafka.* meter of kflux exists in the official registry: name, type and tag keys
        List<String> unmatched = new ArrayList<>();
        for (Seen s : ours) {
            assertThat(s.tags()).as("tags of %s", s).containsKeys("client.id", "kafka.version");
            if (!s.name().startsWith("kafka.")) {
                assertThat(s.name()).startsWith("kflux.");
                continue;
            }
            boolean match = official.stream().anyMatch(o -> o.name().equals(s.name()) && o.type() == s.type()
                    && o.tagKeys().equals(s.tagKeys()));
            if (!match) {
                unmatched.add(s + " (official: " + named(official, s.name()) + ")");
            }
        }
        assertThat(unmatched).as("kflux meters without an official twin").isEmpty();
        // what the issue asks for is there
        Set<String> names = ours.stream().map(Seen::name).collect(Collectors.toSet());
        assertThat(names).contains(
                "kafka.consumer.fetch.manager.records.consumed.total", "kafka.consumer.fetch.manager.bytes.consumed.total",
                "kafka.consumer.fetch.manager.records.lag", "kafka.consumer.fetch.manager.records.lead",
                "kafka.consumer.fetch.manager.fetch.latency.avg", "kafka.consumer.fetch.manager.fetch.latency.max",
                "kafka.consumer.fetch.manager.fetch.rate", "kafka.consumer.fetch.manager.fetch.total",
                "kafka.consumer.fetch.manager.fetch.throttle.time.avg",
                "kafka.consumer.coordinator.commit.latency.avg", "kafka.consumer.coordinator.commit.latency.max",
                "kafka.consumer.coordinator.commit.total", "kafka.consumer.coordinator.commit.rate",
                "kafka.consumer.coordinator.assigned.partitions", "kafka.consumer.coordinator.rebalance.total",
                "kafka.consumer.coordinator.rebalance.latency.avg", "kafka.consumer.coordinator.failed.rebalance.total",
                "kafka.consumer.coordinator.heartbeat.total", "kafka.consumer.coordinator.heartbeat.response.time.max",
                "kafka.consumer.coordinator.last.heartbeat.seconds.ago", "kafka.consumer.coordinator.join.time.avg",
                "kafka.consumer.coordinator.sync.time.avg",
                "kafka.consumer.connection.count", "kafka.consumer.connection.creation.total",
                "kafka.consumer.connection.close.total", "kafka.consumer.node.request.latency.avg",
                "kafka.consumer.incoming.byte.total", "kafka.consumer.outgoing.byte.total",
                "kflux.consumer.buffered.bytes", "kflux.consumer.buffered.bytes.max", "kflux.consumer.demand",
                "kflux.consumer.records.waiting",
                // fetch sizes per answer and topic, lag and lead sampled per partition, KIP-392's replica
                "kafka.consumer.fetch.manager.fetch.size.avg", "kafka.consumer.fetch.manager.fetch.size.max",
                "kafka.consumer.fetch.manager.records.per.request.avg",
                "kafka.consumer.fetch.manager.records.lag.avg", "kafka.consumer.fetch.manager.records.lag.max",
                "kafka.consumer.fetch.manager.records.lead.avg", "kafka.consumer.fetch.manager.records.lead.min",
                "kafka.consumer.fetch.manager.preferred.read.replica",
                // the rebalance listener's calls
                "kafka.consumer.coordinator.partition.assigned.latency.avg",
                "kafka.consumer.coordinator.partition.assigned.latency.max",
                "kafka.consumer.coordinator.partition.revoked.latency.avg",
                "kafka.consumer.coordinator.partition.revoked.latency.max",
                "kafka.consumer.coordinator.partition.lost.latency.avg",
                "kafka.consumer.coordinator.partition.lost.latency.max");
        // no double counting: a name is published at one level only (the detailed one)
        for (String name : names) {
            assertThat(named(ours, name).stream().map(Seen::tagKeys).distinct().count()).as(name).isEqualTo(1);
        }

        // the figures that must agree
        // Kafka 4.1 tags topic meters with the topic's name (KIP-1109) and, for names with a dot, also with the
        // deprecated '_' form: kflux publishes the first only, so sums over topics never count twice
        String consumed = "kafka.consumer.fetch.manager.records.consumed.total";
        List<Seen> officialByName = official.stream().filter(s -> topic.equals(s.tags().get("topic"))).toList();
        assertThat(sum(officialByName, consumed)).isEqualTo(RECORDS);
        assertThat(sum(ours, consumed)).isEqualTo(RECORDS);
        assertThat(named(ours, consumed)).extracting(s -> s.tags().get("topic")).containsExactly(topic);
        assertThat(named(official, consumed)).extracting(s -> s.tags().get("topic")).contains(topic);
        String lag = "kafka.consumer.fetch.manager.records.lag";
        assertThat(named(ours, lag)).hasSize(PARTITIONS).allMatch(s -> s.value() == 0.0);
        assertThat(named(officialByName, lag)).hasSize(PARTITIONS).allMatch(s -> s.value() == 0.0);
        assertThat(named(ours, lag).stream().map(s -> s.tags().get("partition")).sorted().toList())
                .isEqualTo(named(officialByName, lag).stream().map(s -> s.tags().get("partition")).sorted().toList());
        assertThat(sum(ours, "kafka.consumer.fetch.manager.records.lead")).isEqualTo(RECORDS); // log start 0
        String assigned = "kafka.consumer.coordinator.assigned.partitions";
        assertThat(sum(ours, assigned)).isEqualTo(PARTITIONS).isEqualTo(sum(official, assigned));
        String commits = "kafka.consumer.coordinator.commit.total";
        assertThat(sum(official, commits)).isEqualTo(officialCommits);
        assertThat(sum(ours, commits)).isEqualTo(RECORDS / 100);
        assertThat(sum(ours, "kafka.consumer.coordinator.rebalance.total")).isEqualTo(1);
        assertThat(sum(ours, "kafka.consumer.connection.count")).isPositive();
        assertThat(sum(ours, "kafka.consumer.incoming.byte.total")).isPositive();
        assertThat(sum(ours, "kflux.consumer.buffered.bytes")).isZero(); // everything was emitted
        // all acknowledged, and committed at 300: nothing a crash would deliver again
        assertThat(named(ours, "kflux.consumer.uncommitted.offsets")).hasSize(PARTITIONS).allMatch(s -> s.value() == 0.0);

        assertSampledFetchFigures(official, ours, topic);
        assertOfficialOnlyMetersAreListedInTheGuide(official, ours);

        // closed: every meter of this consumer is gone
        consumer.close().block(Duration.ofSeconds(30));
        assertThat(dump(registry)).filteredOn(s -> clientId.equals(s.tags().get("client.id"))).isEmpty();
    }

    /**
     * Every meter the official consumer published that kflux did not is named in the guide's table of official
     * metrics kflux does not compute: its metric name (group prefix off, dashes), or a prefix of it ending in '*', in
     * backquotes in the table's first column.
     */
    private static void assertOfficialOnlyMetersAreListedInTheGuide(List<Seen> official, List<Seen> ours)
            throws IOException {
        Path guide = null;
        for (Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("docs/guide.md"))) {
                guide = d.resolve("docs/guide.md");
                break;
            }
        }
        assertThat(guide).as("docs/guide.md above the working directory").isNotNull();
        String text = Files.readString(guide);
        int start = text.indexOf("**Official metrics kflux does not compute, and why.**");
        assertThat(start).as("the guide's table of official metrics kflux does not compute").isNotNegative();
        List<String> listed = new ArrayList<>();
        for (String line : text.substring(start).split("\n")) {
            if (line.startsWith("### ")) {
                break;
            }
            if (line.startsWith("| ") && !line.startsWith("| official metric")) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("`([^`]+)`")
                        .matcher(line.substring(0, line.indexOf(" |", 2)));
                while (m.find()) {
                    listed.add(m.group(1));
                }
            }
        }
        Set<String> ourNames = ours.stream().map(Seen::name).collect(Collectors.toSet());
        List<String> unlisted = official.stream().map(Seen::name).filter(n -> !ourNames.contains(n)).distinct()
                .filter(n -> {
                    String metric = n.replaceFirst("^kafka\\.(consumer\\.(fetch\\.manager\\.|coordinator\\.|node\\.)?"
                            + "|app\\.info\\.)", "").replace('.', '-');
                    return listed.stream().noneMatch(t -> t.equals(metric)
                            || t.endsWith("*") && metric.startsWith(t.substring(0, t.length() - 1)));
                })
                .sorted().toList();
        assertThat(unlisted).as("official meters kflux does not publish and the guide does not list (%s)", listed)
                .isEmpty();
    }

    /** Polls on after the drain, then reads the official registry once KafkaClientMetrics refreshed. */
    private static List<Seen> settle(KafkaConsumer<String, String> oc, MeterRegistry officialRegistry)
            throws InterruptedException {
        for (int i = 0; i < 10; i++) { // the per-partition lag is recorded as fetches come back empty
            oc.poll(Duration.ofMillis(100));
        }
        Thread.sleep(600); // a refresh of KafkaClientMetrics picks up metrics created late
        return dump(officialRegistry);
    }

    /**
     * The figures both clients sample per Fetch answer or per partition, compared where they must agree: present per
     * partition (or topic) in both, within what was produced, the same replica (-1: the leader, one broker), the same
     * listener calls (assigned once, nothing revoked or lost yet).
     */
    private static void assertSampledFetchFigures(List<Seen> official, List<Seen> ours, String topic) {
        String fetch = "kafka.consumer.fetch.manager.";
        for (List<Seen> all : List.of(official, ours)) {
            String who = all == ours ? "kflux" : "official";
            // the official client's deprecated '_' twins of dotted topic names left out (see the topic tags above)
            List<Seen> side = all.stream().filter(s -> !s.tags().containsKey("topic")
                    || topic.equals(s.tags().get("topic"))).toList();
            for (String perPartition : List.of("records.lag.avg", "records.lag.max", "records.lead.avg",
                    "records.lead.min")) {
                assertThat(named(side, fetch + perPartition)).as("%s %s", who, perPartition).hasSize(PARTITIONS)
                        .allMatch(s -> s.value() >= 0 && s.value() <= RECORDS);
            }
            for (Seen max : named(side, fetch + "records.lag.max")) {
                Seen avg = named(side, fetch + "records.lag.avg").stream()
                        .filter(s -> s.tags().get("partition").equals(max.tags().get("partition"))).findFirst().orElseThrow();
                assertThat(max.value()).as("%s lag max >= avg", who).isGreaterThanOrEqualTo(avg.value());
            }
            assertThat(named(side, fetch + "preferred.read.replica")).as(who).hasSize(PARTITIONS)
                    .allMatch(s -> s.value() == -1.0);
            double sizeAvg = sum(side, fetch + "fetch.size.avg");
            assertThat(sizeAvg).as("%s fetch size avg", who).isPositive();
            assertThat(sum(side, fetch + "fetch.size.max")).as("%s fetch size max", who).isGreaterThanOrEqualTo(sizeAvg);
            assertThat(sum(side, fetch + "records.per.request.avg")).as("%s records per request", who)
                    .isPositive().isLessThanOrEqualTo(RECORDS);
            assertThat(named(side, fetch + "fetch.size.avg")).extracting(s -> s.tags().get("topic")).containsExactly(topic);
            String coordinator = "kafka.consumer.coordinator.partition.";
            assertThat(named(side, coordinator + "assigned.latency.max")).as("%s listener ran on assignment", who)
                    .hasSize(1).allMatch(s -> s.value() >= 0);
            assertThat(sum(side, coordinator + "revoked.latency.max")).as("%s nothing revoked yet", who).isNaN();
            assertThat(sum(side, coordinator + "lost.latency.max")).as("%s nothing lost", who).isNaN();
        }
    }

    /** The two registries side by side in target/, for the guide's table and for whoever debugs a mismatch. */
    private static void writeReport(List<Seen> official, List<Seen> ours) throws IOException {
        writeReport(official, ours, "metrics-compat.txt");
    }

    private static void writeReport(List<Seen> official, List<Seen> ours, String file) throws IOException {
        Set<String> ourNames = ours.stream().map(Seen::name).collect(Collectors.toCollection(TreeSet::new));
        Map<String, Set<String>> officialNames = new java.util.TreeMap<>();
        official.forEach(o -> officialNames.computeIfAbsent(o.name(), n -> new TreeSet<>()).addAll(o.tagKeys()));
        StringBuilder b = new StringBuilder("# official meter: tag keys (kflux has it: +)\n");
        officialNames.forEach((n, keys) -> b.append(ourNames.contains(n) ? "+ " : "- ").append(n).append(' ')
                .append(keys).append('\n'));
        b.append("\n# kflux meters\n");
        ours.stream().map(Seen::toString).sorted().forEach(s -> b.append(s).append('\n'));
        Path out = Path.of("target", file);
        Files.createDirectories(out.getParent());
        Files.writeString(out, b);
    }

    /**
     * {@code group.protocol=consumer} (KIP-848): the official consumer in that mode beside kflux in that mode; every
     * {@code kafka.*} meter kflux publishes exists there too, and the heartbeat meters (ConsumerGroupHeartbeat) count.
     */
    @Test
    void underGroupProtocolConsumerTheMetersAreThoseOfTheOfficialConsumerInThatMode(EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "metrics-kip848";
        kafka.createTopic(topic, PARTITIONS, 1);
        SampleData.produce(kafka.bootstrapServers(), topic, RECORDS);

        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "official-kip848");
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        MeterRegistry officialRegistry = new SimpleMeterRegistry();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        List<Seen> official;
        try (KafkaConsumer<String, String> oc = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer());
             KafkaClientMetrics binder = new KafkaClientMetrics(oc, Tags.empty(), scheduler, Duration.ofMillis(200))) {
            binder.bindTo(officialRegistry);
            oc.subscribe(List.of(topic), NO_OP_LISTENER); // the official client times a listener it was given
            int read = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (read < RECORDS && System.nanoTime() < deadline) {
                read += oc.poll(Duration.ofMillis(200)).count();
            }
            assertThat(read).isEqualTo(RECORDS);
            official = settle(oc, officialRegistry);
        } finally {
            scheduler.shutdownNow();
        }

        MeterRegistry registry = new SimpleMeterRegistry();
        KafkaFluxConsumer<String, String> consumer = kflux(kafka, "kflux-kip848", topic, registry,
                "group.protocol", "consumer");
        AtomicInteger received = new AtomicInteger();
        Disposable running = consumer.receive().subscribe(r -> received.incrementAndGet());
        String heartbeats = "kafka.consumer.coordinator.heartbeat.total";
        List<Seen> ours;
        try {
            await(RECORDS + " records", Duration.ofSeconds(60), () -> received.get() >= RECORDS);
            await("a heartbeat answered", Duration.ofSeconds(10), () -> sum(dump(registry), heartbeats) >= 1);
            ours = dump(registry);
        } finally {
            running.dispose();
            consumer.close().block(Duration.ofSeconds(30));
        }
        writeReport(official, ours, "metrics-compat-kip848.txt");

        // assigned-partitions: the official consumer publishes it under classic only; kflux in both modes (documented)
        String assigned = "kafka.consumer.coordinator.assigned.partitions";
        assertThat(named(official, assigned)).isEmpty();
        assertThat(sum(ours, assigned)).isEqualTo(PARTITIONS);
        List<String> unmatched = new ArrayList<>();
        for (Seen s : ours) {
            if (s.name().startsWith("kafka.") && !s.name().equals(assigned) && official.stream().noneMatch(o -> o.name().equals(s.name())
                    && o.type() == s.type() && o.tagKeys().equals(s.tagKeys()))) {
                unmatched.add(s + " (official: " + named(official, s.name()) + ")");
            }
        }
        assertThat(unmatched).as("kflux meters without an official twin under group.protocol=consumer").isEmpty();
        assertOfficialOnlyMetersAreListedInTheGuide(official, ours);
        String coordinator = "kafka.consumer.coordinator.";
        for (List<Seen> side : List.of(official, ours)) {
            String who = side == ours ? "kflux" : "official";
            assertThat(sum(side, heartbeats)).as("%s heartbeats", who).isGreaterThanOrEqualTo(1);
            // one meter each (a missing meter would sum to 0), holding a measurement: a time within the run
            assertThat(only(side, coordinator + "heartbeat.response.time.max")).as(who).isBetween(0.0, 60_000.0);
            assertThat(sum(side, coordinator + "heartbeat.rate")).as(who).isPositive();
            assertThat(only(side, coordinator + "last.heartbeat.seconds.ago")).as(who).isBetween(0.0, 60.0);
            assertThat(sum(side, coordinator + "rebalance.total")).as("%s rebalances", who).isGreaterThanOrEqualTo(1);
            // a rebalance took place (rebalance.total), so its latency is a measured time, not a missing sample
            assertThat(only(side, coordinator + "rebalance.latency.max")).as(who).isBetween(0.0, 60_000.0);
            assertThat(sum(side, coordinator + "failed.rebalance.total")).as(who).isZero();
            assertThat(named(side, coordinator + "partition.assigned.latency.max")).as(who).hasSize(1)
                    .allMatch(s -> s.value() >= 0);
        }
    }

    @Test
    void twoConsumersInOneRegistryAreKeptApartAndClosingOneRemovesOnlyItsMeters(EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "metrics-two";
        kafka.createTopic(topic, 2, 1);
        SampleData.produce(kafka.bootstrapServers(), topic, 20);
        MeterRegistry registry = new SimpleMeterRegistry();
        KafkaFluxConsumer<String, String> a = kflux(kafka, "two-a", topic, registry);
        KafkaFluxConsumer<String, String> b = kflux(kafka, "two-b", topic, registry);
        AtomicInteger readA = new AtomicInteger();
        AtomicInteger readB = new AtomicInteger();
        assertThat(registry.getMeters()).as("nothing before subscribe").isEmpty();
        Disposable runA = a.receive().subscribe(r -> readA.incrementAndGet());
        Disposable runB = b.receive().subscribe(r -> readB.incrementAndGet());
        try {
            await("both read everything", Duration.ofSeconds(60), () -> readA.get() == 20 && readB.get() == 20);
            await("consumption counted", Duration.ofSeconds(5), () -> {
                List<Seen> all = dump(registry);
                return named(all, "kafka.consumer.fetch.manager.records.consumed.total").size() == 2;
            });
            List<Seen> all = dump(registry);
            Set<String> clientIds = named(all, "kafka.consumer.fetch.manager.records.consumed.total").stream()
                    .map(s -> s.tags().get("client.id")).collect(Collectors.toSet());
            // generated as the official client does: consumer-<group.id>-<n>
            assertThat(clientIds).hasSize(2).allMatch(id -> id.matches("consumer-two-[ab]-[0-9]+"));
            String idA = clientIds.stream().filter(id -> id.startsWith("consumer-two-a-")).findFirst().orElseThrow();
            String idB = clientIds.stream().filter(id -> id.startsWith("consumer-two-b-")).findFirst().orElseThrow();
            for (String id : clientIds) {
                assertThat(all.stream().filter(s -> id.equals(s.tags().get("client.id")))
                        .filter(s -> s.name().equals("kafka.consumer.fetch.manager.records.consumed.total"))
                        .mapToDouble(Seen::value).sum()).isEqualTo(20);
            }
            long metersOfB = all.stream().filter(s -> idB.equals(s.tags().get("client.id"))).count();

            runA.dispose();
            a.close().block(Duration.ofSeconds(30));
            List<Seen> after = dump(registry);
            assertThat(after).filteredOn(s -> idA.equals(s.tags().get("client.id"))).isEmpty();
            assertThat(after.stream().filter(s -> idB.equals(s.tags().get("client.id"))).count()).isEqualTo(metersOfB);
            assertThat(sum(after.stream().filter(s -> idB.equals(s.tags().get("client.id"))).toList(),
                    "kafka.consumer.fetch.manager.records.consumed.total")).isEqualTo(20);
        } finally {
            runA.dispose();
            runB.dispose();
            b.close().block(Duration.ofSeconds(30));
        }
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void lagOfAPausedPartitionGrowsWhileAProducerGoesOnAndReturnsToZeroAfterResume(EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "metrics-lag";
        kafka.createTopic(topic, 1, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        MeterRegistry registry = new SimpleMeterRegistry();
        KafkaFluxConsumer<String, String> consumer = kflux(kafka, "lag-group", topic, registry);
        AtomicInteger received = new AtomicInteger();
        Disposable running = consumer.receive().doOnNext(ConsumerRecord::acknowledge)
                .subscribe(r -> received.incrementAndGet());
        String lag = "kafka.consumer.fetch.manager.records.lag";
        try (ContinuousProducer producer = new ContinuousProducer(kafka.bootstrapServers(), topic, 1, 50, "v-")) {
            await("assigned and caught up", Duration.ofSeconds(60),
                    () -> received.get() > 20 && named(dump(registry), lag).size() == 1);
            consumer.pause(List.of(tp)).block(Duration.ofSeconds(10));
            Thread.sleep(300); // what was buffered drains; then nothing is fetched
            int atPause = received.get();
            double first = named(dump(registry), lag).get(0).value();
            await("lag grows while paused", Duration.ofSeconds(20), () -> {
                double now = named(dump(registry), lag).get(0).value();
                return now >= first + 100;
            });
            assertThat(received.get()).as("nothing emitted while paused").isEqualTo(atPause);
            // acknowledged, never committed (no auto commit): every record emitted is in the redelivery window
            assertThat(sum(dump(registry), "kflux.consumer.uncommitted.offsets")).isEqualTo(atPause);
            producer.stop();
            consumer.resume(List.of(tp)).block(Duration.ofSeconds(10));
            await("lag back to 0 after resume", Duration.ofSeconds(30),
                    () -> named(dump(registry), lag).get(0).value() == 0.0);
            assertThat(received.get()).isGreaterThan(atPause + 100);
        } finally {
            running.dispose();
            consumer.close().block(Duration.ofSeconds(30));
        }
    }
}
