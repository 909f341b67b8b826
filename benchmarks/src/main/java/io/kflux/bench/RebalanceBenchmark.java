package io.kflux.bench;

import static io.kflux.bench.runner.JvmCounters.parseArgs;

import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Rebalance latency, kflux against the official {@link KafkaConsumer}, in the same JVM and against the same broker,
 * under the classic protocol eager ({@code range}) and cooperative ({@code cooperative-sticky}, KIP-429: two rounds)
 * and under the consumer protocol ({@code group.protocol=consumer}, KIP-848: the broker's default assignor, no
 * client-side assignor, for both clients). A group of {@code --members} consumers shares a topic under steady
 * production; one more consumer subscribes, and the latency is the time from that subscription (its JoinGroup or
 * first ConsumerGroupHeartbeat) until the group consumes again in its new, balanced assignment: the assignments
 * cover every partition exactly once, each member owns {@code --partitions-per-member} partitions (the topic of a
 * group of N has {@code (N + 1) x --partitions-per-member} partitions, so every member gets the same number after
 * the join), and every member that was given new partitions has received a record since. A member that only lost
 * partitions, or kept its own, never stopped consuming and is not waited for (under KIP-848 the broker need not even
 * tell it). Each group size and protocol is measured every round on fresh groups, kflux and the official client
 * alternating; medians with their distribution-free intervals ({@link MedianInterval}) are printed at the end, and
 * kflux/official as the median of the per-round ratios.
 *
 * <p>The second figure is what the latency does not show: the <b>stall of the members already in the group</b>. For
 * each of them, its longest silence within the latency window: the longest sub-interval of that window in which it
 * received no record from any partition (a silence that began before the window counts from the window's start; one
 * still open at its end counts up to it; {@link RecordGaps}). Per rebalance the largest over the existing members is
 * the group's worst stall, and a member counts as stalled when its silence exceeds three production intervals of one
 * partition ({@code 3 x partitions / rate}: 20 ms for 8 partitions at 1,200 records/s, 55 ms for 22). The baseline is
 * the same statistic over a window of the same length ending at the new member's subscription (shortened to begin
 * when the group first consumed, if the join came sooner than that; the run counts such windows), so the normal gaps
 * of a consuming member are printed beside. Under eager every member revokes everything and rejoins; under
 * cooperative and consumer a member that keeps partitions need not stop.
 *
 * <p>Both clients run with the same settings: no commits ({@code enable.auto.commit=false}, so a newly assigned
 * partition starts at its first offset and has data at once). Classic: {@code session.timeout.ms} 10 s and
 * {@code heartbeat.interval.ms} {@code --heartbeat-ms} (how fast existing members hear of the rebalance dominates the
 * figure). Consumer protocol: the heartbeat interval is the broker's, {@code group.consumer.heartbeat.interval.ms}
 * (default 5 s, at least {@code group.consumer.min.heartbeat.interval.ms}, default 5 s; the coordinator requires
 * min &lt;= interval &lt;= {@code group.consumer.max.heartbeat.interval.ms} and interval &lt;
 * {@code group.consumer.session.timeout.ms}, 45 s). The embedded broker gets both set to {@code --heartbeat-ms}, so
 * that every protocol's members hear from their coordinator at the same pace; the clients set neither
 * {@code heartbeat.interval.ms} nor {@code session.timeout.ms} under that protocol (the official client does not
 * support them; kflux's {@code session.timeout.ms} keeps its default 45 s, the broker's session timeout). Against
 * another cluster ({@code --bootstrap-servers}) its own settings apply, and a Kafka 4.4 broker also batches target
 * assignment updates ({@code group.consumer.assignment.interval.ms}, KIP-1263, default 1 s), which delays a join that
 * comes within that time of the group's previous assignment.
 *
 * <p>The official client paces its ConsumerGroupHeartbeats by its own request backoff as well: with its default
 * {@code retry.backoff.max.ms} (1 s) they go out in bursts 100 ms apart with gaps of about 1 s, so its members hear
 * of a new target assignment late; {@code --official-config retry.backoff.max.ms=100} shows the difference.
 *
 * <pre>
 * --rounds N                  measured rounds (default 9); --warmup N unmeasured rounds first (default 1)
 * --members N,M,...           group sizes before the new member joins (default 3,10)
 * --protocols a,b,...         classic-eager, classic-cooperative, consumer (default all three)
 * --partitions-per-member N   partitions per member after the join (default 2)
 * --heartbeat-ms N            heartbeat interval of every member, all protocols (default 100)
 * --rate N                    records/s produced over all partitions of the topic in use (default 1200)
 * --settle-ms N               how long after the group first consumes the new member joins (default 1500: longer than
 *                             the latency windows, so the baseline window before the join has their length)
 * --official-config k=v,...   extra settings of the official client only (e.g. retry.backoff.max.ms=100)
 * --bootstrap-servers h:p     use this cluster instead of starting a 1-node embedded broker (this JVM's Kafka)
 * </pre>
 */
public final class RebalanceBenchmark {

    private static final String TOPIC = "rebalance-bench";
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(60);

    /** The three rebalance protocols, with the assignor each client uses for it (none: the broker assigns). */
    enum Protocol {
        CLASSIC_EAGER("classic-eager", "classic", "range", "org.apache.kafka.clients.consumer.RangeAssignor"),
        CLASSIC_COOPERATIVE("classic-cooperative", "classic", "cooperative-sticky",
                "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"),
        CONSUMER("consumer", "consumer", null, null);

        final String label;
        final String groupProtocol;
        final String kfluxAssignor;
        final String officialAssignor;

        Protocol(String label, String groupProtocol, String kfluxAssignor, String officialAssignor) {
            this.label = label;
            this.groupProtocol = groupProtocol;
            this.kfluxAssignor = kfluxAssignor;
            this.officialAssignor = officialAssignor;
        }

        boolean classic() {
            return kfluxAssignor != null;
        }

        static Protocol of(String label) {
            return Arrays.stream(values()).filter(p -> p.label.equals(label)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException("unknown protocol " + label + "; one of classic-eager, "
                            + "classic-cooperative, consumer"));
        }
    }

    /**
     * What one member owns, whether it has consumed since it was last given new partitions, and when it went without
     * records; any thread.
     */
    static final class Tracker {
        final String name;
        private final RecordGaps gaps = new RecordGaps(System.nanoTime());
        private Set<Integer> assignment = Set.of();
        private long assignedAt;
        private long firstRecordAt;

        Tracker(String name) {
            this.name = name;
        }

        /**
         * A rebalance ended for this member with {@code partitions} as its whole assignment; only new partitions
         * make it wait for a record again (a member that kept or lost some never stopped consuming the others).
         */
        synchronized void assigned(Collection<Integer> partitions) {
            Set<Integer> next = Set.copyOf(partitions);
            if (!assignment.containsAll(next)) {
                assignedAt = System.nanoTime();
                firstRecordAt = 0;
            }
            assignment = next;
        }

        synchronized void revoked(Collection<Integer> partitions) {
            Set<Integer> left = new HashSet<>(assignment);
            left.removeAll(partitions);
            assignment = Set.copyOf(left);
        }

        synchronized void record(int partition) {
            long now = System.nanoTime();
            gaps.record(now);
            if (firstRecordAt == 0 && assignment.contains(partition)) {
                firstRecordAt = now;
            }
        }

        /** The longest time within {@code [from, to]} ({@link System#nanoTime()}) this member received no record. */
        synchronized long longestSilence(long from, long to) {
            return gaps.longestSilence(from, to);
        }

        synchronized Snapshot snapshot() {
            return new Snapshot(assignment, assignedAt, firstRecordAt);
        }
    }

    record Snapshot(Set<Integer> assignment, long assignedAt, long firstRecordAt) {
    }

    /** One consumer of the group, either client. */
    interface Member extends AutoCloseable {
        Tracker tracker();

        @Override
        void close();
    }

    /** Starts a member of {@code group}; the subscription (and so its join) starts inside this call. */
    @FunctionalInterface
    interface Client {
        Member start(String servers, String topic, String group, Protocol protocol, String name, int heartbeatMs);
    }

    /**
     * One measured rebalance: its latency, when the new member got its partitions (ns from its subscription), and the
     * existing members' stall during it and in the baseline window before it ({@link Stall}).
     */
    record Measurement(long nanos, long newMemberAssignedNanos, Stall during, Stall before, boolean baselineClipped) {
    }

    /**
     * The existing members' silences in one window: the longest time any of them received no record within it (each
     * member's longest record-free sub-interval, the largest over the members, in ns), and how many had one longer
     * than the threshold.
     */
    record Stall(long worstNanos, int stalled) {
        static Stall of(List<Member> existing, long from, long to, long thresholdNanos) {
            long worst = 0;
            int stalled = 0;
            for (Member m : existing) {
                long silence = m.tracker().longestSilence(from, to);
                worst = Math.max(worst, silence);
                if (silence > thresholdNanos) {
                    stalled++;
                }
            }
            return new Stall(worst, stalled);
        }
    }

    /** One measured rebalance of the summary. */
    record Result(String client, Protocol protocol, int members, int round, Measurement m) {
    }

    private RebalanceBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (System.getProperty("kflux.log.level") == null) {
            // kflux logs every rebalance step at INFO; keep the figures readable (set it to see them)
            System.setProperty("kflux.log.level", "warn");
        }
        Map<String, String> opts = parseArgs(args);
        int rounds = Integer.parseInt(opts.getOrDefault("--rounds", "9"));
        int warmup = Integer.parseInt(opts.getOrDefault("--warmup", "1"));
        List<Integer> sizes = Arrays.stream(opts.getOrDefault("--members", "3,10").split(","))
                .map(String::trim).map(Integer::parseInt).toList();
        List<Protocol> protocols = Arrays.stream(opts.getOrDefault("--protocols",
                "classic-eager,classic-cooperative,consumer").split(",")).map(String::trim).map(Protocol::of).toList();
        int perMember = Integer.parseInt(opts.getOrDefault("--partitions-per-member", "2"));
        int heartbeatMs = Integer.parseInt(opts.getOrDefault("--heartbeat-ms", "100"));
        int rate = Integer.parseInt(opts.getOrDefault("--rate", "1200"));
        long settleMs = Long.parseLong(opts.getOrDefault("--settle-ms", "1500"));
        Map<String, String> officialConfig = new LinkedHashMap<>();
        for (String kv : opts.getOrDefault("--official-config", "").split(",")) {
            if (!kv.isBlank()) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--official-config takes k=v pairs: " + kv);
                }
                officialConfig.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        Map<String, Client> clients = new LinkedHashMap<>();
        clients.put("kflux", RebalanceBenchmark::startKflux);
        clients.put("official", (s, t, g, p, n, hb) -> startOfficial(s, t, g, p, n, hb, officialConfig));

        EmbeddedKafkaCluster kafka = null;
        String servers = opts.get("--bootstrap-servers");
        try {
            if (servers == null) {
                System.out.println("starting a 1-node embedded Kafka broker...");
                String hb = Integer.toString(heartbeatMs);
                kafka = EmbeddedKafkaCluster.builder().nodes(1)
                        .brokerProperty("group.consumer.heartbeat.interval.ms", hb)
                        .brokerProperty("group.consumer.min.heartbeat.interval.ms", hb)
                        .start();
                servers = kafka.bootstrapServers();
            }
            List<Result> results = new ArrayList<>();
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers))) {
                printBrokerGroupSettings(admin);
                for (int members : sizes) {
                    int partitions = perMember * (members + 1);
                    String topic = TOPIC + "-" + members + "-" + Long.toString(System.currentTimeMillis(), 36);
                    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
                    long threshold = stallThresholdNanos(partitions, rate);
                    System.out.printf("topic %s: %d partitions, %d records/s; %d members + 1 joining; heartbeat "
                            + "interval %d ms; join %d ms after the group consumes; stall threshold %.1f ms; "
                            + "%d warm-up + %d measured rounds%s%n", topic, partitions, rate, members, heartbeatMs,
                            settleMs, threshold / 1e6, warmup, rounds, officialConfig.isEmpty() ? ""
                                    : "; official client also " + officialConfig);
                    try (FixedRateProducer producer = new FixedRateProducer(servers, topic, partitions, rate)) {
                        Thread.sleep(1_000); // every partition has records before the first member joins
                        for (int round = 1 - warmup; round <= rounds; round++) {
                            for (Protocol protocol : protocols) {
                                for (Map.Entry<String, Client> client : clients.entrySet()) {
                                    String group = "rb-" + client.getKey() + "-" + protocol.label + "-" + members
                                            + "-" + round + "-" + System.nanoTime() % 1_000_000;
                                    Measurement m = measure(client.getKey(), client.getValue(), servers, topic,
                                            partitions, group, protocol, members, heartbeatMs, settleMs, threshold);
                                    System.out.printf("%s %d  %-19s %2d members  %-8s rebalance %7.1f ms (new member "
                                            + "assigned after %7.1f ms); stall %6.1f ms, %2d stalled (before: %5.1f ms, "
                                            + "%d%s)%n", round <= 0 ? "warm-up" : "round  ",
                                            round <= 0 ? round + warmup : round, protocol.label, members,
                                            client.getKey(), m.nanos() / 1e6, m.newMemberAssignedNanos() / 1e6,
                                            m.during().worstNanos() / 1e6, m.during().stalled(),
                                            m.before().worstNanos() / 1e6, m.before().stalled(),
                                            m.baselineClipped() ? ", shorter window" : "");
                                    if (round > 0) {
                                        results.add(new Result(client.getKey(), protocol, members, round, m));
                                    }
                                }
                            }
                        }
                    }
                }
            }
            printSummary(results, sizes, protocols, rounds);
            printStallSummary(results, sizes, protocols, rounds, perMember, rate);
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    /** What the broker gives consumer-protocol members, read back (an embedded broker's settings took effect). */
    private static void printBrokerGroupSettings(Admin admin) throws Exception {
        String node = Integer.toString(admin.describeCluster().nodes().get().iterator().next().id());
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node);
        Config config = admin.describeConfigs(List.of(broker)).all().get().get(broker);
        System.out.println("broker " + node + ": " + List.of("group.consumer.heartbeat.interval.ms",
                        "group.consumer.min.heartbeat.interval.ms", "group.consumer.session.timeout.ms").stream()
                .map(k -> k + "=" + (config.get(k) == null ? "?" : config.get(k).value()))
                .collect(Collectors.joining(", ")));
    }

    /**
     * A member stalled when it went longer than three production intervals of one partition without a record: the
     * producer sends each partition a record every {@code partitions / rate} s, and a member owns at least one, so in
     * steady consumption its gaps stay well below that (what the baseline window shows, under this machine's load).
     */
    static long stallThresholdNanos(int partitions, int rate) {
        return 3L * partitions * 1_000_000_000L / rate;
    }

    /**
     * Measures one rebalance: the latency (the window from the new member's subscription until the group consumes
     * again), and the existing members' stall within that window and, as the baseline, within a window of the same
     * length just before the subscription (shortened to begin when the group first consumed, if it was longer; the
     * join comes {@code settleMs} after that).
     */
    private static Measurement measure(String clientName, Client client, String servers, String topic, int partitions,
                                       String group, Protocol protocol, int existing, int heartbeatMs, long settleMs,
                                       long stallThresholdNanos)
            throws InterruptedException {
        List<Member> members = new ArrayList<>();
        try {
            for (int i = 1; i <= existing; i++) {
                members.add(client.start(servers, topic, group, protocol, clientName + "-" + i, heartbeatMs));
            }
            long ready = awaitConsuming(members, partitions, System.nanoTime(), "the first " + existing
                    + " members to share " + topic);
            Thread.sleep(settleMs);
            List<Member> before = List.copyOf(members);
            long start = System.nanoTime();
            Member joining = client.start(servers, topic, group, protocol, clientName + "-new", heartbeatMs);
            members.add(joining);
            long end = awaitConsuming(members, partitions, start, "the group to consume again after a join");
            long baselineFrom = Math.max(ready, start - (end - start));
            return new Measurement(end - start, joining.tracker().snapshot().assignedAt() - start,
                    Stall.of(before, start, end, stallThresholdNanos),
                    Stall.of(before, baselineFrom, start, stallThresholdNanos), baselineFrom > start - (end - start));
        } finally {
            // in parallel: one by one, a group of 11 official consumers takes seconds to close
            CompletableFuture.allOf(members.stream().map(m -> CompletableFuture.runAsync(m::close))
                    .toArray(CompletableFuture[]::new)).join();
        }
    }

    /**
     * Waits until the members' assignments cover every partition exactly once, each member owns its fair share
     * ({@code partitions / members}, rounded down or up), and every member has received a record from its assignment
     * since it was last given new partitions.
     *
     * @param since {@link System#nanoTime()} when the wait began, for its timeout
     * @return the latest of those first records ({@link System#nanoTime()})
     */
    private static long awaitConsuming(List<Member> members, int partitions, long since, String what)
            throws InterruptedException {
        long deadline = since + STEP_TIMEOUT.toNanos();
        int fewest = partitions / members.size();
        int most = (partitions + members.size() - 1) / members.size();
        for (;;) {
            Set<Integer> covered = new HashSet<>();
            int owned = 0;
            long latest = 0;
            boolean consuming = true;
            for (Member m : members) {
                Snapshot s = m.tracker().snapshot();
                owned += s.assignment().size();
                covered.addAll(s.assignment());
                if (s.assignment().size() < fewest || s.assignment().size() > most || s.firstRecordAt() == 0) {
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
        props.put("group.protocol", protocol.groupProtocol);
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", false);
        if (protocol.classic()) {
            props.put("partition.assignment.strategy", protocol.kfluxAssignor);
            props.put("session.timeout.ms", 10_000);
            props.put("heartbeat.interval.ms", heartbeatMs);
        }
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
                                        int heartbeatMs, Map<String, String> extra) {
        Tracker tracker = new Tracker(name);
        Properties props = new Properties();
        props.put("bootstrap.servers", servers);
        props.put("group.id", group);
        props.put("client.id", name);
        props.put("group.protocol", protocol.groupProtocol);
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        if (protocol.classic()) {
            props.put("partition.assignment.strategy", protocol.officialAssignor);
            props.put("session.timeout.ms", "10000");
            props.put("heartbeat.interval.ms", Integer.toString(heartbeatMs));
        }
        props.putAll(extra);
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

    // ---------------------------------------------------------------- output

    private static void printSummary(List<Result> results, List<Integer> sizes, List<Protocol> protocols,
                                     int rounds) {
        System.out.println("medians (ms from the new member's subscription until the group consumes again), "
                + "[interval]; kflux/official: median of the per-round ratios [interval]");
        System.out.println("| protocol | members | kflux (ms) | official (ms) | kflux/official |");
        System.out.println("|---|---|---|---|---|");
        for (Protocol protocol : protocols) {
            for (int members : sizes) {
                Map<Integer, Long> kflux = new LinkedHashMap<>();
                Map<Integer, Long> official = new LinkedHashMap<>();
                for (Result r : results) {
                    if (r.protocol() == protocol && r.members() == members) {
                        (r.client().equals("kflux") ? kflux : official).put(r.round(), r.m().nanos());
                    }
                }
                if (kflux.isEmpty() || official.isEmpty()) {
                    continue;
                }
                double[] ratios = kflux.keySet().stream().filter(official::containsKey)
                        .mapToDouble(round -> (double) kflux.get(round) / official.get(round)).toArray();
                System.out.printf("| %s | %d | %s | %s | %s |%n", protocol.label, members, millis(kflux.values()),
                        millis(official.values()), format(MedianInterval.of(ratios), "%.2f"));
            }
        }
        System.out.printf("(%d measured rounds per cell; each interval covers the median with %.1f %% confidence)%n",
                rounds, MedianInterval.coverage(rounds, MedianInterval.rank(rounds)) * 100);
    }

    /**
     * The existing members' stall: per cell, the medians over the rounds of the worst silence within the latency
     * window and within the baseline window before the join, of the number of members stalled in each, and
     * kflux/official of the worst silence where both clients' median is above the threshold (below it, both only show
     * their normal gaps and the ratio would compare noise).
     */
    private static void printStallSummary(List<Result> results, List<Integer> sizes, List<Protocol> protocols,
                                          int rounds, int perMember, int rate) {
        System.out.println();
        System.out.println("existing members' stall: medians of the worst silence over the existing members within "
                + "the latency window (\"during\") and within a window of the same length before the join "
                + "(\"before\"), ms [interval]; stalled: members silent longer than the threshold (3 production "
                + "intervals of one partition), during / before, median [interval]");
        System.out.println("| protocol | members | threshold (ms) | kflux during (ms) | kflux before (ms) "
                + "| official during (ms) | official before (ms) | kflux/official | kflux stalled | official stalled |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        int clipped = 0;
        for (Protocol protocol : protocols) {
            for (int members : sizes) {
                long threshold = stallThresholdNanos(perMember * (members + 1), rate);
                Map<Integer, Measurement> kflux = new LinkedHashMap<>();
                Map<Integer, Measurement> official = new LinkedHashMap<>();
                for (Result r : results) {
                    if (r.protocol() == protocol && r.members() == members) {
                        (r.client().equals("kflux") ? kflux : official).put(r.round(), r.m());
                        clipped += r.m().baselineClipped() ? 1 : 0;
                    }
                }
                if (kflux.isEmpty() || official.isEmpty()) {
                    continue;
                }
                MedianInterval kfluxDuring = MedianInterval.of(kflux.values().stream()
                        .mapToDouble(m -> m.during().worstNanos() / 1e6).toArray());
                MedianInterval officialDuring = MedianInterval.of(official.values().stream()
                        .mapToDouble(m -> m.during().worstNanos() / 1e6).toArray());
                String ratio = "-";
                if (kfluxDuring.median() > threshold / 1e6 && officialDuring.median() > threshold / 1e6) {
                    ratio = format(MedianInterval.of(kflux.keySet().stream().filter(official::containsKey)
                            .filter(round -> official.get(round).during().worstNanos() > 0)
                            .mapToDouble(round -> (double) kflux.get(round).during().worstNanos()
                                    / official.get(round).during().worstNanos()).toArray()), "%.2f");
                }
                System.out.printf("| %s | %d | %.1f | %s | %s | %s | %s | %s | %s | %s |%n", protocol.label, members,
                        threshold / 1e6, format(kfluxDuring, "%.1f"),
                        millis(kflux.values().stream().map(m -> m.before().worstNanos()).toList()),
                        format(officialDuring, "%.1f"),
                        millis(official.values().stream().map(m -> m.before().worstNanos()).toList()), ratio,
                        stalled(kflux.values(), members), stalled(official.values(), members));
            }
        }
        System.out.printf("(%d measured rounds per cell; %d of the baseline windows shortened to begin when the group "
                + "first consumed)%n", rounds, clipped);
    }

    private static String stalled(Collection<Measurement> ms, int members) {
        return format(MedianInterval.of(ms.stream().mapToDouble(m -> m.during().stalled()).toArray()), "%.1f")
                + " / " + format(MedianInterval.of(ms.stream().mapToDouble(m -> m.before().stalled()).toArray()),
                "%.1f") + " of " + members;
    }

    private static String millis(Collection<Long> nanos) {
        return format(MedianInterval.of(nanos.stream().mapToDouble(n -> n / 1e6).toArray()), "%.1f");
    }

    private static String format(MedianInterval mi, String number) {
        return String.format(number + " [" + number + "-" + number + "]", mi.median(), mi.low(), mi.high());
    }
}
