package io.kflux.examples;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import reactor.core.publisher.Flux;

/**
 * Reads a whole topic with kflux and prints how fast it went.
 *
 * <ul>
 *   <li>No arguments: starts a real Kafka broker (a forked JVM), writes 100,000 sample records to an
 *       8-partition topic with the official producer, reads them back with kflux, and stops the broker.</li>
 *   <li>{@code --bootstrap-servers host:port --topic t [--command-config FILE]}: reads every partition of an
 *       existing topic from the beginning until no record arrived for {@value #IDLE_SECONDS} seconds. FILE holds
 *       client properties as for the Kafka CLI tools (TLS, SASL: {@code security.protocol}, {@code ssl.*},
 *       {@code sasl.*}).</li>
 * </ul>
 */
public final class QuickStart {

    private static final int SAMPLE_RECORDS = 100_000;
    private static final int SAMPLE_PARTITIONS = 8;
    private static final int IDLE_SECONDS = 5;

    private QuickStart() {
    }

    public static void main(String[] args) {
        Map<String, String> options = ExampleArgs.parse(args, List.of("--bootstrap-servers", "--topic", "--command-config"),
                QuickStart::usage);
        String bootstrapServers = options.get("--bootstrap-servers");
        if (bootstrapServers == null) {
            runAgainstEmbeddedBroker();
        } else {
            String topic = options.get("--topic");
            if (topic == null) {
                usage("--topic is required with --bootstrap-servers");
            }
            Map<String, Object> client = ExampleArgs.client(options, bootstrapServers, QuickStart::usage);
            System.out.printf("Reading topic %s at %s from the beginning%n", topic, bootstrapServers);
            consume(client, partitionsOf(client, topic), Long.MAX_VALUE);
        }
    }

    private static void runAgainstEmbeddedBroker() {
        System.out.println("Starting a Kafka broker (a forked JVM; it logs to a temporary data folder,"
                + " deleted when the broker stops)...");
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.startCluster(1)) {
            String topic = "quickstart";
            kafka.createTopic(topic, SAMPLE_PARTITIONS, 1);
            System.out.printf("Broker up at %s; writing %,d records to topic %s with the official producer...%n",
                    kafka.bootstrapServers(), SAMPLE_RECORDS, topic);
            SampleData.produce(kafka.bootstrapServers(), topic, SAMPLE_RECORDS);
            List<TopicPartition> partitions = IntStream.range(0, SAMPLE_PARTITIONS)
                    .mapToObj(p -> new TopicPartition(topic, p)).toList();
            consume(Map.of("bootstrap.servers", kafka.bootstrapServers()), partitions, SAMPLE_RECORDS);
            System.out.println("Stopping the broker.");
        }
    }

    /** The heart of the example: read the given partitions from the start with kflux. */
    private static void consume(Map<String, Object> client, List<TopicPartition> partitions, long expected) {
        Map<String, Object> props = new HashMap<>(client);
        props.put("auto.offset.reset", "earliest");
        ConsumerOptions<String, String> options = ConsumerOptions.create(props, Deserializers.string(),
                        Deserializers.string())
                .assignment(partitions);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(options);

        System.out.printf("Consuming %d partitions with kflux...%n", partitions.size());
        Progress progress = new Progress();
        Flux<ConsumerRecord<String, String>> records = consumer.receive();
        records = expected == Long.MAX_VALUE
                ? records.timeout(Duration.ofSeconds(IDLE_SECONDS), Flux.empty()) // stop once the topic is idle
                : records.take(expected);
        records.doOnNext(progress::add).blockLast();
        consumer.close().block();
        progress.printSummary();
    }

    /** Every partition of a topic, asked of the cluster with the official Admin client. */
    private static List<TopicPartition> partitionsOf(Map<String, Object> client, String topic) {
        try (Admin admin = Admin.create(client)) {
            int count = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            return IntStream.range(0, count).mapToObj(p -> new TopicPartition(topic, p)).toList();
        } catch (Exception e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            System.err.printf("Cannot describe topic %s at %s: %s%n", topic, client.get("bootstrap.servers"),
                    cause.getMessage());
            System.exit(1);
            return List.of();
        }
    }

    /** Counts records and bytes, and prints a line every 20,000 records. */
    private static final class Progress {
        private final long start = System.nanoTime();
        private long last = start;
        private long records;
        private long bytes;

        void add(ConsumerRecord<?, ?> record) {
            records++;
            bytes += Math.max(0, record.serializedKeySize()) + Math.max(0, record.serializedValueSize());
            last = System.nanoTime();
            if (records % 20_000 == 0) {
                System.out.printf("  %,9d records  %7.2f MB  %6.2f s%n", records, megabytes(), seconds());
            }
        }

        void printSummary() {
            System.out.printf("Done: %,d records, %.2f MB in %.2f s: %,.0f records/s, %.1f MB/s%n",
                    records, megabytes(), seconds(), records / seconds(), megabytes() / seconds());
        }

        private double megabytes() {
            return bytes / 1_000_000.0;
        }

        /** From subscription to the last record, so waiting for an idle topic does not count. */
        private double seconds() {
            return Math.max(1, last - start) / 1e9;
        }
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println("usage: QuickStart                                    (embedded broker, sample data)");
        System.err.println("       QuickStart --bootstrap-servers host:port --topic t [--command-config client.properties]");
        System.exit(2);
    }
}
