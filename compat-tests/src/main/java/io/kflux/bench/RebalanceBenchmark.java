package io.kflux.bench;

import static io.kflux.bench.runner.JvmCounters.parseArgs;

import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.examples.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Rebalance latency of the classic group protocol, kflux against the official {@link KafkaConsumer}, in the same
 * JVM and against the same broker: a group of {@code --members} consumers shares a topic under steady production;
 * one more consumer subscribes, and the latency is the time from that subscription (its JoinGroup) until
 * <b>every</b> member is consuming again, i.e. has received a record from its new assignment after the rebalance
 * (the assignments then cover every partition exactly once). Eager ({@code range}) and cooperative
 * ({@code cooperative-sticky}, two rounds) are measured; each round uses fresh groups, with kflux and the official
 * client alternating. Both clients run with the same settings: no commits ({@code enable.auto.commit=false}, so a
 * newly assigned partition starts at its first offset and has data at once), {@code heartbeat.interval.ms}
 * {@code --heartbeat-ms} (how fast existing members hear of the rebalance dominates the figure).
 *
 * <pre>
 * --rounds N                measured rounds (default 5); --warmup N unmeasured rounds first (default 1)
 * --members N               consumers in the group before the new one joins (default 2)
 * --partitions N            partitions of the topic (default 6)
 * --heartbeat-ms N          heartbeat.interval.ms of every consumer (default 100)
 * --rate N                  records/s produced over all partitions during the run (default 1200)
 * --bootstrap-servers h:p   use this cluster instead of starting a 1-node embedded broker
 * </pre>
 */
public final class RebalanceBenchmark {

    private static final String TOPIC = "rebalance-bench";
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(60);

    /** The two classic rebalance protocols, with the assignor each client uses for it. */
    enum Protocol {
        EAGER("range", "org.apache.kafka.clients.consumer.RangeAssignor"),
        COOPERATIVE("cooperative-sticky", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");

        final String kfluxAssignor;
        final String officialAssignor;

        Protocol(String kfluxAssignor, String officialAssignor) {
            this.kfluxAssignor = kfluxAssignor;
            this.officialAssignor = officialAssignor;
        }
    }

    /** What one member owns and whether it has consumed since it got it; any thread. */
    static final class Tracker {
        final String name;
        private Set<Integer> assignment = Set.of();
        private long assignedAt;
        private long firstRecordAt;
        private long assignments;

        Tracker(String name) {
            this.name = name;
        }

        /** A rebalance ended for this member (also when its partitions stayed the same). */
        synchronized void assigned(Collection<Integer> partitions) {
            assignment = Set.copyOf(partitions);
            assignedAt = System.nanoTime();
            firstRecordAt = 0;
            assignments++;
        }

        synchronized void revoked(Collection<Integer> partitions) {
            Set<Integer> left = new HashSet<>(assignment);
            left.removeAll(partitions);
            assignment = Set.copyOf(left);
        }

        synchronized void record(int partition) {
            if (firstRecordAt == 0 && assignment.contains(partition)) {
                firstRecordAt = System.nanoTime();
            }
        }

        synchronized Snapshot snapshot() {
            return new Snapshot(assignment, assignedAt, firstRecordAt, assignments);
        }
    }

    record Snapshot(Set<Integer> assignment, long assignedAt, long firstRecordAt, long assignments) {
    }

    /** One consumer of the group, either client. */
    interface Member extends AutoCloseable {
        Tracker tracker();

        @Override
        void close();
    }

    /** Starts a member of {@code group}; the subscription (and so its JoinGroup) starts inside this call. */
    interface Client {
        Member start(String servers, String topic, String group, Protocol protocol, String name, int heartbeatMs);
    }

    /** One measured rebalance. */
    record Result(String client, Protocol protocol, long nanos, long newMemberAssignedNanos) {
    }

    private RebalanceBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (System.getProperty("kflux.log.level") == null) {
            // kflux logs every rebalance step at INFO; keep the figures readable (set it to see them)
            System.setProperty("kflux.log.level", "warn");
        }
        Map<String, String> opts = parseArgs(args);
        int rounds = Integer.parseInt(opts.getOrDefault("--rounds", "5"));
        int warmup = Integer.parseInt(opts.getOrDefault("--warmup", "1"));
        int members = Integer.parseInt(opts.getOrDefault("--members", "2"));
        int partitions = Integer.parseInt(opts.getOrDefault("--partitions", "6"));
        int heartbeatMs = Integer.parseInt(opts.getOrDefault("--heartbeat-ms", "100"));
        int rate = Integer.parseInt(opts.getOrDefault("--rate", "1200"));
        Map<String, Client> clients = new LinkedHashMap<>();
        clients.put("kflux", RebalanceBenchmark::startKflux);
        clients.put("official", RebalanceBenchmark::startOfficial);

        EmbeddedKafkaCluster kafka = null;
        String servers = opts.get("--bootstrap-servers");
        try {
            if (servers == null) {
                System.out.println("starting a 1-node embedded Kafka broker...");
                kafka = EmbeddedKafkaCluster.startCluster(1);
                servers = kafka.bootstrapServers();
            }
            String topic = TOPIC + "-" + Long.toString(System.currentTimeMillis(), 36);
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers))) {
                admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
            }
            System.out.printf("topic %s: %d partitions, %d records/s; %d members + 1 joining; heartbeat.interval.ms "
                    + "%d; %d warm-up + %d measured rounds%n", topic, partitions, rate, members, heartbeatMs, warmup,
                    rounds);
            List<Result> results = new ArrayList<>();
            try (SteadyProducer producer = new SteadyProducer(servers, topic, partitions, rate)) {
                Thread.sleep(1_000); // every partition has records before the first member joins
                for (int round = 1 - warmup; round <= rounds; round++) {
                    for (Protocol protocol : Protocol.values()) {
                        for (Map.Entry<String, Client> client : clients.entrySet()) {
                            String group = "rb-" + client.getKey() + "-" + protocol.name().toLowerCase() + "-" + round
                                    + "-" + System.nanoTime() % 1_000_000;
                            Result r = measure(client.getKey(), client.getValue(), servers, topic, partitions, group,
                                    protocol, members, heartbeatMs);
                            System.out.printf("%s %d  %-11s %-8s rebalance %6.1f ms (new member assigned after %6.1f ms)%n",
                                    round <= 0 ? "warm-up" : "round  ", round <= 0 ? round + warmup : round,
                                    protocol.name().toLowerCase(), client.getKey(), r.nanos() / 1e6,
                                    r.newMemberAssignedNanos() / 1e6);
                            if (round > 0) {
                                results.add(r);
                            }
                        }
                    }
                }
            }
            printSummary(results);
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    private static Result measure(String clientName, Client client, String servers, String topic, int partitions,
                                  String group, Protocol protocol, int existing, int heartbeatMs)
            throws InterruptedException {
        List<Member> members = new ArrayList<>();
        try {
            for (int i = 1; i <= existing; i++) {
                members.add(client.start(servers, topic, group, protocol, clientName + "-" + i, heartbeatMs));
            }
            long settleStart = System.nanoTime();
            awaitConsuming(members, partitions, settleStart, "the first " + existing + " members to share " + topic);
            Thread.sleep(500);
            long start = System.nanoTime();
            Member joining = client.start(servers, topic, group, protocol, clientName + "-new", heartbeatMs);
            members.add(joining);
            long end = awaitConsuming(members, partitions, start, "the group to consume again after a join");
            long assigned = joining.tracker().snapshot().assignedAt() - start;
            return new Result(clientName, protocol, end - start, assigned);
        } finally {
            members.forEach(Member::close);
        }
    }

    /**
     * Waits until every member has a non-empty assignment, the assignments cover every partition exactly once, and
     * every member has received a record from its assignment since it got it (which is after {@code since}).
     *
     * @return the latest of those first records ({@link System#nanoTime()})
     */
    private static long awaitConsuming(List<Member> members, int partitions, long since, String what)
            throws InterruptedException {
        long deadline = since + STEP_TIMEOUT.toNanos();
        for (;;) {
            List<Snapshot> snapshots = members.stream().map(m -> m.tracker().snapshot()).toList();
            Set<Integer> covered = new HashSet<>();
            int owned = 0;
            long latest = 0;
            boolean consuming = true;
            for (Snapshot s : snapshots) {
                owned += s.assignment().size();
                covered.addAll(s.assignment());
                if (s.assignment().isEmpty() || s.firstRecordAt() == 0 || s.assignedAt() < since) {
                    consuming = false;
                }
                latest = Math.max(latest, s.firstRecordAt());
            }
            if (consuming && owned == partitions && covered.size() == partitions) {
                return latest;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what + ": " + members.stream()
                        .map(m -> m.tracker().name + "=" + m.tracker().snapshot()).collect(Collectors.joining(", ")));
            }
            Thread.sleep(1);
        }
    }

    // ---------------------------------------------------------------- the two clients

    private static Member startKflux(String servers, String topic, String group, Protocol protocol, String name,
                                     int heartbeatMs) {
        Tracker tracker = new Tracker(name);
        RebalanceListener listener = new RebalanceListener() {
            @Override
            public Mono<Void> onPartitionsAssigned(Collection<io.kflux.TopicPartition> added, RebalanceContext ctx) {
                tracker.assigned(ctx.assignment().stream().map(io.kflux.TopicPartition::partition).toList());
                return Mono.empty();
            }

            @Override
            public Mono<Void> onPartitionsRevoked(Collection<io.kflux.TopicPartition> revoked, RebalanceContext ctx) {
                tracker.revoked(revoked.stream().map(io.kflux.TopicPartition::partition).toList());
                return Mono.empty();
            }
        };
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", servers);
        props.put("group.id", group);
        props.put("client.id", name);
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", false);
        props.put("partition.assignment.strategy", protocol.kfluxAssignor);
        props.put("session.timeout.ms", 10_000);
        props.put("heartbeat.interval.ms", heartbeatMs);
        KafkaFluxConsumer<byte[], byte[]> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(props)
                .subscription(List.of(topic)).rebalanceListener(listener));
        Disposable subscription = consumer.receive().subscribe(r -> tracker.record(r.partition()));
        return new Member() {
            @Override
            public Tracker tracker() {
                return tracker;
            }

            @Override
            public void close() {
                try {
                    consumer.close().block(Duration.ofSeconds(30));
                } catch (RuntimeException e) {
                    System.out.println("  (kflux close failed: " + e + ")");
                }
                subscription.dispose();
            }
        };
    }

    private static Member startOfficial(String servers, String topic, String group, Protocol protocol, String name,
                                        int heartbeatMs) {
        Tracker tracker = new Tracker(name);
        Properties props = new Properties();
        props.put("bootstrap.servers", servers);
        props.put("group.id", group);
        props.put("client.id", name);
        props.put("group.protocol", "classic");
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        props.put("partition.assignment.strategy", protocol.officialAssignor);
        props.put("session.timeout.ms", "10000");
        props.put("heartbeat.interval.ms", Integer.toString(heartbeatMs));
        KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> added) {
                tracker.assigned(consumer.assignment().stream().map(TopicPartition::partition).toList());
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
                tracker.revoked(revoked.stream().map(TopicPartition::partition).toList());
            }
        };
        // the official consumer is used from one thread: subscribe and poll on the member's own thread
        Object started = new Object();
        boolean[] running = {true};
        Thread thread = new Thread(() -> {
            try (consumer) {
                consumer.subscribe(List.of(topic), listener);
                synchronized (started) {
                    started.notifyAll();
                }
                while (running[0]) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        tracker.record(r.partition());
                    }
                }
            } catch (WakeupException stop) {
                // close
            }
        }, name);
        synchronized (started) {
            thread.start();
            try {
                started.wait(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return new Member() {
            @Override
            public Tracker tracker() {
                return tracker;
            }

            @Override
            public void close() {
                running[0] = false;
                consumer.wakeup();
                try {
                    thread.join(30_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    // ---------------------------------------------------------------- production

    /** Writes small records round-robin over the partitions at a steady rate, on a thread of its own. */
    static final class SteadyProducer implements AutoCloseable {
        private final KafkaProducer<byte[], byte[]> producer;
        private final Thread thread;
        private final AtomicLong sent = new AtomicLong();
        private volatile boolean running = true;

        SteadyProducer(String servers, String topic, int partitions, int perSecond) {
            Properties props = new Properties();
            props.put("bootstrap.servers", servers);
            props.put("acks", "1");
            props.put("linger.ms", "0");
            producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
            byte[] value = new byte[100];
            long pauseNanos = 1_000_000_000L / perSecond;
            thread = new Thread(() -> {
                long next = System.nanoTime();
                for (int i = 0; running; i++) {
                    producer.send(new ProducerRecord<>(topic, i % partitions, null, value));
                    sent.incrementAndGet();
                    next += pauseNanos;
                    long sleep = next - System.nanoTime();
                    if (sleep > 0) {
                        try {
                            Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
            }, "steady-producer");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join();
            producer.close(Duration.ofSeconds(10));
        }
    }

    // ---------------------------------------------------------------- output

    private static void printSummary(List<Result> results) {
        System.out.println("medians (ms from the new member's subscription until every member consumes again):");
        for (Protocol protocol : Protocol.values()) {
            Map<String, List<Long>> byClient = new LinkedHashMap<>();
            for (Result r : results) {
                if (r.protocol() == protocol) {
                    byClient.computeIfAbsent(r.client(), k -> new ArrayList<>()).add(r.nanos());
                }
            }
            StringBuilder line = new StringBuilder(String.format("  %-11s", protocol.name().toLowerCase()));
            byClient.forEach((client, nanos) -> line.append(String.format("  %-8s %7.1f ms (%s)", client,
                    median(nanos) / 1e6, nanos.stream().map(n -> String.format("%.0f", n / 1e6))
                            .collect(Collectors.joining(" ")))));
            List<Long> kflux = byClient.get("kflux");
            List<Long> official = byClient.get("official");
            if (kflux != null && official != null) {
                line.append(String.format("  kflux/official %.2f", median(kflux) / median(official)));
            }
            System.out.println(line);
        }
    }

    private static double median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
    }

}
