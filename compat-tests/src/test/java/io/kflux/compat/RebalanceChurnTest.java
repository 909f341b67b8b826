package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.GroupKit.BackgroundProducer;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;

/**
 * Fast successive rebalances under a high produce rate: kflux members join and leave every few hundred
 * milliseconds, so partitions move (and often come back to the same member in the next generation) while
 * fetches, commits and revocations overlap. Every produced record must be emitted by some member.
 */
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.session.timeout.ms=10000",
        "group.consumer.min.session.timeout.ms=10000"}, isolated = true) // timing-sensitive group test; not yet run sharing a cluster
class RebalanceChurnTest {
    private static final int PARTITIONS = 6;
    private static final int ROUNDS = Integer.getInteger("kflux.churn.rounds", 24);
    private static final int RATE = Integer.getInteger("kflux.churn.rate", 5_000);

    /** A member that acknowledges each record as it sees it and remembers what it saw, per partition. */
    private static final class Member {
        final String name;
        final KafkaFluxConsumer<String, String> consumer;
        final Set<String> values = ConcurrentHashMap.newKeySet();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        Disposable subscription;

        Member(String name, EmbeddedKafkaCluster kafka, String group, String topic, String assignor) {
            this.name = name;
            Map<String, Object> props = GroupKit.forVariant(assignor, GroupKit.props(kafka.bootstrapServers(), group,
                    assignor, "client.id", name, "auto.commit.interval.ms", 100));
            consumer = KafkaFluxConsumer.create(ConsumerOptions.create(props, Deserializers.string(),
                    Deserializers.string()).subscription(List.of(topic)));
        }

        Member start(boolean slow) {
            reactor.core.publisher.Flux<io.kflux.ConsumerRecord<String, String>> records = consumer.receive()
                    .doOnNext(r -> values.add(r.value()));
            if (slow) {
                // records wait in the pipeline, emitted but not yet acknowledged, and fetches are held back
                records = records.concatMap(r -> reactor.core.publisher.Mono.delay(Duration.ofMillis(1)).thenReturn(r), 1);
            }
            subscription = records.subscribe(r -> r.acknowledge(), error::set);
            return this;
        }

        void stop() {
            subscription.dispose();
            GroupKit.await(name + " stopped", Duration.ofSeconds(30), () -> consumer.assignment().isEmpty());
        }
    }

    /** The partition the default partitioner picks for {@code key}. */
    private static int partitionOf(String key) {
        byte[] bytes = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(bytes))
                % PARTITIONS;
    }

    @ParameterizedTest
    @ValueSource(strings = {"range", "cooperative-sticky", GroupKit.CONSUMER_PROTOCOL})
    void noRecordIsLostAcrossFastSuccessiveRebalances(String assignor, EmbeddedKafkaCluster kafka) {
        for (int i = 0; i < Integer.getInteger("kflux.churn.repeat", 1); i++) {
            churn(assignor, kafka, assignor + "-" + i);
        }
    }

    private static void churn(String assignor, EmbeddedKafkaCluster kafka, String id) {
        String topic = "churn-" + id;
        String group = "churn-group-" + id;
        kafka.createTopic(topic, PARTITIONS, 1);
        Random random = new Random(Long.getLong("kflux.churn.seed", System.nanoTime()));
        List<Member> all = new ArrayList<>();
        List<Member> active = new ArrayList<>();
        try (BackgroundProducer producer = new BackgroundProducer(kafka.bootstrapServers(), topic, RATE)) {
            for (int round = 0; round < ROUNDS; round++) {
                if (active.size() <= 1 || (active.size() < 4 && random.nextBoolean())) {
                    Member m = new Member("m" + all.size(), kafka, group, topic, assignor)
                            .start(all.size() % 3 == 2);
                    all.add(m);
                    active.add(m);
                } else {
                    // never the first member: someone stays in the group throughout
                    Member m = active.remove(1 + random.nextInt(active.size() - 1));
                    m.stop();
                }
                GroupKit.sleep(200 + random.nextInt(400));
            }
            List<String> produced = producer.stop();
            long deadline = System.nanoTime() + Duration.ofSeconds(45).toNanos();
            Set<String> missing = new HashSet<>(produced);
            while (!missing.isEmpty() && System.nanoTime() < deadline) {
                all.forEach(m -> missing.removeAll(m.values));
                GroupKit.sleep(200);
            }
            all.forEach(m -> assertThat(m.error.get()).as(m.name + " error").isNull());
            Map<Integer, List<Integer>> missingByPartition = new TreeMap<>();
            missing.stream().map(v -> Integer.parseInt(v.substring(2))).sorted().forEach(n -> missingByPartition
                    .computeIfAbsent(partitionOf("k-" + n), p -> new ArrayList<>()).add(n));
            Map<Integer, String> summary = new TreeMap<>();
            missingByPartition.forEach((p, ns) -> summary.put(p, ns.size() + " from v-" + ns.get(0) + " to v-"
                    + ns.get(ns.size() - 1)));
            Map<String, Set<TopicPartition>> assignments = new TreeMap<>();
            active.forEach(m -> assignments.put(m.name, m.consumer.assignment()));
            assertThat(missing).as("[%s] records no member emitted (%d of %d; per partition: %s); assignments at "
                    + "the end: %s", id, missing.size(), produced.size(), summary, assignments).isEmpty();
            System.out.printf("[%s] %d records, %d members over the run%n", id, produced.size(), all.size());
        } finally {
            active.forEach(Member::stop);
        }
    }
}
