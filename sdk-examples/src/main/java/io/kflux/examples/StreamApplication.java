package io.kflux.examples;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Several members of one consumer group sharing a topic, the way a scaled-out stream application runs: each
 * member is a {@link KafkaFluxConsumer} with the same {@code group.id}, and the group coordinator divides the
 * partitions among them. A {@link RebalanceListener} prints each member's partitions whenever they change.
 *
 * <ul>
 *   <li>No arguments: starts a real Kafka broker (a forked JVM) with a 6-partition topic and a producer writing
 *       about {@value #RECORDS_PER_SECOND} records/s, then starts {@value #DEFAULT_MEMBERS} members one after
 *       another, lets the first one leave midway, and stops after {@value #DEFAULT_SECONDS} s (or on Ctrl-C).</li>
 *   <li>{@code --bootstrap-servers host:port --topic t [--members n] [--group g] [--seconds s]
 *       [--command-config FILE]}: the same members on an existing topic of a real cluster (nothing is written to
 *       it); {@code --seconds 0} runs until Ctrl-C. {@code FILE} holds client properties as the Kafka CLI tools take
 *       them ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}, ...).</li>
 *   <li>{@code --metrics} (with either): every member publishes its meters into one Micrometer registry
 *       ({@link ConsumerOptions#withMeterRegistry}), and once a second a plain table shows each member's records/s
 *       and its lag per partition, read from those meters ({@link MetricsTable}).</li>
 * </ul>
 */
public final class StreamApplication {

    private static final int DEFAULT_MEMBERS = 3;
    private static final int DEFAULT_SECONDS = 30;
    private static final int SAMPLE_PARTITIONS = 6;
    private static final int RECORDS_PER_SECOND = 500;
    private static final Duration JOIN_EVERY = Duration.ofSeconds(4);
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(3);
    private static final Duration METRICS_EVERY = Duration.ofSeconds(1);

    /** Set when Ctrl-C was pressed. */
    private static final CountDownLatch INTERRUPTED = new CountDownLatch(1);
    /** Counted down when main is done, so that the Ctrl-C hook lets the JVM exit only after the clean-up. */
    private static final CountDownLatch FINISHED = new CountDownLatch(1);

    private StreamApplication() {
    }

    public static void main(String[] args) throws Exception {
        // --metrics is a flag (no value): taken out before the name/value options are parsed
        List<String> rest = new ArrayList<>(List.of(args));
        boolean metrics = rest.remove("--metrics");
        args = rest.toArray(String[]::new);
        Map<String, String> options = ExampleArgs.parse(args,
                List.of("--bootstrap-servers", "--topic", "--members", "--group", "--seconds", "--command-config"),
                StreamApplication::usage);
        int members = ExampleArgs.intOption(options, "--members", DEFAULT_MEMBERS, StreamApplication::usage);
        int seconds = ExampleArgs.intOption(options, "--seconds", DEFAULT_SECONDS, StreamApplication::usage);
        String group = options.getOrDefault("--group", "kflux-stream-app");
        String bootstrapServers = options.get("--bootstrap-servers");
        String topic = options.get("--topic");
        if (members < 1) {
            usage("--members must be at least 1");
        }
        if (bootstrapServers != null && topic == null) {
            usage("--topic is required with --bootstrap-servers");
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            INTERRUPTED.countDown(); // Ctrl-C: close the members (final commit, LeaveGroup) before exiting
            awaitQuietly(FINISHED, Duration.ofSeconds(30));
        }));
        try {
            if (bootstrapServers != null) {
                new Run(ExampleArgs.client(options, bootstrapServers, StreamApplication::usage), topic, group, members,
                        seconds, false, metrics).execute();
            } else {
                runWithEmbeddedBroker(group, members, seconds, metrics);
            }
        } finally {
            FINISHED.countDown();
        }
    }

    private static void runWithEmbeddedBroker(String group, int members, int seconds, boolean metrics)
            throws Exception {
        System.out.println("Starting a Kafka broker (a forked JVM; it logs to a temporary data folder,"
                + " deleted when the broker stops)...");
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.startCluster(1)) {
            String topic = "stream-app";
            kafka.createTopic(topic, SAMPLE_PARTITIONS, 1);
            System.out.printf("Broker up at %s; topic %s has %d partitions; producing about %d records/s%n",
                    kafka.bootstrapServers(), topic, SAMPLE_PARTITIONS, RECORDS_PER_SECOND);
            try (SampleProducer producer = new SampleProducer(kafka.bootstrapServers(), topic)) {
                new Run(Map.of("bootstrap.servers", kafka.bootstrapServers()), topic, group, members, seconds, true,
                        metrics).execute();
                System.out.printf("The producer wrote %,d records.%n", producer.written());
            }
            System.out.println("Stopping the broker.");
        }
    }

    /** One run: members join one by one, the first leaves midway, progress is printed until the time is up. */
    private static final class Run {
        private final Map<String, Object> client;
        private final String topic;
        private final String group;
        private final int memberCount;
        private final int seconds;
        private final boolean embedded;
        private final List<Member> members = new ArrayList<>();
        private final long start = System.nanoTime();
        /** Every member's meters (--metrics), or null. */
        private final MeterRegistry registry;
        private final MetricsTable table;

        Run(Map<String, Object> client, String topic, String group, int memberCount, int seconds, boolean embedded,
            boolean metrics) {
            this.registry = metrics ? new SimpleMeterRegistry() : null;
            this.table = metrics ? new MetricsTable(registry) : null;
            this.client = client;
            this.topic = topic;
            this.group = group;
            this.memberCount = memberCount;
            this.seconds = seconds;
            this.embedded = embedded;
        }

        void execute() throws InterruptedException {
            System.out.printf("%s members of group %s will join one every %d s%s%n", memberCount, group,
                    JOIN_EVERY.toSeconds(), memberCount > 1 ? "; the first one leaves midway" : "");
            long until = seconds > 0 ? start + TimeUnit.SECONDS.toNanos(seconds) : Long.MAX_VALUE;
            long leaveAt = memberCount > 1 ? start + JOIN_EVERY.toNanos() * memberCount + JOIN_EVERY.toNanos() * 2
                    : Long.MAX_VALUE;
            long nextJoin = start;
            long nextProgress = start + PROGRESS_EVERY.toNanos();
            long nextTable = start + METRICS_EVERY.toNanos();
            while (!INTERRUPTED.await(100, TimeUnit.MILLISECONDS) && System.nanoTime() < until) {
                long now = System.nanoTime();
                if (members.size() < memberCount && now >= nextJoin) {
                    Member m = new Member("member-" + (members.size() + 1), this);
                    members.add(m);
                    log(m.name + " joins the group");
                    m.start(client, topic, group);
                    nextJoin = now + JOIN_EVERY.toNanos();
                }
                if (now >= leaveAt) {
                    leaveAt = Long.MAX_VALUE;
                    Member leaving = members.get(0);
                    log(leaving.name + " leaves the group; its partitions go to the others");
                    leaving.close(Duration.ofSeconds(15));
                }
                if (table != null && now >= nextTable) {
                    log("metrics\n" + table.render());
                    nextTable = now + METRICS_EVERY.toNanos();
                }
                if (now >= nextProgress) {
                    printProgress();
                    nextProgress = now + PROGRESS_EVERY.toNanos();
                }
            }
            boolean interrupted = INTERRUPTED.getCount() == 0;
            log(interrupted ? "interrupted: closing every member" : "time is up: closing every member");
            // On Ctrl-C the embedded broker is killed at once (see EmbeddedKafkaCluster): do not wait for it.
            Duration closeTimeout = Duration.ofSeconds(interrupted && embedded ? 1 : 15);
            members.forEach(m -> m.close(closeTimeout));
            printProgress();
        }

        void printProgress() {
            StringBuilder line = new StringBuilder("progress:");
            for (Member m : members) {
                long total = m.processed.get();
                double perSecond = (total - m.reported) / ((System.nanoTime() - m.reportedAt) / 1e9);
                m.reported = total;
                m.reportedAt = System.nanoTime();
                line.append(String.format("  %s %,d records (%,.0f/s, %s)", m.name, total, perSecond,
                        m.closed ? "left" : m.consumer.assignment().size() + " partitions"));
            }
            log(line.toString());
        }

        void log(String message) {
            System.out.printf("[%5.1f s] %s%n", (System.nanoTime() - start) / 1e9, message);
        }
    }

    /** One member of the group: a kflux consumer, its processing pipeline and its rebalance listener. */
    private static final class Member implements RebalanceListener {
        private final String name;
        private final Run run;
        private final AtomicLong processed = new AtomicLong();
        private final Set<TopicPartition> owned = new TreeSet<>(
                Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        private KafkaFluxConsumer<String, String> consumer;
        private Disposable subscription;
        private volatile boolean closed;
        private long reported;
        private long reportedAt = System.nanoTime();

        Member(String name, Run run) {
            this.name = name;
            this.run = run;
        }

        void start(Map<String, Object> client, String topic, String group) {
            Map<String, Object> config = new HashMap<>(client); // bootstrap.servers and security settings
            config.put("group.id", group);
            config.put("client.id", name);
            config.put("auto.offset.reset", "earliest");
            config.put("enable.auto.commit", true);                   // commits what was acknowledged, every 5 s
            config.put("partition.assignment.strategy", "cooperative-sticky"); // only moved partitions are revoked
            ConsumerOptions<String, String> options = ConsumerOptions.create(config, Deserializers.string(),
                            Deserializers.string())
                    .subscription(List.of(topic))
                    .rebalanceListener(this);
            if (run.registry != null) {
                options = options.withMeterRegistry(run.registry); // client.id tells the members apart
            }
            consumer = KafkaFluxConsumer.create(options);
            subscription = consumer.receive()
                    .concatMap(record -> process(record).doOnSuccess(v -> record.acknowledge()))
                    .subscribe(v -> { }, e -> run.log(name + " failed: " + e));
        }

        /** The application's work for one record; here it only counts. */
        private Mono<Void> process(ConsumerRecord<String, String> record) {
            return Mono.fromRunnable(processed::incrementAndGet);
        }

        @Override
        public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
            return changed("+", partitions, ctx);
        }

        @Override
        public Mono<Void> onPartitionsRevoked(Collection<TopicPartition> partitions, RebalanceContext ctx) {
            return changed("-", partitions, ctx);
        }

        @Override
        public Mono<Void> onPartitionsLost(Collection<TopicPartition> partitions, RebalanceContext ctx) {
            return changed("- (lost)", partitions, ctx);
        }

        private Mono<Void> changed(String sign, Collection<TopicPartition> partitions, RebalanceContext ctx) {
            if (partitions.isEmpty()) {
                return Mono.empty(); // cooperative rebalances often leave a member's partitions as they were
            }
            synchronized (owned) {
                if (sign.startsWith("+")) {
                    owned.addAll(partitions);
                } else {
                    owned.removeAll(partitions);
                }
                run.log(String.format("%-9s generation %d: %s%s -> owns %s", name, ctx.generationId(), sign,
                        partitionNumbers(partitions), partitionNumbers(owned)));
            }
            return Mono.empty();
        }

        void close(Duration timeout) {
            if (closed) {
                return;
            }
            closed = true;
            try {
                consumer.close(timeout).block(timeout.plusSeconds(1)); // final commit, LeaveGroup
            } catch (RuntimeException e) {
                run.log(name + ": close did not finish: " + e.getMessage());
            }
            subscription.dispose();
        }
    }

    /** Partition numbers, sorted: [0, 3, 4]. */
    private static List<Integer> partitionNumbers(Collection<TopicPartition> partitions) {
        return partitions.stream().map(TopicPartition::partition).sorted().toList();
    }

    /** Writes "order-n" events at a steady rate with the official producer, on a thread of its own. */
    private static final class SampleProducer implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final Thread thread;
        private final AtomicLong written = new AtomicLong();
        private volatile boolean running = true;

        SampleProducer(String bootstrapServers, String topic) {
            producer = SampleData.producer(bootstrapServers);
            thread = new Thread(() -> {
                for (long n = 0; running; n++) {
                    producer.send(new ProducerRecord<>(topic, "customer-" + n % 97, "order-" + n), (md, e) -> {
                        if (e == null) {
                            written.incrementAndGet();
                        }
                    });
                    try {
                        Thread.sleep(1000 / RECORDS_PER_SECOND);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "sample-producer");
            thread.setDaemon(true);
            thread.start();
        }

        long written() {
            return written.get();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join();
            producer.close(Duration.ofSeconds(10));
        }
    }

    private static void awaitQuietly(CountDownLatch latch, Duration timeout) {
        try {
            latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println("usage: StreamApplication [--members n] [--seconds s] [--metrics]   (embedded broker,"
                + " sample data)");
        System.err.println("       StreamApplication --bootstrap-servers host:port --topic t [--members n] [--group g]"
                + " [--seconds s] [--command-config client.properties] [--metrics]");
        System.err.println("--metrics prints records/s per member and the lag per partition once a second, from the"
                + " consumers' Micrometer meters");
        System.exit(2);
    }
}
