package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.compat.support.GroupKit;
import io.kflux.test.KafkaTest;
import io.kflux.examples.OrderPaymentJoin;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import io.kflux.examples.join.JoinResult;
import io.kflux.examples.join.JoinResult.Kind;
import io.kflux.examples.join.SampleOrders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The {@link OrderPaymentJoin} example against a real broker: the joined, unpaid and invalid orders equal a reference
 * computed here from the produced records, with one instance, when a second instance joins mid-run (a rebalance
 * moves half of the partition pairs), and when the first instance is killed (its subscription disposed without
 * {@code close()}) and started again. Results emitted twice are counted and printed; after the kill they must
 * concern records after the last commit.
 */
@KafkaTest(nodes = 1)
class OrderPaymentJoinTest {

    private static final int PARTITIONS = 4;
    private static final int ORDERS = 2000;
    private static final Duration WINDOW = OrderPaymentJoin.DEFAULT_WINDOW;
    private static final Duration COMPLETE_WITHIN = Duration.ofSeconds(120);

    /** Order ids by outcome. */
    record Outcomes(Map<Kind, Set<String>> byKind) {
        Set<String> of(Kind kind) {
            return byKind.getOrDefault(kind, Set.of());
        }

        int total() {
            return byKind.values().stream().mapToInt(Set::size).sum();
        }

        @Override
        public String toString() {
            return of(Kind.JOINED).size() + " joined, " + of(Kind.UNPAID).size() + " unpaid, "
                   + of(Kind.INVALID).size() + " invalid";
        }
    }

    /** Topics and data of one test. */
    record Data(String orders, String payments, String group, List<ProducerRecord<String, String>> records,
                List<ProducerRecord<String, String>> endOfData) {
    }

    /** One instance of the join pipeline, in this JVM. */
    static final class Instance {
        final String name;
        final KafkaFluxConsumer<String, String> consumer;
        final ConcurrentLinkedQueue<JoinResult> results = new ConcurrentLinkedQueue<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final Disposable subscription;

        Instance(String name, EmbeddedKafkaCluster kafka, Data data, Duration perResult) {
            this.name = name;
            consumer = KafkaFluxConsumer.create(OrderPaymentJoin.options(kafka.bootstrapServers(), data.group(),
                            data.orders(), data.payments())
                    .withProperties(Map.of("client.id", name, "session.timeout.ms", 10_000,
                            "heartbeat.interval.ms", 500, "auto.commit.interval.ms", 500)));
            subscription = OrderPaymentJoin.pipeline(consumer, data.orders(), data.payments(), WINDOW,
                            r -> (perResult.isZero() ? Mono.<Void>empty() : Mono.delay(perResult).then())
                                    .doOnSuccess(v -> results.add(r)))
                    .subscribe(r -> { }, error::set);
        }

        /** A crash as far as the pipeline can tell: the subscription ends without close(). */
        void kill() {
            subscription.dispose();
            GroupKit.await(name + " gave up its partitions", Duration.ofSeconds(30),
                    () -> consumer.assignment().isEmpty());
        }

        void close() {
            try {
                consumer.close().block(Duration.ofSeconds(30));
            } finally {
                subscription.dispose();
            }
        }

        Set<String> orderIds() {
            Set<String> ids = new HashSet<>();
            results.forEach(r -> ids.add(r.orderId()));
            return ids;
        }
    }

    private static Data data(EmbeddedKafkaCluster kafka, String name) {
        String orders = name + "-orders";
        String payments = name + "-payments";
        kafka.createTopic(orders, PARTITIONS, 1);
        kafka.createTopic(payments, PARTITIONS, 1);
        long start = System.currentTimeMillis() - Duration.ofMinutes(15).toMillis();
        List<ProducerRecord<String, String>> records = SampleOrders.generate(orders, payments, ORDERS, start,
                name.hashCode());
        long last = records.get(records.size() - 1).timestamp();
        return new Data(orders, payments, name + "-group", records,
                SampleOrders.endOfData(orders, payments, PARTITIONS, last, WINDOW));
    }

    /** The expected outcomes, computed from the produced records alone (not with the example's code). */
    private static Outcomes reference(Data data) {
        Map<String, List<Long>> paymentTimes = new HashMap<>();
        for (ProducerRecord<String, String> r : data.records()) {
            if (r.topic().equals(data.payments()) && r.key() != null && r.value() != null) {
                paymentTimes.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.timestamp());
            }
        }
        Map<Kind, Set<String>> byKind = new EnumMap<>(Kind.class);
        for (ProducerRecord<String, String> r : data.records()) {
            if (!r.topic().equals(data.orders()) || r.value() == null) {
                continue;
            }
            Kind kind;
            if (!positiveNumber(r.value())) {
                kind = Kind.INVALID;
            } else if (paymentTimes.getOrDefault(r.key(), List.of()).stream()
                    .anyMatch(t -> Math.abs(t - r.timestamp()) <= WINDOW.toMillis())) {
                kind = Kind.JOINED;
            } else {
                kind = Kind.UNPAID;
            }
            byKind.computeIfAbsent(kind, k -> new TreeSet<>()).add(r.key());
        }
        return new Outcomes(byKind);
    }

    private static boolean positiveNumber(String s) {
        try {
            return Long.parseLong(s) > 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static Outcomes observed(Collection<Instance> instances) {
        Map<Kind, Set<String>> byKind = new EnumMap<>(Kind.class);
        for (Instance i : instances) {
            i.results.forEach(r -> byKind.computeIfAbsent(r.kind(), k -> new TreeSet<>()).add(r.orderId()));
        }
        return new Outcomes(byKind);
    }

    /** Results emitted more than once (same kind and order), over all instances. */
    private static int duplicates(Collection<Instance> instances) {
        int all = instances.stream().mapToInt(i -> i.results.size()).sum();
        Set<String> distinct = new HashSet<>();
        instances.forEach(i -> i.results.forEach(r -> distinct.add(r.kind() + " " + r.orderId())));
        return all - distinct.size();
    }

    private static void awaitAllOrders(Collection<Instance> instances) {
        GroupKit.await("a result for each of the " + ORDERS + " orders", COMPLETE_WITHIN, () -> {
            Set<String> ids = new HashSet<>();
            instances.forEach(i -> ids.addAll(i.orderIds()));
            return ids.size() >= ORDERS;
        });
        GroupKit.sleep(1000); // let duplicates still under way arrive, so that they are counted
    }

    private static void assertMatchesReference(String test, Data data, Collection<Instance> instances) {
        Outcomes expected = reference(data);
        Outcomes actual = observed(instances);
        System.out.printf("[%s] expected %s; got %s; %d results emitted twice%n", test, expected, actual,
                duplicates(instances));
        instances.forEach(i -> assertThat(i.error.get()).as(i.name + " failed").isNull());
        assertThat(expected.of(Kind.JOINED)).isNotEmpty();
        assertThat(expected.of(Kind.UNPAID)).isNotEmpty();
        assertThat(expected.of(Kind.INVALID)).isNotEmpty();
        for (Kind kind : Kind.values()) {
            assertThat(actual.of(kind)).as(kind + " orders").isEqualTo(expected.of(kind));
        }
        assertThat(actual.total()).as("each order has exactly one outcome").isEqualTo(ORDERS);
    }

    @Test
    void oneInstanceJoinsFiltersAndExpiresLikeTheReference(EmbeddedKafkaCluster kafka) {
        Data data = data(kafka, "single");
        SampleData.produce(kafka.bootstrapServers(), data.records());
        SampleData.produce(kafka.bootstrapServers(), data.endOfData());
        Instance a = new Instance("a", kafka, data, Duration.ZERO);
        try {
            awaitAllOrders(List.of(a));
            assertMatchesReference("one instance", data, List.of(a));
            assertThat(duplicates(List.of(a))).as("no rebalance, no crash: no duplicates").isZero();
        } finally {
            a.close();
        }
    }

    @Test
    void aSecondInstanceJoiningMidRunChangesNothingButMayDuplicate(EmbeddedKafkaCluster kafka) {
        Data data = data(kafka, "rebalance");
        int half = data.records().size() / 2;
        SampleData.produce(kafka.bootstrapServers(), data.records().subList(0, half));
        Instance a = new Instance("a", kafka, data, Duration.ofMillis(1));
        Instance b = null;
        try {
            GroupKit.await("a emitted a quarter of the results", Duration.ofSeconds(60),
                    () -> a.results.size() >= ORDERS / 4);
            b = new Instance("b", kafka, data, Duration.ofMillis(1));
            Instance bb = b;
            GroupKit.await("b owns partition pairs", Duration.ofSeconds(30), () -> !bb.consumer.assignment().isEmpty()
                    && !a.consumer.assignment().isEmpty());
            System.out.printf("[rebalance] a owns %s, b owns %s%n", a.consumer.assignment(), b.consumer.assignment());
            assertCoPartitioned(a.consumer.assignment(), data);
            assertCoPartitioned(b.consumer.assignment(), data);
            SampleData.produce(kafka.bootstrapServers(), data.records().subList(half, data.records().size()));
            SampleData.produce(kafka.bootstrapServers(), data.endOfData());
            awaitAllOrders(List.of(a, b));
            assertMatchesReference("rebalance", data, List.of(a, b));
            assertThat(b.results).as("b's results").isNotEmpty();
        } finally {
            a.close();
            if (b != null) {
                b.close();
            }
        }
    }

    private static void assertCoPartitioned(Set<TopicPartition> assignment, Data data) {
        Set<Integer> orders = new TreeSet<>();
        Set<Integer> payments = new TreeSet<>();
        for (TopicPartition tp : assignment) {
            (tp.topic().equals(data.orders()) ? orders : payments).add(tp.partition());
        }
        assertThat(orders).as("orders partitions and payments partitions of %s", assignment).isEqualTo(payments);
    }

    @Test
    void aKilledInstanceRestartedLosesNothingAndRepeatsOnlyWhatWasNotCommitted(EmbeddedKafkaCluster kafka)
            throws Exception {
        Data data = data(kafka, "crash");
        SampleData.produce(kafka.bootstrapServers(), data.records());
        SampleData.produce(kafka.bootstrapServers(), data.endOfData());
        Instance a = new Instance("a", kafka, data, Duration.ofMillis(2));
        Instance restarted = null;
        try {
            GroupKit.await("a emitted a third of the results", Duration.ofSeconds(60),
                    () -> a.results.size() >= ORDERS / 3);
            a.kill();
            int emittedBeforeKill = a.results.size();
            GroupKit.sleep(1000);
            Map<TopicPartition, Long> committed = committedOffsets(kafka, data.group());
            System.out.printf("[crash] killed a after %d results; committed then: %s%n", emittedBeforeKill,
                    new java.util.TreeMap<>(committed.entrySet().stream().collect(java.util.stream.Collectors.toMap(
                            e -> e.getKey().toString(), Map.Entry::getValue))));
            assertThat(a.results.size()).as("nothing emitted after the kill").isEqualTo(emittedBeforeKill);

            restarted = new Instance("a-restarted", kafka, data, Duration.ZERO);
            awaitAllOrders(List.of(a, restarted));
            assertMatchesReference("kill and restart", data, List.of(a, restarted));

            Set<String> before = new HashSet<>();
            a.results.forEach(r -> before.add(r.kind() + " " + r.orderId()));
            int repeated = 0;
            for (JoinResult r : restarted.results) {
                long orderCommitted = committed.getOrDefault(r.order().topicPartition(), 0L);
                assertThat(r.order().offset()).as("%s was read again although below the commit", r)
                        .isGreaterThanOrEqualTo(orderCommitted);
                if (before.contains(r.kind() + " " + r.orderId())) {
                    repeated++;
                }
            }
            System.out.printf("[crash] the restarted instance emitted %d results, %d of them already emitted before "
                              + "the kill (all for orders after the last commit)%n", restarted.results.size(),
                    repeated);
            assertThat(duplicates(List.of(a, restarted))).isEqualTo(repeated);
        } finally {
            a.close();
            if (restarted != null) {
                restarted.close();
            }
        }
    }

    private static Map<TopicPartition, Long> committedOffsets(EmbeddedKafkaCluster kafka, String group)
            throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers()))) {
            Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets = admin
                    .listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> out = new HashMap<>();
            offsets.forEach((tp, om) -> {
                if (om != null) {
                    out.put(new TopicPartition(tp.topic(), tp.partition()), om.offset());
                }
            });
            return out;
        }
    }

    @Test
    void topicsWithDifferentPartitionCountsAreRefusedAtStartup(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("uneven-orders", 3, 1);
        kafka.createTopic("uneven-payments", 4, 1);
        assertThat(OrderPaymentJoin.checkCoPartitioned(kafka.bootstrapServers(), "uneven-orders", "uneven-orders"))
                .isEqualTo(3);
        assertThatThrownBy(() -> OrderPaymentJoin.checkCoPartitioned(kafka.bootstrapServers(), "uneven-orders",
                "uneven-payments"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not co-partitioned")
                .hasMessageContaining("uneven-orders has 3 partitions")
                .hasMessageContaining("uneven-payments has 4");
    }
}
