package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.Ordering;
import io.kflux.ProcessedRecord;
import io.kflux.ProcessingOptions;
import io.kflux.TopicPartition;
import io.kflux.commit.ProgressMetadata;
import io.kflux.compat.support.CrashableMember;
import io.kflux.compat.support.CrashableProcessor;
import io.kflux.compat.support.GroupKit;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * process() keeps the records it completed above the committed offset in the commit's metadata (issue #27): the next
 * owner of a partition, after a rebalance or after a consumer was killed (a forked JVM, SIGKILL), does not process
 * them again. Read back with the official Admin client. Under both group protocols.
 */
// short consumer-protocol heartbeats so that KIP-848 rebalances settle as fast as classic ones here
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.session.timeout.ms=10000",
        "group.consumer.min.session.timeout.ms=10000"}, isolated = true) // timing-sensitive group test; not yet run sharing a cluster
class ProcessingProgressTest {
    private static final Duration WAIT = Duration.ofSeconds(120);

    private static int produce(EmbeddedKafkaCluster kafka, String topic, int count) {
        List<ProducerRecord<String, String>> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add(new ProducerRecord<>(topic, "customer-" + i, "order-" + i));
        }
        SampleData.produce(kafka.bootstrapServers(), records);
        return count;
    }

    /** A member that auto-commits what process() completed every 200 ms. */
    private static KafkaFluxConsumer<String, String> member(String protocol, EmbeddedKafkaCluster kafka, String topic,
                                                            String group) {
        Map<String, Object> props = GroupKit.protocolProps(protocol, kafka.bootstrapServers(), group, "range",
                "enable.auto.commit", true, "auto.commit.interval.ms", 200);
        if (protocol.equals("consumer")) {
            GroupKit.forVariant(GroupKit.CONSUMER_PROTOCOL, props); // skips below Kafka 4.0
        }
        return KafkaFluxConsumer.create(ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                .subscription(List.of(topic)));
    }

    private static Map<TopicPartition, OffsetAndMetadata> committed(EmbeddedKafkaCluster kafka, String group)
            throws Exception {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        kafka.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
                .forEach((tp, om) -> out.put(new TopicPartition(tp.topic(), tp.partition()), om));
        return out;
    }

    private static Map<TopicPartition, Long> ends(EmbeddedKafkaCluster kafka, String topic, int partitions)
            throws Exception {
        Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> ask = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            ask.put(new org.apache.kafka.common.TopicPartition(topic, p),
                    org.apache.kafka.clients.admin.OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        kafka.admin().listOffsets(ask).all().get().forEach((tp, info) ->
                out.put(new TopicPartition(tp.topic(), tp.partition()), info.offset()));
        return out;
    }

    private static String id(ConsumerRecord<String, String> r) {
        return r.topicPartition() + "@" + r.offset();
    }

    /** The records a commit covers: below its offset, and the completed ones its metadata names. */
    private static boolean covered(Map<TopicPartition, OffsetAndMetadata> commits, TopicPartition tp, long offset) {
        OffsetAndMetadata om = commits.get(tp);
        if (om == null) {
            return false;
        }
        if (offset < om.offset()) {
            return true;
        }
        long[] runs = ProgressMetadata.decode(om.metadata());
        for (int i = 0; i < runs.length; i += 2) {
            if (offset - om.offset() >= runs[i] && offset - om.offset() < runs[i + 1]) {
                return true;
            }
        }
        return false;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
        assertThat(condition.getAsBoolean()).as(what).isTrue();
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static BooleanSupplier quietly(Check check) {
        return () -> {
            try {
                return check.holds();
            } catch (Exception e) {
                return false;
            }
        };
    }

    /**
     * The first member completes every record but offset 10 of each partition (its handler hangs there), out of
     * order. A second member joins: the partition that moves is committed at 10 with the rest in the metadata, and
     * the new owner runs offset 10 only. No record is run again once it completed; nothing is lost.
     */
    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void aRebalanceHandsOverRecordsCompletedOutOfOrderAndTheNewOwnerDoesNotRunThemAgain(String protocol,
                                                                                       EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "progress-rebalance-" + protocol;
        String group = "g-" + topic;
        kafka.createTopic(topic, 2, 1);
        int count = produce(kafka, topic, 400);
        Map<TopicPartition, Long> ends = ends(kafka, topic, 2);
        assertThat(ends.values()).allMatch(end -> end > 20);

        Set<String> completed = ConcurrentHashMap.newKeySet();
        Set<String> startedAgainAfterCompleting = ConcurrentHashMap.newKeySet();
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        Set<String> bySecond = ConcurrentHashMap.newKeySet();
        Sinks.Empty<Void> release = Sinks.empty();
        Function<Boolean, Function<ConsumerRecord<String, String>, Publisher<?>>> handler = second -> r -> {
            String id = id(r);
            if (completed.contains(id)) {
                startedAgainAfterCompleting.add(id);
            }
            if (second) {
                bySecond.add(id);
            }
            int call = calls.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            // offset 10 hangs at its first call until released; the others take up to 5 ms, so finish out of order
            return r.offset() == 10 && call == 1 ? release.asMono()
                    : Mono.delay(Duration.ofMillis(ThreadLocalRandom.current().nextLong(6)));
        };
        ProcessingOptions<String, String> options = ProcessingOptions.<String, String>ordering(Ordering.UNORDERED)
                .maxInFlight(32).revokeTimeout(Duration.ofSeconds(2));
        java.util.function.Consumer<ProcessedRecord<String, String>> done = p -> completed.add(id(p.record()));

        KafkaFluxConsumer<String, String> first = member(protocol, kafka, topic, group);
        Disposable a = first.process(options, handler.apply(false)).subscribe(done);
        await("the first member completed all but the two hanging records", () -> completed.size() == count - 2);

        KafkaFluxConsumer<String, String> second = member(protocol, kafka, topic, group);
        Disposable b = second.process(options, handler.apply(true)).subscribe(done);
        await("the second member was given a partition and completed its offset 10",
                () -> bySecond.stream().anyMatch(id -> id.endsWith("@10") && completed.contains(id)));
        release.tryEmitEmpty(); // the first member's own hanging record, if it kept its partition throughout
        await("every record completed", () -> completed.size() == count);
        await("everything committed", quietly(() -> {
            Map<TopicPartition, OffsetAndMetadata> c = committed(kafka, group);
            return ends.entrySet().stream().allMatch(e -> c.containsKey(e.getKey())
                    && c.get(e.getKey()).offset() == e.getValue());
        }));

        System.out.println("process() handover, group.protocol=" + protocol + ": the joining member ran "
                + bySecond + "; records run again after completing: " + startedAgainAfterCompleting.size());
        assertThat(startedAgainAfterCompleting).as("records run again after they completed").isEmpty();
        assertThat(bySecond).as("the new owner runs the record that had not completed, nothing else")
                .allMatch(id -> id.endsWith("@10")).isNotEmpty();
        b.dispose();
        a.dispose();
        second.close().block(WAIT);
        first.close().block(WAIT);
    }

    /**
     * A member in its own JVM is killed (SIGKILL: no close, no LeaveGroup, no final commit) while offset 5 of each
     * partition hangs and later records complete out of order. The next member runs again only records the commits
     * that reached the broker (offset and metadata, read with the Admin client) did not cover; nothing is lost.
     */
    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void afterAKillTheNextMemberRerunsAtMostWhatTheCommitsDidNotCover(String protocol, EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "progress-kill-" + protocol;
        String group = "g-" + topic;
        if (protocol.equals("consumer")) {
            GroupKit.forVariant(GroupKit.CONSUMER_PROTOCOL, new HashMap<>()); // skips below Kafka 4.0
        }
        kafka.createTopic(topic, 2, 1);
        int count = produce(kafka, topic, 6_000);
        Set<String> byFirst = ConcurrentHashMap.newKeySet();
        java.nio.file.Path work = java.nio.file.Files.createTempDirectory("progress-kill");
        Process member = CrashableMember.fork(work, CrashableProcessor.class, kafka.bootstrapServers(), topic, group,
                protocol);
        Thread reader = new Thread(() -> {
            try (java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(
                    member.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    String[] words = line.split(" ");
                    if (words[0].equals("PROCESSED")) {
                        byFirst.add(topic + "-" + words[1] + "@" + words[2]);
                    }
                }
            } catch (java.io.IOException e) {
                // the process died: what was read is what it printed
            }
        });
        reader.start();
        try {
            await("the forked member completed some records and committed progress above offset 5", quietly(() ->
                    byFirst.size() > 300 && committed(kafka, group).values().stream()
                            .anyMatch(om -> ProgressMetadata.decode(om.metadata()).length > 0)));
        } finally {
            member.destroyForcibly(); // SIGKILL
            member.waitFor(60, TimeUnit.SECONDS);
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }
        int completedAtKill = byFirst.size();
        await("the killed member's session expired", quietly(() -> kafka.admin()
                .describeConsumerGroups(List.of(group)).all().get().get(group).members().isEmpty()));
        Map<TopicPartition, OffsetAndMetadata> commits = committed(kafka, group);
        Set<String> uncovered = new HashSet<>(); // every record the commits on the broker do not cover
        ends(kafka, topic, 2).forEach((tp, end) -> {
            for (long o = 0; o < end; o++) {
                if (!covered(commits, tp, o)) {
                    uncovered.add(tp + "@" + o);
                }
            }
        });
        Set<String> notCommitted = new HashSet<>(byFirst);
        notCommitted.retainAll(uncovered);

        Set<String> bySecond = ConcurrentHashMap.newKeySet();
        Set<String> seenBySecond = ConcurrentHashMap.newKeySet();
        KafkaFluxConsumer<String, String> second = member(protocol, kafka, topic, group);
        Disposable b = second.process(ProcessingOptions.<String, String>ordering(Ordering.UNORDERED).maxInFlight(64),
                        r -> {
                            seenBySecond.add(id(r));
                            return Mono.empty();
                        })
                .subscribe(p -> bySecond.add(id(p.record())));
        await("nothing lost: the next member completed every record the commits did not cover",
                () -> bySecond.containsAll(uncovered));
        Set<String> rerun = new HashSet<>(seenBySecond);
        rerun.retainAll(byFirst);
        System.out.println("process() kill -9, group.protocol=" + protocol + ": " + completedAtKill
                + " completed before the kill (" + byFirst.stream()
                .filter(id -> Long.parseLong(id.substring(id.lastIndexOf('@') + 1)) > 5).count()
                + " of them above the hanging offset 5), " + notCommitted.size()
                + " of them not covered by the commits, " + rerun.size() + " run again by the next member");
        assertThat(seenBySecond).as("the next member runs no record the commits covered").isSubsetOf(uncovered);
        assertThat(rerun).as("records run again: only completed ones the commits did not cover")
                .isSubsetOf(notCommitted);
        assertThat(seenBySecond).as("the hanging records are run by the next member")
                .contains(topic + "-0@5", topic + "-1@5");
        b.dispose();
        second.close().block(WAIT);
    }
}
