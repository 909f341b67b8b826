package io.kflux.examples;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import io.kflux.examples.db.DatabasePositions;
import io.kflux.examples.db.OffsetStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;

/**
 * Exactly-once processing with the offsets kept in a database instead of Kafka.
 *
 * <p>Each record's result row and its partition's next offset are written in <b>one database transaction</b>
 * ({@link OffsetStore}); on every assignment the consumer is positioned from the database through
 * {@link io.kflux.RebalanceContext#seek} ({@link DatabasePositions}). Whatever happens to the consumer (a crash,
 * a kill, a rebalance), the results and the positions agree, so every record's result is stored exactly once.
 * Kafka's committed offsets are not used ({@code enable.auto.commit=false}, nothing is acknowledged).
 *
 * <p>Records are written in batches of up to {@code --batch} records (or what arrived within 100 ms): one
 * transaction per batch instead of per record is many times faster and changes nothing about correctness,
 * since a batch is all-or-nothing too. {@code --batch 1} gives one transaction per record.
 *
 * <ul>
 *   <li>No arguments: starts a real Kafka broker (a forked JVM), writes {@value #SAMPLE_RECORDS} sample records
 *       to a 4-partition topic, stores them in an embedded H2 database in a temporary folder, and prints the
 *       result counts.</li>
 *   <li>{@code --bootstrap-servers host:port --topic t [--jdbc-url url] [--jdbc-user u] [--jdbc-password p]
 *       [--group g] [--batch n] [--command-config FILE]}: consumes an existing topic until stopped (Ctrl-C closes
 *       cleanly); the database is H2 in {@code ./kflux-offsets} unless a JDBC URL is given, e.g.
 *       {@code jdbc:postgresql://localhost/app} (the PostgreSQL driver is on the classpath). {@code FILE} holds
 *       client properties as the Kafka CLI tools take them ({@code security.protocol}, {@code sasl.*},
 *       {@code ssl.*}, ...).</li>
 * </ul>
 */
public final class OffsetsInDatabase {

    private static final int SAMPLE_RECORDS = 20_000;
    private static final int SAMPLE_PARTITIONS = 4;
    private static final long PROGRESS_EVERY = 5_000;

    /**
     * What to consume and where to store it.
     *
     * @param bootstrapServers Kafka
     * @param topic            the topic to consume
     * @param groupId          the consumer group (partitions are shared among instances with the same group)
     * @param jdbcUrl          the database
     * @param jdbcUser         database user, may be null
     * @param jdbcPassword     database password, may be null
     * @param batchSize        records per transaction at most
     * @param client           further client properties (e.g. {@code security.protocol}, {@code sasl.*},
     *                         {@code ssl.*}); {@code bootstrapServers} wins over a {@code bootstrap.servers} here
     */
    public record Settings(String bootstrapServers, String topic, String groupId, String jdbcUrl, String jdbcUser,
                           String jdbcPassword, int batchSize, Map<String, Object> client) {
        public Settings {
            client = Map.copyOf(client);
            Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(jdbcUrl, "jdbcUrl");
            if (batchSize < 1) {
                throw new IllegalArgumentException("batchSize must be >= 1, was " + batchSize);
            }
        }

        /** Settings for a cluster that needs nothing but its address. */
        public Settings(String bootstrapServers, String topic, String groupId, String jdbcUrl, String jdbcUser,
                        String jdbcPassword, int batchSize) {
            this(bootstrapServers, topic, groupId, jdbcUrl, jdbcUser, jdbcPassword, batchSize, Map.of());
        }

        /** Leaves the client properties and the database password out: they may hold secrets. */
        @Override
        public String toString() {
            return "Settings[bootstrapServers=" + bootstrapServers + ", topic=" + topic + ", groupId=" + groupId
                    + ", jdbcUrl=" + jdbcUrl + ", batchSize=" + batchSize + ", client=" + client.keySet() + "]";
        }
    }

    private OffsetsInDatabase() {
    }

    /**
     * The processing step of this example: what is stored for a record. A real application computes its result
     * here; the point of the example is where the result and the offset go.
     */
    static String process(ConsumerRecord<String, String> record) {
        return record.value() == null ? null : record.value().toUpperCase(Locale.ROOT);
    }

    /**
     * Starts consuming in the background.
     *
     * @return the running consumer: {@link Running#close()} stops cleanly, {@link Running#kill()} abandons it
     */
    public static Running start(Settings settings) {
        OffsetStore store = OffsetStore.open(settings.jdbcUrl(), settings.jdbcUser(), settings.jdbcPassword());
        Map<String, Object> props = new HashMap<>(settings.client());
        props.put("bootstrap.servers", settings.bootstrapServers());
        props.put("group.id", settings.groupId());
        props.put("enable.auto.commit", false); // the database holds the positions, not Kafka
        props.put("auto.offset.reset", "earliest");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                        .subscription(List.of(settings.topic()))
                        .rebalanceListener(new DatabasePositions(store)));
        return new Running(settings, consumer, store);
    }

    /** A consumer writing to the database; thread-safe. */
    public static final class Running {
        private final KafkaFluxConsumer<String, String> consumer;
        private final OffsetStore store;
        private final AtomicLong stored = new AtomicLong();
        private final AtomicLong skipped = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final CountDownLatch terminated = new CountDownLatch(1);
        private final Disposable subscription;

        private Running(Settings settings, KafkaFluxConsumer<String, String> consumer, OffsetStore store) {
            this.consumer = consumer;
            this.store = store;
            this.subscription = consumer.receive()
                    // fair backpressure: a batch is only closed when downstream asked for one, so the consumer's
                    // demand-driven fetching is kept (no unbounded buffering while the database is slow)
                    .bufferTimeout(settings.batchSize(), Duration.ofMillis(100), true)
                    .concatMap(batch -> store.store(batch, OffsetsInDatabase::process)
                            .doOnNext(written -> progress(batch.size(), written)), 1)
                    .subscribe(v -> { }, e -> {
                        failure.set(e);
                        System.err.println("consumer failed: " + e);
                        terminated.countDown();
                    }, terminated::countDown);
        }

        private void progress(int received, int written) {
            long before = stored.getAndAdd(written);
            skipped.addAndGet(received - written);
            if ((before + written) / PROGRESS_EVERY > before / PROGRESS_EVERY) {
                System.out.printf("  stored %,d records (%,d already stored before and skipped)%n",
                        before + written, skipped.get());
            }
        }

        /** Records whose result this instance stored. */
        public long stored() {
            return stored.get();
        }

        /** Records this instance received that an earlier transaction had already stored (it skipped them). */
        public long skipped() {
            return skipped.get();
        }

        /** The error that ended consumption, if any. */
        public Throwable failure() {
            return failure.get();
        }

        /** The database this instance writes to (to count results). */
        public OffsetStore store() {
            return store;
        }

        /**
         * Simulates a crash: cancels the subscription without a clean close. A transaction under way completes or
         * rolls back on its own; the database connection is left as a crashed process would leave it.
         */
        public void kill() {
            subscription.dispose();
        }

        /** Stops cleanly: ends the subscription, leaves the group, waits for the last transaction, closes the database. */
        public void close() {
            consumer.close().block(Duration.ofSeconds(60));
            try {
                terminated.await(60, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            subscription.dispose();
            store.close();
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = ExampleArgs.parse(args, List.of("--bootstrap-servers", "--topic", "--jdbc-url",
                "--jdbc-user", "--jdbc-password", "--group", "--batch", "--command-config"), OffsetsInDatabase::usage);
        int batch = ExampleArgs.intOption(options, "--batch", 500, OffsetsInDatabase::usage);
        String bootstrapServers = options.get("--bootstrap-servers");
        if (bootstrapServers == null) {
            runAgainstEmbeddedBroker(batch, options.get("--jdbc-url"));
            return;
        }
        String topic = options.get("--topic");
        if (topic == null) {
            usage("--topic is required with --bootstrap-servers");
        }
        Settings settings = new Settings(bootstrapServers, topic, options.getOrDefault("--group", "kflux-offsets-in-db"),
                options.getOrDefault("--jdbc-url", "jdbc:h2:file:./kflux-offsets"), options.get("--jdbc-user"),
                options.get("--jdbc-password"), batch, ExampleArgs.commandConfig(options, OffsetsInDatabase::usage));
        System.out.printf("Consuming %s at %s into %s (Ctrl-C stops)%n", topic, bootstrapServers, settings.jdbcUrl());
        Running running = start(settings);
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            running.close();
            stop.countDown();
        }));
        stop.await();
    }

    private static void runAgainstEmbeddedBroker(int batch, String jdbcUrl) throws Exception {
        Path dir = Files.createTempDirectory("kflux-offsets-db-");
        String url = jdbcUrl != null ? jdbcUrl : "jdbc:h2:file:" + dir.resolve("offsets").toAbsolutePath();
        System.out.println("Starting a Kafka broker (a forked JVM; it logs to a temporary data folder,"
                + " deleted when the broker stops)...");
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.startCluster(1)) {
            String topic = "payments";
            kafka.createTopic(topic, SAMPLE_PARTITIONS, 1);
            System.out.printf("Broker up at %s; writing %,d records to topic %s...%n", kafka.bootstrapServers(),
                    SAMPLE_RECORDS, topic);
            SampleData.produce(kafka.bootstrapServers(), topic, SAMPLE_RECORDS);
            System.out.printf("Consuming into %s, %d records per transaction at most%n", url, batch);
            Running running = start(new Settings(kafka.bootstrapServers(), topic, "offsets-in-db", url, null, null, batch));
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (running.stored() < SAMPLE_RECORDS && running.failure() == null && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            long[] counts = running.store().counts().block(Duration.ofSeconds(30));
            running.close();
            System.out.printf("Done: %,d result rows in the database, %,d duplicates (expected %,d rows, 0 duplicates)%n",
                    counts[0], counts[1], SAMPLE_RECORDS);
            System.out.println("Stopping the broker.");
        }
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println("usage: OffsetsInDatabase [--batch n] [--jdbc-url url]      (embedded broker, sample data)");
        System.err.println("       OffsetsInDatabase --bootstrap-servers host:port --topic t [--jdbc-url url]");
        System.err.println("                         [--jdbc-user u] [--jdbc-password p] [--group g] [--batch n]");
        System.err.println("                         [--command-config client.properties]");
        System.exit(2);
    }
}
