package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.compat.support.CrashableMember;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

/**
 * At-least-once across a crash: a member in its own JVM acknowledges every record it processes but
 * commits only every 100 records; it is killed (SIGKILL) mid-stream. The next member of the group
 * starts at the last commit, every produced record was processed by one of them, and the records
 * processed twice are exactly inside the window acknowledged but not yet committed.
 */
@KafkaTest(nodes = 1)
class CrashRecoveryTest {

    @Test
    void theNextMemberStartsAtTheLastCommitAndNothingIsLost(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "crash";
        kafka.createTopic(topic, 3, 1);
        List<RecordMetadata> produced = SampleData.produce(kafka.bootstrapServers(), topic, 3000);
        Map<TopicPartition, Long> ends = new HashMap<>();
        produced.forEach(m -> ends.merge(new TopicPartition(topic, m.partition()), m.offset() + 1, Math::max));

        Path work = Files.createTempDirectory("kflux-crash-");
        Process member = CrashableMember.start(work, kafka.bootstrapServers(), topic, "g-crash", 100, 1);
        Set<String> processedFirst = ConcurrentHashMap.newKeySet();
        AtomicInteger commits = new AtomicInteger();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(member.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (line.startsWith("PROCESSED ")) {
                        processedFirst.add(line.substring("PROCESSED ".length()));
                    } else if (line.equals("COMMITTED")) {
                        commits.incrementAndGet();
                    }
                }
            } catch (java.io.IOException e) {
                // the process was killed
            }
        });
        reader.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        // kill it mid-stream, between two commits
        while ((processedFirst.size() < 1250 || commits.get() < 3) && System.nanoTime() < deadline && member.isAlive()) {
            Thread.sleep(5);
        }
        member.destroyForcibly();
        assertThat(member.waitFor(30, TimeUnit.SECONDS)).isTrue();
        reader.join(10_000);
        assertThat(processedFirst.size()).as("records the crashed member processed (stderr in %s)", work)
                .isBetween(1250, 2999);

        Map<TopicPartition, Long> committed = kafka.admin().listConsumerGroupOffsets("g-crash")
                .partitionsToOffsetAndMetadata().get().entrySet().stream().collect(Collectors.toMap(
                        e -> new TopicPartition(e.getKey().topic(), e.getKey().partition()), e -> e.getValue().offset()));
        assertThat(committed).isNotEmpty();
        Map<TopicPartition, Long> highestProcessed = new HashMap<>();
        for (String p : processedFirst) {
            String[] parts = p.split(" ");
            highestProcessed.merge(new TopicPartition(topic, Integer.parseInt(parts[0])), Long.parseLong(parts[1]),
                    Math::max);
        }

        // the next member: the crashed one's session has to expire first (session.timeout.ms=6000)
        KafkaFluxConsumer<String, String> next = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "group.id", "g-crash", "enable.auto.commit", "false"),
                        Deserializers.string(), Deserializers.string())
                .subscription(List.of(topic)));
        long remaining = 0;
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            remaining += e.getValue() - committed.getOrDefault(e.getKey(), 0L);
        }
        RecordQueue<String, String> queue = RecordQueue.subscribe(next.receive(), Long.MAX_VALUE);
        List<ConsumerRecord<String, String>> second = queue.take((int) remaining, Duration.ofSeconds(90));
        second.addAll(queue.drainFor(Duration.ofSeconds(2)));
        assertThat(second).hasSize((int) remaining);
        assertThat(queue.error()).isNull();

        // it started every partition at the last commit
        Map<TopicPartition, List<Long>> byPartition = Kflux.offsetsByPartition(second);
        byPartition.forEach((tp, offsets) ->
                assertThat(offsets.get(0)).as("first offset of %s", tp).isEqualTo(committed.getOrDefault(tp, 0L)));

        // at-least-once: together they processed every record; duplicates only inside the uncommitted window
        Set<String> all = new HashSet<>(processedFirst);
        Set<String> duplicates = new HashSet<>();
        for (ConsumerRecord<String, String> r : second) {
            String key = r.partition() + " " + r.offset();
            if (!all.add(key)) {
                duplicates.add(key);
            }
        }
        Set<String> expectedAll = new HashSet<>();
        produced.forEach(m -> expectedAll.add(m.partition() + " " + m.offset()));
        assertThat(all).isEqualTo(expectedAll);
        for (String d : duplicates) {
            String[] parts = d.split(" ");
            TopicPartition tp = new TopicPartition(topic, Integer.parseInt(parts[0]));
            long offset = Long.parseLong(parts[1]);
            assertThat(offset).as("duplicate %s", d)
                    .isGreaterThanOrEqualTo(committed.getOrDefault(tp, 0L))
                    .isLessThanOrEqualTo(highestProcessed.get(tp));
        }
        // and every record of that window was processed again (the window is what the crash costs)
        long window = 0;
        for (Map.Entry<TopicPartition, Long> e : highestProcessed.entrySet()) {
            window += e.getValue() + 1 - committed.getOrDefault(e.getKey(), 0L);
        }
        assertThat(duplicates).hasSize((int) window);
        next.close().block(Duration.ofSeconds(30));
    }
}
