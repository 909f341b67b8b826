package io.kflux.examples;

import io.kflux.Deserializers;
import io.kflux.KafkaShareConsumer;
import io.kflux.ShareConsumerOptions;
import io.kflux.ShareRecord;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A work queue on a share group (KIP-932, brokers 4.2+): several workers, more than the topic has partitions, take
 * jobs from one topic; each job is handed to one worker at a time, processed with simulated non-blocking work and
 * accepted. A job the worker cannot process (a "poison" job) is released so that the group tries it again, up to
 * {@code --poison-limit} deliveries ({@link ShareRecord#deliveryCount()}), and then rejected: the broker archives it
 * and never delivers it again. Every step is printed with the worker that did it.
 *
 * <ul>
 *   <li>No arguments: starts a real Kafka 4.4 broker (a forked JVM, on the classpath that
 *       {@code brokers/kafka-4.4} resolves; the pom passes its file as {@value #BROKER_CLASSPATH_PROPERTY}), creates
 *       topic {@code jobs} with {@value #SAMPLE_PARTITIONS} partitions, starts the workers, writes
 *       {@value #SAMPLE_JOBS} jobs (one of them poison), waits until every job was accepted or rejected, prints a
 *       summary per worker and stops the broker.</li>
 *   <li>{@code --bootstrap-servers host:port [--topic jobs] [--group g] [--workers n] [--jobs n] [--poison-limit n]
 *       [--command-config FILE]}: the same against an existing cluster (4.2+): writes the jobs to the topic, which
 *       must exist, and stops when they are done.</li>
 * </ul>
 */
public final class WorkQueue {

    /** The system property naming the file that holds the Kafka 4.4 broker's classpath (set by the pom). */
    static final String BROKER_CLASSPATH_PROPERTY = "kflux.examples.shareBrokerClasspath";
    static final int SAMPLE_PARTITIONS = 2;
    static final int SAMPLE_JOBS = 40;
    static final String POISON = "poison";
    private static final int DEFAULT_WORKERS = 4;
    private static final int DEFAULT_POISON_LIMIT = 3;
    /**
     * The embedded broker's {@code group.share.delivery.count.limit} (Kafka's default): it archives a record after
     * that many deliveries, so a higher poison limit would never be reached and the example would wait for a
     * rejection that cannot come.
     */
    private static final int BROKER_DELIVERY_COUNT_LIMIT = 5;
    /** How many jobs one worker processes at the same time (flatMap's concurrency). */
    private static final int CONCURRENCY_PER_WORKER = 2;
    /**
     * How many acknowledgements one worker waits for the broker to confirm at a time (the second flatMap's
     * concurrency): apart from the work's, so that no job's work waits for another's confirmation.
     */
    private static final int CONFIRMATIONS_PER_WORKER = 256;
    private static final Duration WORK = Duration.ofMillis(50);
    private static final Duration DONE_WITHIN = Duration.ofMinutes(2);

    private WorkQueue() {
    }

    /** What a worker did with one delivery of a job. */
    public enum Action { ACCEPTED, RELEASED, REJECTED }

    /**
     * One delivery of a job and what became of it, once the broker confirmed the acknowledgement.
     *
     * @param worker        the worker's name
     * @param job           the record's value
     * @param partition     the record's partition
     * @param offset        the record's offset
     * @param deliveryCount the delivery, 1 the first time
     * @param action        what the worker did
     */
    public record Outcome(String worker, String job, int partition, long offset, short deliveryCount, Action action) {
        /** Accepted or rejected: the job is finished and the group never hands it out again. */
        public boolean isFinal() {
            return action != Action.RELEASED;
        }

        @Override
        public String toString() {
            return String.format("%-9s %-8s %-10s p%d@%d, delivery %d", worker, action.name().toLowerCase(), job,
                    partition, offset, deliveryCount);
        }
    }

    public static void main(String[] args) {
        Map<String, String> options = ExampleArgs.parse(args, List.of("--bootstrap-servers", "--topic", "--group",
                "--workers", "--jobs", "--poison-limit", "--command-config"), WorkQueue::usage);
        int workers = ExampleArgs.intOption(options, "--workers", DEFAULT_WORKERS, WorkQueue::usage);
        int jobs = ExampleArgs.intOption(options, "--jobs", SAMPLE_JOBS, WorkQueue::usage);
        int poisonLimit = ExampleArgs.intOption(options, "--poison-limit", DEFAULT_POISON_LIMIT, WorkQueue::usage);
        if (workers < 1 || jobs < 1 || poisonLimit < 1) {
            usage("--workers, --jobs and --poison-limit need a number of at least 1");
        }
        String topic = options.getOrDefault("--topic", "jobs");
        String group = options.getOrDefault("--group", "work-queue");
        String bootstrapServers = options.get("--bootstrap-servers");
        if (bootstrapServers == null && poisonLimit > BROKER_DELIVERY_COUNT_LIMIT) {
            usage("--poison-limit " + poisonLimit + " is never reached: the embedded broker archives a record after "
                    + BROKER_DELIVERY_COUNT_LIMIT + " deliveries (group.share.delivery.count.limit), so use at most "
                    + BROKER_DELIVERY_COUNT_LIMIT);
        }
        if (bootstrapServers != null) {
            run(ExampleArgs.client(options, bootstrapServers, WorkQueue::usage), topic, group, workers, jobs,
                    poisonLimit);
            return;
        }
        System.out.println("Starting a Kafka 4.4 broker (a forked JVM)...");
        try (EmbeddedKafkaCluster kafka = startBroker()) {
            kafka.createTopic(topic, SAMPLE_PARTITIONS, 1);
            System.out.printf("Broker up at %s; topic %s has %d partitions, %d workers share it%n",
                    kafka.bootstrapServers(), topic, SAMPLE_PARTITIONS, workers);
            run(Map.of("bootstrap.servers", kafka.bootstrapServers()), topic, group, workers, jobs, poisonLimit);
            System.out.println("Stopping the broker.");
        }
    }

    private static void run(Map<String, Object> client, String topic, String group, int workers, int jobs,
                            int poisonLimit) {
        startFromEarliest(client, group);
        List<KafkaShareConsumer<String, String>> consumers = new ArrayList<>();
        List<Flux<Outcome>> outcomes = new ArrayList<>();
        for (int i = 1; i <= workers; i++) {
            KafkaShareConsumer<String, String> consumer = KafkaShareConsumer.create(options(client, group, topic));
            consumers.add(consumer);
            outcomes.add(worker("worker-" + i, consumer, poisonLimit, WORK));
        }
        Map<String, Map<Action, Integer>> byWorker = new TreeMap<>();
        try {
            // subscribed first: the workers join while the jobs are written
            Mono<List<Outcome>> finished = Flux.merge(outcomes)
                    .doOnNext(o -> {
                        System.out.println(o);
                        byWorker.computeIfAbsent(o.worker(), w -> new TreeMap<>()).merge(o.action(), 1, Integer::sum);
                    })
                    .filter(Outcome::isFinal)
                    .take(jobs)
                    .collectList()
                    .cache();
            finished.subscribe();
            System.out.printf("Writing %d jobs to %s (the job in the middle is poison)%n", jobs, topic);
            // keyed by the job's name, so the default partitioner spreads them over the partitions
            write(client, jobs(jobs).stream().map(job -> new ProducerRecord<>(topic, job, job)).toList());
            List<Outcome> done = finished.block(DONE_WITHIN);
            System.out.printf("Done: %d jobs finished, %d accepted, %d rejected%n", done.size(),
                    done.stream().filter(o -> o.action() == Action.ACCEPTED).count(),
                    done.stream().filter(o -> o.action() == Action.REJECTED).count());
            byWorker.forEach((w, counts) -> System.out.printf("  %s: %s%n", w, counts));
        } finally {
            Flux.fromIterable(consumers).flatMap(KafkaShareConsumer::close).blockLast();
        }
    }

    /**
     * The share consumer of one worker: explicit acknowledgement, so that a job counts as done only once the worker
     * accepted it, and a failed job can be released for another try.
     *
     * @param client connection properties ({@code bootstrap.servers}, security)
     * @param group  the share group
     * @param topic  the jobs' topic
     * @return options with the subscription
     */
    public static ShareConsumerOptions<String, String> options(Map<String, Object> client, String group,
                                                               String topic) {
        Map<String, Object> props = new HashMap<>(client);
        props.put("group.id", group);
        props.put(ShareConsumerOptions.ACKNOWLEDGEMENT_MODE, "explicit");
        return ShareConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                .subscription(List.of(topic));
    }

    /**
     * The heart of the example: one worker's stream. Each job takes {@code work} of non-blocking time (a timer, no
     * thread waits), then is accepted; a job that fails is released while its delivery count is below
     * {@code poisonLimit}, so the group hands it out again (to this worker or another), and rejected on its
     * {@code poisonLimit}-th delivery. An outcome is emitted once the broker confirmed its acknowledgement.
     *
     * <p>Two {@code flatMap}s, so that the work's concurrency is kept apart from the confirmations': the first holds
     * a slot per job for its work only, the second waits for the broker's confirmations. With one {@code flatMap}
     * ({@code process(job).then(job.accept())}) each slot would also wait out a confirmation round trip, and the
     * worker would process fewer jobs at a time than its concurrency says (see the guide, "Throughput: how many
     * confirmations to wait for"). No {@code limitRate} here (the guide's throughput form has one): each worker takes
     * only the jobs its slots can start, so the few jobs of the example spread over the workers.
     *
     * @param name        the worker's name, for the outcomes
     * @param consumer    the worker's share consumer (explicit acknowledgement)
     * @param poisonLimit the delivery on which a failing job is rejected (at most the broker's
     *                    {@code group.share.delivery.count.limit}, 5 by default, which archives it after that many
     *                    deliveries: a higher limit is never reached, and the job ends without a rejection)
     * @param work        the simulated work per job
     * @return the outcomes; subscribing joins the group, cancelling leaves it
     */
    public static Flux<Outcome> worker(String name, KafkaShareConsumer<String, String> consumer, int poisonLimit,
                                       Duration work) {
        return consumer.receive()
                .flatMap(job -> process(job, work).thenReturn(Action.ACCEPTED)
                        .onErrorResume(JobFailedException.class, failed -> Mono.just(
                                job.deliveryCount() < poisonLimit ? Action.RELEASED : Action.REJECTED))
                        .map(action -> new Processed(job, action)), CONCURRENCY_PER_WORKER)
                .flatMap(p -> acknowledge(p).thenReturn(new Outcome(name, p.job().value(), p.job().partition(),
                        p.job().offset(), p.job().deliveryCount(), p.action())), CONFIRMATIONS_PER_WORKER);
    }

    /** A job whose work ended, and what to tell the broker about it. */
    private record Processed(ShareRecord<String, String> job, Action action) {
    }

    /** The acknowledgement of a processed job; completes when the broker confirmed it. */
    private static Mono<Void> acknowledge(Processed p) {
        return switch (p.action()) {
            case ACCEPTED -> p.job().accept();
            case RELEASED -> p.job().release();
            case REJECTED -> p.job().reject();
        };
    }

    /** The simulated work: a timer; a poison job fails after it. */
    private static Mono<Void> process(ShareRecord<String, String> job, Duration work) {
        return Mono.delay(work).then(job.value().startsWith(POISON)
                ? Mono.error(new JobFailedException(job.value()))
                : Mono.empty());
    }

    /** A job that cannot be processed. */
    static final class JobFailedException extends RuntimeException {
        JobFailedException(String job) {
            super("cannot process " + job);
        }
    }

    /**
     * A new share group starts at the end of the log (the broker's {@code share.auto.offset.reset} is
     * {@code latest}); this group starts at the beginning, so no job written before a worker joined is missed.
     */
    static void startFromEarliest(Map<String, Object> client, String group) {
        try (Admin admin = Admin.create(client)) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                            AlterConfigOp.OpType.SET)))).all().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while configuring group " + group, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot configure share group " + group + ": " + e.getCause(), e);
        }
    }

    /** The jobs' values: {@code job-0} to {@code job-(count - 1)}, the one in the middle poison. */
    static List<String> jobs(int count) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            values.add(i == count / 2 ? POISON + "-" + i : "job-" + i);
        }
        return values;
    }

    /** Writes records with the official producer (keys and values as strings). */
    static void write(Map<String, Object> client, List<ProducerRecord<String, String>> records) {
        Map<String, Object> props = new HashMap<>(client);
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            records.forEach(producer::send);
            producer.flush();
        }
    }

    /** The embedded Kafka 4.4 broker: share groups need 4.2+, and the examples' own classpath has 4.1. */
    static EmbeddedKafkaCluster startBroker() {
        String file = System.getProperty(BROKER_CLASSPATH_PROPERTY);
        if (file == null || !Files.isRegularFile(Path.of(file))) {
            throw new IllegalStateException("share groups need a Kafka 4.2+ broker: run this example through Maven"
                    + " (mvn -q -pl sdk-examples -am compile exec:exec -Dexample.main=io.kflux.examples.WorkQueue),"
                    + " which resolves Kafka 4.4 in brokers/kafka-4.4 and passes its classpath file as -D"
                    + BROKER_CLASSPATH_PROPERTY + " (now: " + file + ")");
        }
        try {
            return EmbeddedKafkaCluster.builder()
                    .classpath(Files.readString(Path.of(file), StandardCharsets.UTF_8).trim())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println("usage: WorkQueue [--workers n] [--jobs n] [--poison-limit n]   (embedded Kafka 4.4 broker)");
        System.err.println("       WorkQueue --bootstrap-servers host:port [--topic jobs] [--group g] [--workers n]"
                + " [--jobs n] [--poison-limit n] [--command-config client.properties]");
        System.exit(2);
    }
}
