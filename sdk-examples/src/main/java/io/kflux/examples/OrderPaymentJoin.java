package io.kflux.examples;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.PartitionFlux;
import io.kflux.TopicPartition;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import io.kflux.examples.join.JoinResult;
import io.kflux.examples.join.PartitionJoin;
import io.kflux.examples.join.SampleOrders;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.ProducerRecord;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A filter and a windowed join of two topics: orders and their payments, both keyed by order id.
 *
 * <p><b>Co-partitioning.</b> {@code orders} and {@code payments} have the same number of partitions and the same
 * keys, written with the same partitioner, so an order and its payment are in partition N of their topics. One
 * consumer group subscribes to both topics with the {@code range} assignor, which gives partition N of every
 * subscribed topic to the same member: each member owns whole partition <em>pairs</em> and can join them locally.
 * {@link #checkCoPartitioned} checks the partition counts at startup (with the official {@link Admin} client) and
 * fails with a clear error when they differ. (The {@code cooperative-sticky} and {@code roundrobin} assignors do not
 * keep pairs together; {@link #options} sets {@code range}.)
 *
 * <p><b>The pipeline</b> ({@link #pipeline}): orders that fail validation (no id, an amount that is not a positive
 * number) are dropped and reported as {@link JoinResult.Kind#INVALID}; an order and its payment, in either order,
 * whose record timestamps are at most the window apart (default 30 s) are {@link JoinResult.Kind#JOINED}; a valid
 * order with no payment when its window closes is {@link JoinResult.Kind#UNPAID}. Windows close by record time, per
 * partition pair: the watermark is the lower of the highest timestamps seen on orders-N and on payments-N (so one
 * topic read ahead of the other cannot close windows early), and records older than {@code watermark - window}
 * expire. Records with a {@code null} value are heartbeats that only move time on (for quiet partitions).
 *
 * <p><b>State per partition pair</b> ({@link PartitionJoin}) comes from {@link KafkaFluxConsumer#receivePartitioned()}:
 * its inner fluxes complete when a partition is revoked or lost. orders-N and payments-N are two inner fluxes; the
 * first of them opens the pair's state, the second joins it, and the state is dropped as soon as either completes
 * (with {@code range} both are revoked together: every rebalance of this eager assignor revokes everything). A later
 * assignment of N gets a fresh state, filled again from the committed offsets. This was chosen over
 * {@code receive()} + {@code groupBy(partition)} because the inner fluxes end exactly at revocation, with no
 * listener racing the records still queued in a group.
 *
 * <p><b>At least once.</b> Nothing is acknowledged before its result went through the sink: an order (joined,
 * unpaid or invalid) once its result did; a payment nobody ordered once it expired; a joined payment only once its
 * order's offset is <em>committed</em> (checked every second with {@link KafkaFluxConsumer#committed}). Auto commit
 * commits the acknowledged prefix of each partition. After a crash or a rebalance the new owner reads again
 * everything after the committed offsets: results after the last commit may be emitted twice, none is lost, and
 * the last rule makes a second result always the same as the first (committing a joined payment before its order
 * could make the order read again alone and come out as unpaid). The sink should therefore be idempotent, keyed by
 * order id.
 *
 * <ul>
 *   <li>No arguments: starts a real Kafka broker (a forked JVM), creates the topics with
 *       {@value #SAMPLE_PARTITIONS} partitions each, writes {@value #SAMPLE_ORDERS} sample orders and their payments
 *       in a few rounds ({@link SampleOrders}), runs the join, prints the counts as they grow and a summary.</li>
 *   <li>{@code --bootstrap-servers host:port [--orders-topic t] [--payments-topic t] [--group g]
 *       [--window-seconds s] [--command-config FILE]}: joins existing topics (default {@code orders} and
 *       {@code payments}) until Ctrl-C; {@code FILE} holds client properties as the Kafka CLI tools take them
 *       ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}, ...), for the consumer and the Admin alike.</li>
 * </ul>
 */
public final class OrderPaymentJoin {

    /** Default orders topic. */
    public static final String ORDERS = "orders";
    /** Default payments topic. */
    public static final String PAYMENTS = "payments";
    /** Default join window. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(30);
    /** How often held payments are checked against the committed offsets of their orders. */
    static final Duration RELEASE_EVERY = Duration.ofSeconds(1);

    private static final int SAMPLE_ORDERS = 5_000;
    private static final int SAMPLE_PARTITIONS = 4;
    private static final int SAMPLE_ROUNDS = 5;

    private OrderPaymentJoin() {
    }

    /**
     * Consumer options for the join: a group subscription to both topics with the {@code range} assignor (so the
     * partitions of a pair stay together), earliest reset, auto commit of acknowledged offsets every second.
     *
     * @param bootstrapServers Kafka
     * @param groupId          the consumer group; instances with the same group share the partition pairs
     * @param ordersTopic      the orders topic
     * @param paymentsTopic    the payments topic
     * @return options; add or override properties with {@link ConsumerOptions#withProperties}
     */
    public static ConsumerOptions<String, String> options(String bootstrapServers, String groupId, String ordersTopic,
                                                          String paymentsTopic) {
        return options(Map.of("bootstrap.servers", bootstrapServers), groupId, ordersTopic, paymentsTopic);
    }

    /**
     * {@link #options(String, String, String, String)} for a cluster that needs more than its address.
     *
     * @param client {@code bootstrap.servers} and any connection settings (e.g. {@code security.protocol},
     *               {@code sasl.*}, {@code ssl.*})
     */
    public static ConsumerOptions<String, String> options(Map<String, ?> client, String groupId, String ordersTopic,
                                                          String paymentsTopic) {
        Map<String, Object> props = new HashMap<>(client);
        props.put("group.id", groupId);
        props.put("partition.assignment.strategy", "range");
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", true);
        props.put("auto.commit.interval.ms", 1000);
        return ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                .subscription(List.of(ordersTopic, paymentsTopic));
    }

    /**
     * Checks that the two topics are co-partitioned: both exist and have the same number of partitions.
     *
     * @return the partition count
     * @throws IllegalStateException when they differ or cannot be described
     */
    public static int checkCoPartitioned(String bootstrapServers, String ordersTopic, String paymentsTopic) {
        return checkCoPartitioned(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), ordersTopic,
                paymentsTopic);
    }

    /**
     * {@link #checkCoPartitioned(String, String, String)} for a cluster that needs more than its address.
     *
     * @param client {@code bootstrap.servers} and any connection settings, as the official {@link Admin} takes them
     */
    public static int checkCoPartitioned(Map<String, ?> client, String ordersTopic, String paymentsTopic) {
        try (Admin admin = Admin.create(new HashMap<String, Object>(client))) {
            Map<String, TopicDescription> topics = admin.describeTopics(List.of(ordersTopic, paymentsTopic))
                    .allTopicNames().get(30, TimeUnit.SECONDS);
            int orders = topics.get(ordersTopic).partitions().size();
            int payments = topics.get(paymentsTopic).partitions().size();
            if (orders != payments) {
                throw new IllegalStateException(String.format("topics %s and %s are not co-partitioned: %s has %d "
                        + "partitions, %s has %d. The join needs the same partition count (and the same keys and "
                        + "partitioner) so that an order and its payment land in partitions with the same number.",
                        ordersTopic, paymentsTopic, ordersTopic, orders, paymentsTopic, payments));
            }
            return orders;
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot describe topics " + ordersTopic + " and " + paymentsTopic + ": "
                                            + e.getCause(), e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("timed out describing topics " + ordersTopic + " and " + paymentsTopic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** {@link #pipeline(KafkaFluxConsumer, String, String, Duration, Function)} on the topics {@value #ORDERS} and {@value #PAYMENTS}. */
    public static Flux<JoinResult> pipeline(KafkaFluxConsumer<String, String> consumer, Duration window,
                                            Function<? super JoinResult, ? extends Mono<Void>> sink) {
        return pipeline(consumer, ORDERS, PAYMENTS, window, sink);
    }

    /**
     * The join: subscribing to the returned flux subscribes to {@code consumer.receivePartitioned()}; cancelling it
     * (or closing the consumer) ends it. Each result is handed to {@code sink}; when the sink's {@code Mono}
     * completes, the result's records are acknowledged as the class comment says, and the result is emitted.
     *
     * @param consumer      a consumer made from {@link #options} (a group subscription to both topics, {@code range})
     * @param ordersTopic   the orders topic
     * @param paymentsTopic the payments topic
     * @param window        how far apart the timestamps of an order and its payment may be
     * @param sink          where results go (a database, a topic, ...), one at a time
     * @return the results, after the sink took them
     */
    public static Flux<JoinResult> pipeline(KafkaFluxConsumer<String, String> consumer, String ordersTopic,
                                            String paymentsTopic, Duration window,
                                            Function<? super JoinResult, ? extends Mono<Void>> sink) {
        return Flux.defer(() -> {
            Pairs pairs = new Pairs(ordersTopic, paymentsTopic, window);
            AtomicReference<Disposable> releaser = new AtomicReference<>();
            return consumer.receivePartitioned()
                    .flatMap(pairs::join, Integer.MAX_VALUE) // every inner flux at once: a pair needs both
                    .concatMap(e -> sink.apply(e.result)
                            .then(Mono.fromRunnable(() -> e.pair.emitted(e.result)))
                            .thenReturn(e.result))
                    .doOnSubscribe(s -> releaser.set(Flux.interval(RELEASE_EVERY)
                            .onBackpressureDrop()
                            .concatMap(t -> pairs.releaseCommitted(consumer), 1)
                            .subscribe()))
                    .doFinally(s -> {
                        Disposable r = releaser.get();
                        if (r != null) {
                            r.dispose();
                        }
                    });
        });
    }

    /** A result and the state it came from. */
    private record Emission(PartitionJoin pair, JoinResult result) {
    }

    /** The join states of one pipeline subscription, by partition number. */
    private static final class Pairs {
        private final String ordersTopic;
        private final String paymentsTopic;
        private final Duration window;
        private final Map<Integer, PartitionJoin> states = new ConcurrentHashMap<>();

        Pairs(String ordersTopic, String paymentsTopic, Duration window) {
            this.ordersTopic = ordersTopic;
            this.paymentsTopic = paymentsTopic;
            this.window = window;
        }

        Flux<Emission> join(PartitionFlux<String, String> records) {
            TopicPartition tp = records.topicPartition();
            boolean isOrder = tp.topic().equals(ordersTopic);
            if (!isOrder && !tp.topic().equals(paymentsTopic)) { // not ours: pass over it
                return records.doOnNext(ConsumerRecord::acknowledge).thenMany(Flux.<Emission>empty());
            }
            PartitionJoin pair = open(tp);
            return records
                    .doFinally(s -> retire(pair)) // revoked or lost (or cancelled): drop the pair's state
                    .concatMapIterable(r -> pair.accept(r, isOrder))
                    .map(result -> new Emission(pair, result));
        }

        private synchronized PartitionJoin open(TopicPartition tp) {
            PartitionJoin pair = states.get(tp.partition());
            if (pair == null || !pair.open(tp)) { // none yet, or one of an earlier assignment
                pair = new PartitionJoin(tp.partition(), ordersTopic, window);
                pair.open(tp);
                states.put(tp.partition(), pair);
            }
            return pair;
        }

        private synchronized void retire(PartitionJoin pair) {
            pair.retire();
            states.remove(pair.partition(), pair);
        }

        /** Acknowledges the held payments of every pair whose orders are committed. */
        Mono<Void> releaseCommitted(KafkaFluxConsumer<String, String> consumer) {
            List<PartitionJoin> live = List.copyOf(states.values());
            if (live.isEmpty()) {
                return Mono.empty();
            }
            Set<TopicPartition> ordersPartitions = live.stream().map(PartitionJoin::ordersPartition)
                    .collect(Collectors.toSet());
            return consumer.committed(ordersPartitions)
                    .doOnNext(committed -> {
                        for (PartitionJoin pair : live) {
                            OffsetAndMetadata c = committed.get(pair.ordersPartition());
                            if (c != null) {
                                pair.releaseCommitted(c.offset());
                            }
                        }
                    })
                    .onErrorResume(e -> Mono.empty()) // rebalancing, coordinator moving: next time
                    .then();
        }
    }

    /** Counts of results by kind, thread-safe. */
    static final class Counts {
        private final Map<JoinResult.Kind, AtomicLong> byKind = new EnumMap<>(JoinResult.Kind.class);

        Counts() {
            for (JoinResult.Kind k : JoinResult.Kind.values()) {
                byKind.put(k, new AtomicLong());
            }
        }

        void add(JoinResult r) {
            byKind.get(r.kind()).incrementAndGet();
        }

        long get(JoinResult.Kind kind) {
            return byKind.get(kind).get();
        }

        long total() {
            return byKind.values().stream().mapToLong(AtomicLong::get).sum();
        }

        @Override
        public String toString() {
            return String.format("%,d joined, %,d unpaid, %,d invalid", get(JoinResult.Kind.JOINED),
                    get(JoinResult.Kind.UNPAID), get(JoinResult.Kind.INVALID));
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = ExampleArgs.parse(args, List.of("--bootstrap-servers", "--orders-topic",
                "--payments-topic", "--group", "--window-seconds", "--command-config"), OrderPaymentJoin::usage);
        Duration window = Duration.ofSeconds(ExampleArgs.intOption(options, "--window-seconds",
                (int) DEFAULT_WINDOW.toSeconds(), OrderPaymentJoin::usage));
        String bootstrapServers = options.get("--bootstrap-servers");
        if (bootstrapServers == null) {
            runWithEmbeddedBroker(window);
            return;
        }
        String orders = options.getOrDefault("--orders-topic", ORDERS);
        String payments = options.getOrDefault("--payments-topic", PAYMENTS);
        Map<String, Object> client = ExampleArgs.client(options, bootstrapServers, OrderPaymentJoin::usage);
        int partitions = checkCoPartitioned(client, orders, payments);
        System.out.printf("Joining %s and %s (%d partitions each) at %s, window %d s (Ctrl-C stops)%n", orders,
                payments, partitions, bootstrapServers, window.toSeconds());
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(options(client,
                options.getOrDefault("--group", "kflux-order-payment-join"), orders, payments));
        Counts counts = new Counts();
        Disposable running = pipeline(consumer, orders, payments, window, r -> Mono.fromRunnable(() -> {
            counts.add(r);
            if (r.kind() != JoinResult.Kind.JOINED) {
                System.out.println("  " + r);
            }
        })).subscribe(r -> { }, e -> System.err.println("join failed: " + e));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.close().block(Duration.ofSeconds(30)); // final commit, LeaveGroup
            running.dispose();
            System.out.println("Stopped: " + counts);
            stopped.countDown();
        }));
        while (!stopped.await(5, TimeUnit.SECONDS)) {
            System.out.println("results so far: " + counts);
        }
    }

    private static void runWithEmbeddedBroker(Duration window) throws InterruptedException {
        System.out.println("Starting a Kafka broker (a forked JVM; it logs to a temporary data folder,"
                + " deleted when the broker stops)...");
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.startCluster(1)) {
            kafka.createTopic(ORDERS, SAMPLE_PARTITIONS, 1);
            kafka.createTopic(PAYMENTS, SAMPLE_PARTITIONS, 1);
            checkCoPartitioned(kafka.bootstrapServers(), ORDERS, PAYMENTS);
            long start = System.currentTimeMillis() - Duration.ofMinutes(15).toMillis();
            List<ProducerRecord<String, String>> data = SampleOrders.generate(ORDERS, PAYMENTS, SAMPLE_ORDERS,
                    start, 42);
            long lastTimestamp = data.get(data.size() - 1).timestamp();
            long invalid = data.stream().filter(r -> r.topic().equals(ORDERS)
                    && PartitionJoin.invalidReason(r.key(), r.value()) != null).count();
            System.out.printf("Broker up at %s; topics %s and %s have %d partitions each; window %d s%n",
                    kafka.bootstrapServers(), ORDERS, PAYMENTS, SAMPLE_PARTITIONS, window.toSeconds());

            KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                    options(kafka.bootstrapServers(), "order-payment-join", ORDERS, PAYMENTS));
            Counts counts = new Counts();
            Disposable running = pipeline(consumer, window, r -> Mono.fromRunnable(() -> counts.add(r)))
                    .subscribe(r -> { }, e -> System.err.println("join failed: " + e));
            long t0 = System.nanoTime();
            int perRound = (data.size() + SAMPLE_ROUNDS - 1) / SAMPLE_ROUNDS;
            for (int round = 0; round < SAMPLE_ROUNDS; round++) {
                List<ProducerRecord<String, String>> part = data.subList(round * perRound,
                        Math.min(data.size(), (round + 1) * perRound));
                SampleData.produce(kafka.bootstrapServers(), part);
                System.out.printf("[%4.1f s] wrote %,d orders and payments (round %d of %d); results so far: %s%n",
                        (System.nanoTime() - t0) / 1e9, part.size(), round + 1, SAMPLE_ROUNDS, counts);
                Thread.sleep(1000);
            }
            SampleData.produce(kafka.bootstrapServers(), SampleOrders.endOfData(ORDERS, PAYMENTS, SAMPLE_PARTITIONS,
                    lastTimestamp, window));
            System.out.printf("[%4.1f s] wrote heartbeats past the last window; waiting for the last results%n",
                    (System.nanoTime() - t0) / 1e9);
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (counts.total() < SAMPLE_ORDERS && System.nanoTime() < deadline) {
                Thread.sleep(500);
                System.out.printf("[%4.1f s] results so far: %s%n", (System.nanoTime() - t0) / 1e9, counts);
            }
            consumer.close().block(Duration.ofSeconds(30));
            running.dispose();
            System.out.printf("Done: %,d orders -> %s (the data has %,d invalid orders)%n", SAMPLE_ORDERS, counts,
                    invalid);
            System.out.println("Stopping the broker.");
        }
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println("usage: OrderPaymentJoin [--window-seconds s]                 (embedded broker, sample data)");
        System.err.println("       OrderPaymentJoin --bootstrap-servers host:port [--orders-topic t] [--payments-topic t]"
                           + " [--group g] [--window-seconds s]");
        System.err.println("                        [--command-config client.properties]");
        System.exit(2);
    }
}
