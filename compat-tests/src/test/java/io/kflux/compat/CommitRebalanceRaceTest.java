package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.CommitFailedException;
import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import io.kflux.compat.support.GroupKit;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Commits racing rebalances: members join and leave while each commits every 10 ms and records are
 * produced all along. receive() never terminates, a partition is never emitted by two members at
 * once (each member's emissions of a partition lie inside its ownership, and ownerships do not
 * overlap), and every produced record is processed (acknowledged) by some member.
 */
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.session.timeout.ms=10000",
        "group.consumer.min.session.timeout.ms=10000"}, isolated = true) // timing-sensitive group test; not yet run sharing a cluster
class CommitRebalanceRaceTest {

    private static final int PARTITIONS = 6;

    /** One member: what it emitted and acknowledged, when it owned what, how its commits ended. */
    private static final class Member {
        final String name;
        final KafkaFluxConsumer<String, String> consumer;
        final Queue events = new Queue();
        final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        final Map<String, Integer> commitErrors = new ConcurrentHashMap<>();
        final AtomicReference<Throwable> receiveError = new AtomicReference<>();
        final AtomicBoolean completed = new AtomicBoolean();
        Disposable receiving;
        Disposable committing;

        Member(String name, EmbeddedKafkaCluster kafka, String topic, String strategy) {
            this.name = name;
            RebalanceListener listener = new RebalanceListener() {
                @Override
                public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                    partitions.forEach(tp -> events.add(new Event(Kind.ASSIGNED, tp, -1)));
                    return Mono.empty();
                }

                @Override
                public Mono<Void> onPartitionsRevoked(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                    partitions.forEach(tp -> events.add(new Event(Kind.REVOKED, tp, -1)));
                    return Mono.empty();
                }

                @Override
                public Mono<Void> onPartitionsLost(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                    partitions.forEach(tp -> events.add(new Event(Kind.LOST, tp, -1)));
                    return Mono.empty();
                }
            };
            consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                            GroupKit.forVariant(strategy, Kflux.props(kafka.bootstrapServers(),
                                    "group.id", "g-race-" + strategy, "enable.auto.commit", "false")),
                            Deserializers.string(), Deserializers.string())
                    .subscription(List.of(topic))
                    .rebalanceListener(listener));
        }

        void start() {
            receiving = consumer.receive()
                    .doOnNext(r -> events.add(new Event(Kind.EMITTED, r.topicPartition(), r.offset())))
                    // "processing" takes a little while, so records are often emitted but not yet acknowledged
                    .concatMap(r -> Mono.delay(Duration.ofMillis(1)).doOnNext(t -> {
                        r.acknowledge();
                        acknowledged.add(r.partition() + " " + r.offset());
                    }), 1)
                    .subscribe(v -> { }, receiveError::set, () -> completed.set(true));
            committing = Flux.interval(Duration.ofMillis(10))
                    .onBackpressureDrop()
                    .concatMap(t -> consumer.commit().onErrorResume(e -> {
                        commitErrors.merge(e.getClass().getSimpleName(), 1, Integer::sum);
                        return Mono.empty();
                    }), 1)
                    .subscribe();
        }

        void stop() {
            committing.dispose();
            consumer.close().block(Duration.ofSeconds(60));
        }
    }

    private enum Kind { ASSIGNED, REVOKED, LOST, EMITTED }

    private record Event(Kind kind, TopicPartition tp, long offset, long nanos) {
        Event(Kind kind, TopicPartition tp, long offset) {
            this(kind, tp, offset, System.nanoTime());
        }
    }

    private static final class Queue extends ConcurrentLinkedQueue<Event> {
        private static final long serialVersionUID = 1L;
    }

    @ParameterizedTest
    @ValueSource(strings = {"range", "cooperative-sticky", GroupKit.CONSUMER_PROTOCOL})
    void commitsRacingRebalancesNeverEndReceiveNorLoseOrShareRecords(String strategy, EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "race-" + strategy;
        kafka.createTopic(topic, PARTITIONS, 1);
        List<RecordMetadata> produced = new ArrayList<>(SampleData.produce(kafka.bootstrapServers(), topic, 3000));
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(() -> {
            int i = 3000;
            while (producing.get()) {
                try {
                    Thread.sleep(20); // about 1,000 records/s: the stream goes on during every rebalance
                } catch (InterruptedException e) {
                    return;
                }
                List<ProducerRecord<String, String>> batch = new ArrayList<>();
                for (int j = 0; j < 20; j++, i++) {
                    batch.add(new ProducerRecord<>(topic, "key-" + i, "value-" + i));
                }
                List<RecordMetadata> written = SampleData.produce(kafka.bootstrapServers(), batch);
                synchronized (produced) {
                    produced.addAll(written);
                }
            }
        });
        producer.start();

        List<Member> members = new ArrayList<>();
        try {
            Member a = new Member("a", kafka, topic, strategy);
            members.add(a);
            a.start();
            Thread.sleep(2500);
            Member b = new Member("b", kafka, topic, strategy);
            members.add(b);
            b.start();
            Thread.sleep(2500);
            Member c = new Member("c", kafka, topic, strategy);
            members.add(c);
            c.start();
            Thread.sleep(2500);
            b.stop();
            Thread.sleep(2500);
            Member d = new Member("d", kafka, topic, strategy);
            members.add(d);
            d.start();
            Thread.sleep(2500);
        } finally {
            producing.set(false);
            producer.join(30_000);
        }

        Set<String> expected = new HashSet<>();
        synchronized (produced) {
            produced.forEach(m -> expected.add(m.partition() + " " + m.offset()));
        }
        Set<String> processed = ConcurrentHashMap.newKeySet();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            processed.clear();
            members.forEach(m -> processed.addAll(m.acknowledged));
            if (processed.containsAll(expected)) {
                break;
            }
            Thread.sleep(100);
        }
        Map<String, Set<TopicPartition>> assignments = new HashMap<>();
        members.forEach(m -> assignments.put(m.name, m.consumer.assignment()));
        for (Member m : members) {
            assertThat(m.receiveError.get()).as("receive() of member %s", m.name).isNull();
            assertThat(m.completed.get()).as("receive() of member %s completed", m.name).isEqualTo(m.name.equals("b"));
        }
        for (Member m : members) {
            if (!m.name.equals("b")) {
                m.stop();
            }
        }
        Set<String> missing = new HashSet<>(expected);
        missing.removeAll(processed);
        Map<Integer, Integer> missingPerPartition = new HashMap<>();
        missing.forEach(k -> missingPerPartition.merge(Integer.parseInt(k.split(" ")[0]), 1, Integer::sum));
        assertThat(missingPerPartition).as("records produced but processed by no member, per partition; "
                + "assignments at the end: %s", assignments).isEmpty();

        // commit failures are CommitFailedException only (partitions that moved), never anything else
        Map<String, Integer> errors = new HashMap<>();
        members.forEach(m -> m.commitErrors.forEach((k, v) -> errors.merge(k, v, Integer::sum)));
        assertThat(errors.keySet()).isSubsetOf(Set.of(CommitFailedException.class.getSimpleName()));

        checkExclusiveOwnership(members);
        long processedTotal = members.stream().mapToLong(m -> m.acknowledged.size()).sum();
        System.out.printf("%s: %d records, %d processed in total (%d duplicates), commit errors %s%n", strategy,
                expected.size(), processedTotal, processedTotal - expected.size(), errors);
    }

    /**
     * Per partition, each member's ownership runs from its ASSIGNED to its REVOKED/LOST event; every EMITTED event
     * lies inside an ownership of its member, and ownerships of different members never overlap.
     */
    private static void checkExclusiveOwnership(List<Member> members) {
        Map<TopicPartition, List<long[]>> owned = new HashMap<>(); // [from, to, member index]
        for (int i = 0; i < members.size(); i++) {
            Member m = members.get(i);
            Map<TopicPartition, Long> since = new HashMap<>();
            List<Event> events = new ArrayList<>(m.events);
            events.sort((x, y) -> Long.compare(x.nanos(), y.nanos()));
            for (Event e : events) {
                switch (e.kind()) {
                    case ASSIGNED -> since.put(e.tp(), e.nanos());
                    case REVOKED, LOST -> {
                        Long from = since.remove(e.tp());
                        assertThat(from).as("%s: %s revoked while not assigned", m.name, e.tp()).isNotNull();
                        owned.computeIfAbsent(e.tp(), tp -> new ArrayList<>()).add(new long[] {from, e.nanos(), i});
                    }
                    case EMITTED -> assertThat(since).as("%s emitted %s-%d while not owning it", m.name, e.tp(),
                            e.offset()).containsKey(e.tp());
                }
            }
            assertThat(since).as("%s still owns partitions after close", m.name).isEmpty();
        }
        owned.forEach((tp, intervals) -> {
            intervals.sort((x, y) -> Long.compare(x[0], y[0]));
            for (int k = 1; k < intervals.size(); k++) {
                long[] previous = intervals.get(k - 1);
                long[] next = intervals.get(k);
                assertThat(next[0]).as("%s assigned to %s before %s gave it up", tp, members.get((int) next[2]).name,
                        members.get((int) previous[2]).name).isGreaterThan(previous[1]);
            }
        });
    }
}
