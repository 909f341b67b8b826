package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.Deserializers;
import io.kflux.KafkaShareConsumer;
import io.kflux.ShareConsumerOptions;
import io.kflux.ShareRecord;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * {@link KafkaShareConsumer} (KIP-932) against a real broker: several members on fewer partitions each accept a
 * share and nothing is accepted twice; a released record comes back with delivery count 2 and a rejected one never;
 * close flushes implicit acceptances (nothing accepted is delivered again); a group mixing kflux and the official
 * {@code KafkaShareConsumer} splits the work without loss; the share meters carry the official names and move; each
 * record's delivery is observed (tracing).
 */
@Tag("smoke")
// a share member gets its first assignment one heartbeat after joining: 500 ms rather than the broker's default 5 s
// (the consumer group settings only make this the specification UserTrialEdgeCasesTest and ProcessingCommitAheadTest
// use, so the three share one broker)
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500", "group.share.heartbeat.interval.ms=500",
        "group.share.min.heartbeat.interval.ms=500"})
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ShareConsumerTest {
    static final Duration WAIT = Duration.ofSeconds(90);

    @BeforeEach
    void shareGroupsNeeded(org.junit.jupiter.api.TestInfo test) {
        org.junit.jupiter.api.Assumptions.assumeTrue(BrokerVersion.current().atLeast(4, 2)
                        || test.getTestMethod().orElseThrow().getName().startsWith("aBrokerWithout"),
                "share groups are production-ready from Kafka 4.2");
    }

    @Test
    void aBrokerWithoutShareGroupsEndsReceiveWithUnsupportedVersion(EmbeddedKafkaCluster kafka) {
        org.junit.jupiter.api.Assumptions.assumeFalse(BrokerVersion.current().atLeast(4, 1),
                "Kafka 4.1+ offers ShareGroupHeartbeat v1");
        kafka.createTopic("share-old", 1, 1);
        KafkaShareConsumer<String, String> c = KafkaShareConsumer.create(options(kafka, "share-old-group", "explicit",
                "share-old"));
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.receive().blockFirst(WAIT))
                    .isInstanceOf(io.kflux.UnsupportedVersionException.class)
                    .hasMessageContaining("SHARE_GROUP_HEARTBEAT")
                    .hasMessageContaining("Kafka 4.1 or later");
        } finally {
            c.close().block(WAIT);
        }
    }

    @Test
    void moreConsumersThanPartitionsAllReceiveAndEveryRecordIsAcceptedOnce(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "share-many";
        String group = "share-many-group";
        kafka.createTopic(topic, 2, 1);
        earliest(kafka, group);
        Map<String, Integer> deliveries = new ConcurrentHashMap<>();
        List<Set<String>> perConsumer = new ArrayList<>();
        List<KafkaShareConsumer<String, String>> consumers = new ArrayList<>();
        List<Disposable> subscriptions = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Set<String> mine = ConcurrentHashMap.newKeySet();
            perConsumer.add(mine);
            KafkaShareConsumer<String, String> c = KafkaShareConsumer.create(options(kafka, group, "explicit", topic));
            consumers.add(c);
            // one record at a time with some work: no member can take everything before the others joined
            subscriptions.add(c.receive()
                    .concatMap(r -> Mono.delay(Duration.ofMillis(20)).then(r.accept()).thenReturn(r), 1)
                    .subscribe(r -> {
                        mine.add(r.value());
                        deliveries.merge(r.value(), 1, Integer::sum);
                    }));
        }
        try (KafkaProducer<String, String> producer = producer(kafka)) {
            int n = 0;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (perConsumer.stream().anyMatch(Set::isEmpty) && System.nanoTime() < deadline) {
                producer.send(new ProducerRecord<>(topic, n % 2, "k" + n, "job-" + n)).get();
                n++;
                Thread.sleep(10); // paces the producer while members join, so the run stays short
            }
            int produced = n;
            assertThat(perConsumer).as("every member received records").noneMatch(Set::isEmpty);
            waitFor(() -> deliveries.size() == produced, "all %d records accepted: %d", produced, deliveries.size());
            assertThat(deliveries.values()).as("each record accepted exactly once").containsOnly(1);
            Set<String> all = new HashSet<>();
            perConsumer.forEach(all::addAll);
            assertThat(all).hasSize(produced);
        } finally {
            for (KafkaShareConsumer<String, String> c : consumers) {
                c.close().block(WAIT);
            }
            subscriptions.forEach(Disposable::dispose);
        }
    }

    @Test
    void releasedComesBackWithDeliveryCountTwoAndRejectedNever(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "share-release";
        String group = "share-release-group";
        topicWith(kafka, topic, group, "again", "poison", "fine");
        List<String> seen = new CopyOnWriteArrayList<>();
        KafkaShareConsumer<String, String> c = KafkaShareConsumer.create(options(kafka, group, "explicit", topic));
        Disposable sub = c.receive().flatMap(r -> {
            seen.add(r.value() + "#" + r.deliveryCount());
            if (r.value().equals("again") && r.deliveryCount() == 1) {
                return r.release();
            }
            return r.value().equals("poison") ? r.reject() : r.accept();
        }).subscribe();
        try {
            waitFor(() -> seen.contains("again#2") && seen.contains("fine#1"), "released record back: %s", seen);
            send(kafka, topic, "last");
            waitFor(() -> seen.contains("last#1"), "record after them: %s", seen);
            assertThat(seen).containsOnlyOnce("poison#1").noneMatch(s -> s.startsWith("poison#2"))
                    .containsOnlyOnce("again#1", "again#2", "fine#1", "last#1");
        } finally {
            c.close().block(WAIT);
            sub.dispose();
        }
    }

    @Test
    void closeFlushesImplicitAcceptancesSoNothingAcceptedComesBack(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "share-close";
        String group = "share-close-group";
        kafka.createTopic(topic, 1, 1);
        earliest(kafka, group);
        Set<String> all = new HashSet<>();
        try (KafkaProducer<String, String> producer = producer(kafka)) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "job-" + i)).get();
                all.add("job-" + i);
            }
        }
        KafkaShareConsumer<String, String> first = KafkaShareConsumer.create(options(kafka, group, "implicit", topic));
        Set<String> firstGot = ConcurrentHashMap.newKeySet();
        // one record at a time: each is accepted when the next is requested, the last one by close()
        Disposable sub = first.receive().limitRate(1).subscribe(r -> firstGot.add(r.value()));
        waitFor(() -> firstGot.size() >= 5, "first consumer received: %s", firstGot);
        first.close().block(WAIT);
        sub.dispose();
        Set<String> accepted = Set.copyOf(firstGot);

        KafkaShareConsumer<String, String> second = KafkaShareConsumer.create(options(kafka, group, "implicit", topic));
        Map<String, Short> secondGot = new ConcurrentHashMap<>();
        Disposable sub2 = second.receive().subscribe(r -> secondGot.put(r.value(), r.deliveryCount()));
        try {
            Set<String> rest = new HashSet<>(all);
            rest.removeAll(accepted);
            waitFor(() -> secondGot.keySet().containsAll(rest), "the rest (%s) received: %s", rest, secondGot);
            try (KafkaProducer<String, String> producer = producer(kafka)) {
                producer.send(new ProducerRecord<>(topic, 0, "end", "end")).get();
            }
            waitFor(() -> secondGot.containsKey("end"), "end marker: %s", secondGot);
            assertThat(secondGot.keySet()).as("nothing the first accepted comes back").doesNotContainAnyElementsOf(
                    accepted);
        } finally {
            second.close().block(WAIT);
            sub2.dispose();
        }
    }

    @Test
    void aGroupWithTheOfficialShareConsumerSplitsTheWorkWithoutLoss(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "share-mixed";
        String group = "share-mixed-group";
        kafka.createTopic(topic, 1, 1);
        earliest(kafka, group);
        Map<String, Integer> byKflux = new ConcurrentHashMap<>();
        Map<String, Integer> byOfficial = new ConcurrentHashMap<>();
        KafkaShareConsumer<String, String> ours = KafkaShareConsumer.create(options(kafka, group, "explicit", topic));
        Disposable sub = ours.receive()
                .concatMap(r -> Mono.delay(Duration.ofMillis(10)).then(r.accept()).thenReturn(r), 1)
                .subscribe(r -> byKflux.merge(r.value(), 1, Integer::sum));
        AtomicBoolean stop = new AtomicBoolean();
        Thread official = new Thread(() -> {
            Properties p = new Properties();
            p.put("bootstrap.servers", kafka.bootstrapServers());
            p.put("group.id", group);
            p.put("key.deserializer", StringDeserializer.class.getName());
            p.put("value.deserializer", StringDeserializer.class.getName());
            try (org.apache.kafka.clients.consumer.KafkaShareConsumer<String, String> c =
                         new org.apache.kafka.clients.consumer.KafkaShareConsumer<>(p)) {
                c.subscribe(List.of(topic));
                while (!stop.get()) {
                    c.poll(Duration.ofMillis(200)).forEach(r -> byOfficial.merge(r.value(), 1, Integer::sum));
                    c.commitSync();
                }
            }
        }, "official-share-consumer");
        official.start();
        try (KafkaProducer<String, String> producer = producer(kafka)) {
            int n = 0;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while ((byKflux.isEmpty() || byOfficial.isEmpty()) && System.nanoTime() < deadline) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + n, "job-" + n)).get();
                n++;
                Thread.sleep(10); // paces the producer while the members join
            }
            int produced = n;
            assertThat(byKflux).as("kflux received").isNotEmpty();
            assertThat(byOfficial).as("the official consumer received").isNotEmpty();
            waitFor(() -> union(byKflux, byOfficial).size() == produced, "all %d received", produced);
            Set<String> both = new HashSet<>(byKflux.keySet());
            both.retainAll(byOfficial.keySet());
            assertThat(both).as("no record delivered to both").isEmpty();
            assertThat(byKflux.values()).containsOnly(1);
            assertThat(byOfficial.values()).containsOnly(1);
        } finally {
            stop.set(true);
            official.join(WAIT.toMillis());
            ours.close().block(WAIT);
            sub.dispose();
        }
    }

    /**
     * With a meter registry the share consumer publishes the official share consumer's
     * {@code consumer-share-fetch-manager-metrics} under Micrometer's names (checked against the official
     * {@code KafkaShareConsumer}'s own metric names), and they move as records are acquired and accepted.
     */
    @Test
    void shareMetersCarryTheOfficialNamesAndMove(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "share-meters";
        String group = "share-meters-group";
        topicWith(kafka, topic, group, "m-0", "m-1", "m-2", "m-3", "m-4");
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        KafkaShareConsumer<String, String> c = KafkaShareConsumer.create(options(kafka, group, "explicit", topic)
                .withMeterRegistry(registry));
        Set<String> accepted = ConcurrentHashMap.newKeySet();
        Disposable sub = c.receive().flatMap(r -> r.accept().thenReturn(r.value())).subscribe(accepted::add);
        String prefix = "kafka.consumer.share.fetch.manager.";
        try {
            waitFor(() -> accepted.size() == 5, "accepted: %s", accepted);
            waitFor(() -> count(registry, prefix + "acknowledgements.send.total") >= 5,
                    "acknowledgements counted: %s", count(registry, prefix + "acknowledgements.send.total"));
            assertThat(count(registry, prefix + "records.consumed.total")).isGreaterThanOrEqualTo(5);
            assertThat(count(registry, prefix + "bytes.consumed.total")).isPositive();
            assertThat(count(registry, prefix + "fetch.total")).isGreaterThanOrEqualTo(1);
            assertThat(count(registry, prefix + "acknowledgements.error.total")).isZero();
            assertThat(registry.get(prefix + "fetch.latency.max").gauge().value()).isPositive();
            assertThat(registry.get(prefix + "records.consumed.total").meter().getId().getTag("client.id"))
                    .isNotBlank();

            Properties p = new Properties();
            p.put("bootstrap.servers", kafka.bootstrapServers());
            p.put("group.id", group + "-official");
            p.put("key.deserializer", StringDeserializer.class.getName());
            p.put("value.deserializer", StringDeserializer.class.getName());
            Set<String> official = new HashSet<>();
            // its metrics exist from construction; it never joins, so its close need not wait for the group
            org.apache.kafka.clients.consumer.KafkaShareConsumer<String, String> o =
                    new org.apache.kafka.clients.consumer.KafkaShareConsumer<>(p);
            try {
                o.metrics().keySet().stream()
                        .filter(n -> n.group().equals("consumer-share-fetch-manager-metrics"))
                        .forEach(n -> official.add("kafka." + n.group().replace("-metrics", "").replace('-', '.')
                                + "." + n.name().replace('-', '.')));
            } finally {
                o.close(Duration.ZERO);
            }
            Set<String> ours = new HashSet<>();
            registry.getMeters().stream().map(m -> m.getId().getName()).filter(n -> n.startsWith(prefix))
                    .forEach(ours::add);
            assertThat(ours).as("kflux's share meters").hasSize(18).isSubsetOf(official);
        } finally {
            c.close().block(WAIT);
            sub.dispose();
        }
        assertThat(registry.getMeters()).as("meters withdrawn on close")
                .noneMatch(m -> m.getId().getName().startsWith(prefix));
    }

    /**
     * With an observation registry each share record's delivery is observed as {@code receive()}'s are: one
     * {@code kflux.consumer.process} observation per record, current in the subscriber's {@code onNext}, tagged with
     * the share group.
     */
    @Test
    void eachShareRecordsDeliveryIsObserved(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "share-traced";
        String group = "share-traced-group";
        topicWith(kafka, topic, group, "t-0", "t-1", "t-2");
        io.micrometer.observation.tck.TestObservationRegistry registry =
                io.micrometer.observation.tck.TestObservationRegistry.create();
        KafkaShareConsumer<String, String> c = KafkaShareConsumer.create(options(kafka, group, "explicit", topic)
                .withObservationRegistry(registry));
        List<Boolean> observedInOnNext = new CopyOnWriteArrayList<>();
        Set<String> accepted = ConcurrentHashMap.newKeySet();
        Disposable sub = c.receive()
                .doOnNext(r -> observedInOnNext.add(registry.getCurrentObservation() != null))
                .flatMap(r -> r.accept().thenReturn(r.value())).subscribe(accepted::add);
        try {
            waitFor(() -> accepted.size() == 3, "accepted: %s", accepted);
        } finally {
            c.close().block(WAIT);
            sub.dispose();
        }
        assertThat(observedInOnNext).hasSize(3).containsOnly(true);
        io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat(registry)
                .hasNumberOfObservationsWithNameEqualTo("kflux.consumer.process", 3)
                .forAllObservationsWithNameEqualTo("kflux.consumer.process", o -> o
                        .hasLowCardinalityKeyValue("messaging.kafka.consumer.group", group)
                        .hasContextualNameEqualTo(topic + " process"));
    }

    private static double count(io.micrometer.core.instrument.MeterRegistry registry, String name) {
        io.micrometer.core.instrument.FunctionCounter counter = registry.find(name).functionCounter();
        return counter == null ? -1 : counter.count();
    }

    private static Set<String> union(Map<String, Integer> a, Map<String, Integer> b) {
        Set<String> u = new HashSet<>(a.keySet());
        u.addAll(b.keySet());
        return u;
    }

    static ShareConsumerOptions<String, String> options(EmbeddedKafkaCluster kafka, String group, String mode,
                                                                String topic) {
        return ShareConsumerOptions.create(Map.of("bootstrap.servers", kafka.bootstrapServers(), "group.id", group,
                        "share.acknowledgement.mode", mode), Deserializers.string(), Deserializers.string())
                .subscription(List.of(topic));
    }

    /**
     * A topic of one partition holding {@code values} (each its own key) in that order, read by {@code group} from
     * the earliest offset.
     */
    static void topicWith(EmbeddedKafkaCluster kafka, String topic, String group, String... values) throws Exception {
        kafka.createTopic(topic, 1, 1);
        earliest(kafka, group);
        for (String v : values) {
            send(kafka, topic, v);
        }
    }

    /** Writes {@code value} (its own key) to partition 0 of {@code topic}. */
    static void send(EmbeddedKafkaCluster kafka, String topic, String value) throws Exception {
        try (KafkaProducer<String, String> producer = producer(kafka)) {
            producer.send(new ProducerRecord<>(topic, 0, value, value)).get();
        }
    }

    /** A new share group starts at the log end; these tests write records before their members join. */
    static void earliest(EmbeddedKafkaCluster kafka, String group) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                            AlterConfigOp.OpType.SET)))).all().get();
        }
    }

    static KafkaProducer<String, String> producer(EmbeddedKafkaCluster kafka) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    static void waitFor(BooleanSupplier condition, String what, Object... args) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting: " + String.format(what, args));
            }
            Thread.sleep(50);
        }
    }
}
