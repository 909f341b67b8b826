package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.bench.ReactorKafkaClasspath;
import io.kflux.compat.reactorapp.ReceiverApp;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The same small receiver application ({@link ReceiverApp}) run on reactor-kafka 1.3.25 (in a JVM forked on
 * the benchmarks module's reactor-kafka classpath, with its kafka-clients 3.9.1) and on kflux-reactor-kafka-compat (in a JVM
 * forked on this module's test classpath): both consume the same records and leave the same committed offsets,
 * read with the official Admin client.
 */
@KafkaTest(nodes = 1)
class ReactorKafkaSideBySideTest {

    private static final Path COMPAT_SOURCE = Path.of("src/test/java/io/kflux/compat/reactorapp/ReceiverApp.java");
    private static final Path REACTOR_KAFKA_SOURCE =
            Path.of("../benchmarks/src/main/java/io/kflux/bench/runner/ReceiverApp.java");

    @Test
    void theApplicationSourcesDifferOnlyInPackageAndReceiverImports() throws IOException {
        assertThat(normalized(COMPAT_SOURCE, "io.kflux.reactor.kafka.receiver."))
                .isEqualTo(normalized(REACTOR_KAFKA_SOURCE, "reactor.kafka.receiver."));
    }

    private static List<String> normalized(Path source, String receiverPackage) throws IOException {
        return Files.readAllLines(source).stream()
                .filter(l -> !l.startsWith("package "))
                .map(l -> l.replace("import " + receiverPackage, "import RECEIVER."))
                .toList();
    }

    @Test
    void reactorKafkaAndTheCompatModuleConsumeAndCommitTheSame(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("side-by-side", 1, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            ProducerRecord<String, String> r = new ProducerRecord<>("side-by-side", 0, "key-" + i, "value-" + i);
            r.headers().add("h", ("v-" + i).getBytes(StandardCharsets.UTF_8));
            records.add(r);
        }
        SampleData.produce(kafka.bootstrapServers(), records);

        List<String> reactorKafka = run(reactorKafkaClasspath(), "io.kflux.bench.runner.ReceiverApp",
                                        kafka.bootstrapServers(), "rk");
        List<String> kflux = run(System.getProperty("java.class.path"), ReceiverApp.class.getName(),
                                 kafka.bootstrapServers(), "kflux");

        assertThat(kflux).containsExactlyElementsOf(reactorKafka);
        // what reactor-kafka's documentation leads one to expect, so the comparison is not between two wrong runs
        assertThat(phase(kflux, "ack")).containsExactlyElementsOf(expected(20, 200));
        assertThat(phase(kflux, "amo")).containsExactlyElementsOf(expected(0, 300));
        assertThat(phase(kflux, "auto")).containsExactlyElementsOf(expected(0, 300));
        // headers compare equal to kafka-clients' RecordHeaders of what was sent, and print as kafka-clients' do
        assertThat(phase(kflux, "batch")).containsExactlyElementsOf(IntStream.range(0, 300).mapToObj(
                i -> "0@" + i + " value-" + i + " headers-equal=true last=RecordHeader(key = h, value = "
                     + java.util.Arrays.toString(("v-" + i).getBytes(StandardCharsets.UTF_8)) + ")").toList());
        assertThat(phase(kflux, "consumer")).containsExactly("assignment=[side-by-side-0] paused=[side-by-side-0]"
                                                             + " resumed=[] committed=10 end=300");
        // a manual assignment's revoke listeners run when the flux ends, after its records
        assertThat(phase(kflux, "manual")).containsExactlyElementsOf(java.util.stream.Stream.concat(
                expected(0, 10).stream(), java.util.stream.Stream.of("revoked side-by-side-0")).toList());

        // receive: everything acknowledged (up to 199); auto-ack: every batch. At most once with a commit-ahead of 7
        // the last commit went ahead past 300; both take it back when the flux ends, kflux to the offset after the
        // last record delivered (300), reactor-kafka 1.3.25 one further (301): had the topic a record 300, it would
        // be lost with reactor-kafka and delivered next time with kflux (docs/migrating-from-reactor-kafka.md).
        assertThat(committed(kafka, "rk")).isEqualTo(Map.of("ack", 200L, "amo", 301L, "auto", 300L, "batch", 300L,
                                                            "consumer", 10L));
        assertThat(committed(kafka, "kflux")).isEqualTo(Map.of("ack", 200L, "amo", 300L, "auto", 300L, "batch", 300L,
                                                               "consumer", 10L));
    }

    private static List<String> expected(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "0@" + i + " value-" + i).toList();
    }

    private static List<String> phase(List<String> lines, String phase) {
        return lines.stream().filter(l -> l.startsWith(phase + " ")).map(l -> l.substring(phase.length() + 1)).toList();
    }

    private static Map<String, Long> committed(EmbeddedKafkaCluster kafka, String prefix) throws Exception {
        Map<String, Long> out = new TreeMap<>();
        for (String phase : List.of("ack", "amo", "auto", "batch", "consumer")) {
            Map<TopicPartition, OffsetAndMetadata> offsets = kafka.admin().listConsumerGroupOffsets(prefix + "-" + phase)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            OffsetAndMetadata c = offsets.get(new TopicPartition("side-by-side", 0));
            out.put(phase, c == null ? -1L : c.offset());
        }
        return out;
    }

    private static String reactorKafkaClasspath() throws IOException {
        String dir = System.getProperty("kflux.bench.reactorKafkaDir");
        assertThat(dir).as("system property kflux.bench.reactorKafkaDir (set by compat-tests' pom)").isNotNull();
        return ReactorKafkaClasspath.of(dir);
    }

    /** Runs the application in its own JVM; returns its RECORD lines without the prefix, in order. */
    private static List<String> run(String classpath, String mainClass, String bootstrapServers, String prefix)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Xmx256m", "-cp", classpath, mainClass, bootstrapServers,
                                             "side-by-side", prefix)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<String> out = new ArrayList<>();
        boolean done = false;
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.startsWith("RECORD ")) {
                    out.add(line.substring("RECORD ".length()));
                } else if (line.equals("DONE")) {
                    done = true;
                }
            }
        }
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError(mainClass + " did not end");
        }
        assertThat(process.exitValue()).as(prefix + " exit code").isZero();
        assertThat(done).as(prefix + " finished").isTrue();
        return out;
    }
}
