package io.kflux.compat.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import reactor.core.Disposable;

/** Consumer-group helpers for compat tests: kflux and official members, a background producer, waits. */
public final class GroupKit {

    /** kflux's names of the built-in assignors and the official client's class names of the same. */
    public static final Map<String, String> OFFICIAL_ASSIGNORS = Map.of(
            "range", "org.apache.kafka.clients.consumer.RangeAssignor",
            "roundrobin", "org.apache.kafka.clients.consumer.RoundRobinAssignor",
            "sticky", "org.apache.kafka.clients.consumer.StickyAssignor",
            "cooperative-sticky", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");

    private GroupKit() {
    }

    /**
     * kflux group properties tuned for tests: quick heartbeats (500 ms), 10 s session, auto commit of acknowledged
     * offsets every 500 ms, earliest reset; {@code extra} are key, value pairs that override.
     */
    public static Map<String, Object> props(String bootstrap, String groupId, String assignor, Object... extra) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrap);
        props.put("group.id", groupId);
        props.put("auto.offset.reset", "earliest");
        props.put("partition.assignment.strategy", assignor);
        props.put("session.timeout.ms", 10_000);
        props.put("heartbeat.interval.ms", 500);
        props.put("enable.auto.commit", true);
        props.put("auto.commit.interval.ms", 500);
        for (int i = 0; i < extra.length; i += 2) {
            props.put((String) extra[i], extra[i + 1]);
        }
        return props;
    }

    /**
     * kflux properties for {@code group.protocol=consumer} (KIP-848): no assignor, session or heartbeat settings (the
     * broker's business), auto commit of acknowledged offsets every 500 ms, earliest reset; {@code extra} override.
     */
    public static Map<String, Object> consumerProtocolProps(String bootstrap, String groupId, Object... extra) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrap);
        props.put("group.id", groupId);
        props.put("group.protocol", "consumer");
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", true);
        props.put("auto.commit.interval.ms", 500);
        for (int i = 0; i < extra.length; i += 2) {
            props.put((String) extra[i], extra[i + 1]);
        }
        return props;
    }

    /**
     * {@link #props} for {@code classic} (with {@code assignor}), {@link #consumerProtocolProps} for {@code consumer}
     * (the broker assigns: {@code assignor} is not used), for tests that run under both group protocols.
     */
    public static Map<String, Object> protocolProps(String protocol, String bootstrap, String groupId, String assignor,
                                                    Object... extra) {
        return protocol.equals("consumer") ? consumerProtocolProps(bootstrap, groupId, extra)
                : props(bootstrap, groupId, assignor, extra);
    }

    /** The value of a test parameter that stands for {@code group.protocol=consumer} next to classic assignor names. */
    /**
     * {@code b} with the KIP-848 group timings of a fault test: heartbeats every 500 ms and a session of
     * {@code sessionMs} (the broker's minimums lowered to match), so a member cut off is fenced within seconds.
     */
    public static io.kflux.test.broker.EmbeddedKafkaCluster.Builder consumerGroupTimings(
            io.kflux.test.broker.EmbeddedKafkaCluster.Builder b, int sessionMs) {
        return b.brokerProperty("group.consumer.heartbeat.interval.ms", "500")
                .brokerProperty("group.consumer.min.heartbeat.interval.ms", "500")
                .brokerProperty("group.consumer.session.timeout.ms", String.valueOf(sessionMs))
                .brokerProperty("group.consumer.min.session.timeout.ms", String.valueOf(sessionMs));
    }

    public static final String CONSUMER_PROTOCOL = "consumer";

    /**
     * For tests parameterized by classic assignor names plus {@link #CONSUMER_PROTOCOL} (issue #12): {@code props}
     * as the test built them for the classic protocol with {@code variant} as assignor, or, for
     * {@link #CONSUMER_PROTOCOL}, the same with {@code group.protocol=consumer} and without what that protocol refuses
     * ({@code partition.assignment.strategy}, {@code heartbeat.interval.ms}: the broker decides). A modifiable copy.
     */
    public static Map<String, Object> forVariant(String variant, Map<String, Object> props) {
        Map<String, Object> out = new HashMap<>(props);
        if (variant.equals(CONSUMER_PROTOCOL)) {
            // KIP-848 is generally available from Kafka 4.0; a 3.9 broker (smoke set) does not enable it
            org.junit.jupiter.api.Assumptions.assumeTrue(BrokerVersion.current().atLeast(4, 0),
                    "group.protocol=consumer needs a 4.0+ broker, this is " + BrokerVersion.current().full());
            out.put("group.protocol", "consumer");
            out.remove("partition.assignment.strategy");
            out.remove("heartbeat.interval.ms");
        } else {
            out.put("partition.assignment.strategy", variant);
        }
        return out;
    }

    /**
     * Waits until {@code active} split the {@code partitions} partitions of {@code topic} evenly and keep doing so for
     * {@code hold} (30 s at most), and prints how long that took.
     */
    public static void awaitBalanced(String id, String topic, int partitions, List<? extends Member> active,
                                     Duration hold) {
        long start = System.nanoTime();
        awaitSteady(active.size() + " members balanced: " + active, Duration.ofSeconds(30), hold,
                () -> balanced(active.stream().map(Member::assignment).toList(), topic, partitions));
        System.out.printf("[%s] %d members stable after %d ms: %s%n", id, active.size(),
                (System.nanoTime() - start) / 1_000_000, active);
    }

    /**
     * Waits until every record of {@code produced} was consumed by one of {@code members} (30 s at most), prints the
     * tally and checks that no member failed and nothing is missing.
     *
     * @return the tally, for further checks (duplicates)
     */
    public static Tally assertEveryRecordConsumed(String id, List<String> produced, List<? extends Member> members) {
        Tally tally = awaitAllConsumed(produced, members, Duration.ofSeconds(30));
        System.out.printf("[%s] %s; duplicates: %s%n", id, tally, tally.duplicates());
        members.forEach(m -> assertThat(m.error()).as(m.name() + " error").isNull());
        assertThat(tally.missing()).as("records no member consumed").isEmpty();
        return tally;
    }

    public static KafkaFluxConsumer<String, String> consumer(Map<String, Object> props, String topic,
                                                             RebalanceListener listener) {
        ConsumerOptions<String, String> options = ConsumerOptions.create(props, Deserializers.string(),
                Deserializers.string()).subscription(List.of(topic));
        if (listener != null) {
            options = options.rebalanceListener(listener);
        }
        return KafkaFluxConsumer.create(options);
    }

    /** Waits for {@code condition}, polling every 50 ms. */
    public static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            sleep(50);
        }
    }

    /** Waits for {@code condition} to hold continuously for {@code hold}. */
    public static void awaitSteady(String what, Duration timeout, Duration hold, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long since = -1;
        for (;;) {
            long now = System.nanoTime();
            if (condition.getAsBoolean()) {
                if (since < 0) {
                    since = now;
                } else if (now - since >= hold.toNanos()) {
                    return;
                }
            } else {
                since = -1;
            }
            if (now > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            sleep(50);
        }
    }

    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * True when the assignments are disjoint, cover partitions 0..partitions-1 of {@code topic} exactly, and are
     * balanced (sizes differ by at most one; every member has one when there are enough partitions).
     */
    public static boolean balanced(Collection<Set<TopicPartition>> assignments, String topic, int partitions) {
        Set<TopicPartition> union = new HashSet<>();
        int total = 0;
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (Set<TopicPartition> a : assignments) {
            union.addAll(a);
            total += a.size();
            min = Math.min(min, a.size());
            max = Math.max(max, a.size());
        }
        return total == partitions && union.equals(new HashSet<>(Kflux.partitions(topic, partitions)))
                && max - min <= 1;
    }

    /** A member of a group: kflux or official, consuming on its own; records the values it saw. */
    public interface Member {
        String name();

        Set<TopicPartition> assignment();

        List<String> values();

        Throwable error();

        void stop();
    }

    /** A kflux member that acknowledges every record as it sees it. */
    public static final class KfluxMember implements Member {
        private final String name;
        public final KafkaFluxConsumer<String, String> consumer;
        private final ConcurrentLinkedQueue<String> values = new ConcurrentLinkedQueue<>();
        private final AtomicReference<Throwable> error = new AtomicReference<>();
        private Disposable subscription;

        public KfluxMember(String name, KafkaFluxConsumer<String, String> consumer) {
            this.name = name;
            this.consumer = consumer;
        }

        public KfluxMember start() {
            subscription = consumer.receive().subscribe(r -> {
                r.acknowledge();
                values.add(r.value());
            }, error::set);
            return this;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Set<TopicPartition> assignment() {
            return consumer.assignment();
        }

        @Override
        public List<String> values() {
            return new ArrayList<>(values);
        }

        @Override
        public Throwable error() {
            return error.get();
        }

        /** Cancels (LeaveGroup for a dynamic member) and waits until the subscription is gone. */
        @Override
        public void stop() {
            if (subscription != null) {
                subscription.dispose();
                await(name + " stopped", Duration.ofSeconds(30), () -> consumer.assignment().isEmpty());
            }
        }

        @Override
        public String toString() {
            return name + assignment();
        }
    }

    /** An official classic-protocol consumer polling on its own thread (auto commit on, as kflux's members). */
    public static final class OfficialMember implements Member {
        private final String name;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final ConcurrentLinkedQueue<String> values = new ConcurrentLinkedQueue<>();
        private final AtomicReference<Throwable> error = new AtomicReference<>();
        private volatile Set<TopicPartition> assignment = Set.of();
        private final Thread thread;

        public OfficialMember(String name, String bootstrap, String groupId, String assignor, String topic) {
            this(name, classicProps(name, bootstrap, groupId, assignor), topic);
        }

        /** An official consumer speaking {@code group.protocol=consumer} (KIP-848; the broker assigns). */
        public static OfficialMember consumerProtocol(String name, String bootstrap, String groupId, String topic) {
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
            props.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, "500");
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            return new OfficialMember(name, props, topic);
        }

        private static Properties classicProps(String name, String bootstrap, String groupId, String assignor) {
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
            props.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, "500");
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
            props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, OFFICIAL_ASSIGNORS.get(assignor));
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            return props;
        }

        private OfficialMember(String name, Properties props, String topic) {
            this.name = name;
            thread = new Thread(() -> {
                try (KafkaConsumer<String, String> c = new KafkaConsumer<>(props, new StringDeserializer(),
                        new StringDeserializer())) {
                    c.subscribe(List.of(topic));
                    while (running.get()) {
                        c.poll(Duration.ofMillis(100)).forEach(r -> values.add(r.value()));
                        Set<TopicPartition> now = new HashSet<>();
                        c.assignment().forEach(tp -> now.add(new TopicPartition(tp.topic(), tp.partition())));
                        assignment = Set.copyOf(now);
                    }
                } catch (Throwable t) {
                    error.set(t);
                } finally {
                    assignment = Set.of();
                }
            }, "official-" + name);
            thread.setDaemon(true);
        }

        public OfficialMember start() {
            thread.start();
            return this;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Set<TopicPartition> assignment() {
            return assignment;
        }

        @Override
        public List<String> values() {
            return new ArrayList<>(values);
        }

        @Override
        public Throwable error() {
            return error.get();
        }

        /** Stops polling and closes (commit, LeaveGroup). */
        @Override
        public void stop() {
            running.set(false);
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String toString() {
            return name + assignment();
        }
    }

    /** Produces {@code v-0, v-1, ...} (keyed by the same) at about {@code perSecond} records/s until stopped. */
    public static final class BackgroundProducer implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicInteger sent = new AtomicInteger();
        private final AtomicReference<Throwable> error = new AtomicReference<>();
        private final Thread thread;

        public BackgroundProducer(String bootstrap, String topic, int perSecond) {
            thread = new Thread(() -> {
                try (KafkaProducer<String, String> producer = SampleData.producer(bootstrap)) {
                    int batch = Math.max(1, perSecond / 50);
                    while (running.get()) {
                        for (int i = 0; i < batch; i++) {
                            int n = sent.getAndIncrement();
                            producer.send(new ProducerRecord<>(topic, "k-" + n, "v-" + n), (md, e) -> {
                                if (e != null) {
                                    error.set(e);
                                }
                            });
                        }
                        Thread.sleep(20);
                    }
                    producer.flush();
                } catch (Throwable t) {
                    error.set(t);
                }
            }, "producer-" + topic);
            thread.setDaemon(true);
            thread.start();
        }

        /** Stops, flushes, and returns the values written. */
        public List<String> stop() {
            running.set(false);
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (error.get() != null) {
                throw new AssertionError("producing failed", error.get());
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < sent.get(); i++) {
                out.add("v-" + i);
            }
            return out;
        }

        @Override
        public void close() {
            running.set(false);
        }
    }

    /** What the members consumed compared with what was produced. */
    public record Tally(int produced, int consumed, Set<String> missing, Map<String, List<String>> duplicates) {
        @Override
        public String toString() {
            return "produced " + produced + ", consumed " + consumed + ", missing " + missing.size()
                    + (missing.isEmpty() ? "" : " (e.g. " + missing.stream().limit(10).toList() + ")")
                    + ", duplicated " + duplicates.size();
        }
    }

    public static Tally tally(List<String> produced, Collection<? extends Member> members) {
        Map<String, List<String>> readers = new HashMap<>();
        int consumed = 0;
        for (Member m : members) {
            for (String v : m.values()) {
                readers.computeIfAbsent(v, x -> new ArrayList<>()).add(m.name());
                consumed++;
            }
        }
        Set<String> missing = new HashSet<>(produced);
        missing.removeAll(readers.keySet());
        // value -> the members that read it, for values read more than once
        Map<String, List<String>> dups = new TreeMap<>();
        readers.forEach((v, who) -> {
            if (who.size() > 1) {
                dups.put(v, who);
            }
        });
        return new Tally(produced.size(), consumed, missing, dups);
    }

    /** Waits until every produced value was consumed by some member. */
    public static Tally awaitAllConsumed(List<String> produced, Collection<? extends Member> members, Duration timeout) {
        Supplier<Tally> t = () -> tally(produced, members);
        long deadline = System.nanoTime() + timeout.toNanos();
        Tally last = t.get();
        while (!last.missing().isEmpty() && System.nanoTime() < deadline) {
            sleep(100);
            last = t.get();
        }
        return last;
    }
}
