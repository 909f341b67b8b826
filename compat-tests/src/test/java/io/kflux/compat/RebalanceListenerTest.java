package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.GroupKit.KfluxMember;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The application's {@link RebalanceListener} in a real group: when it runs relative to the records emitted,
 * {@code RebalanceContext.seek} in {@code onPartitionsAssigned}, and listeners that fail.
 */
// short consumer-protocol heartbeats so that KIP-848 rebalances settle as fast as classic ones here
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500"}, isolated = true) // timing-sensitive group test; not yet run sharing a cluster
class RebalanceListenerTest {

    /** What one member saw, in the order it happened: records emitted and listener calls. */
    record Event(String kind, TopicPartition tp, long offset) {
    }

    /** Logs records and listener calls of one member; the revoke listener commits (auto commit is off). */
    static final class Recorder implements RebalanceListener {
        final List<Event> events = Collections.synchronizedList(new ArrayList<>());
        final Map<TopicPartition, Long> lastEmitted = new ConcurrentHashMap<>();
        /** Per revocation: the last offset emitted for each revoked partition when the listener ran. */
        final List<Map<TopicPartition, Long>> revokeSnapshots = new CopyOnWriteArrayList<>();
        final List<String> contextProblems = new CopyOnWriteArrayList<>();

        void emitted(ConsumerRecord<String, String> r) {
            lastEmitted.put(r.topicPartition(), r.offset());
            events.add(new Event("record", r.topicPartition(), r.offset()));
        }

        @Override
        public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
            partitions.forEach(tp -> events.add(new Event("assigned", tp, -1)));
            if (!ctx.assignment().containsAll(partitions)) {
                contextProblems.add("assigned " + partitions + " but ctx.assignment() is " + ctx.assignment());
            }
            if (ctx.generationId() < 0 || ctx.memberId().isEmpty()) {
                contextProblems.add("assigned: no generation/member id " + ctx.generationId() + "/" + ctx.memberId());
            }
            return Mono.empty();
        }

        @Override
        public Mono<Void> onPartitionsRevoked(Collection<TopicPartition> partitions, RebalanceContext ctx) {
            // deliberately eager (not inside the Mono): a listener body runs when the rebalance calls it
            Map<TopicPartition, Long> snapshot = new HashMap<>();
            partitions.forEach(tp -> {
                events.add(new Event("revoked", tp, -1));
                snapshot.put(tp, lastEmitted.getOrDefault(tp, -1L));
            });
            revokeSnapshots.add(snapshot);
            if (!ctx.assignment().containsAll(partitions)) {
                contextProblems.add("revoked " + partitions + " but ctx.assignment() is " + ctx.assignment()
                        + " (it must still include them)");
            }
            return ctx.commit();
        }
    }

    /** Every record of a partition was emitted while the partition was assigned (after assigned, before revoked). */
    private static void assertRecordsOnlyWhileOwned(String member, List<Event> events) {
        Set<TopicPartition> owned = new HashSet<>();
        List<Event> copy;
        synchronized (events) {
            copy = new ArrayList<>(events);
        }
        for (int i = 0; i < copy.size(); i++) {
            Event e = copy.get(i);
            switch (e.kind()) {
                case "assigned" -> owned.add(e.tp());
                case "revoked" -> owned.remove(e.tp());
                default -> assertThat(owned).as(member + ": record " + e + " (event #" + i + ") emitted while "
                        + e.tp() + " was not assigned; events around it: "
                        + copy.subList(Math.max(0, i - 5), Math.min(copy.size(), i + 3))).contains(e.tp());
            }
        }
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void revokeRunsAfterTheLastEmittedRecordAndAssignBeforeTheFirst(String protocol, EmbeddedKafkaCluster kafka) {
        String topic = "rl-order-" + protocol;
        kafka.createTopic(topic, 4, 1);
        SampleData.produce(kafka.bootstrapServers(), topic, 4000);
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        Map<String, Object> props = GroupKit.protocolProps(protocol, kafka.bootstrapServers(), "rl-order-group-"
                + protocol, "range", "enable.auto.commit", false);
        KafkaFluxConsumer<String, String> ca = GroupKit.consumer(props, topic, a);
        KafkaFluxConsumer<String, String> cb = GroupKit.consumer(props, topic, b);
        AtomicReference<Throwable> errors = new AtomicReference<>();
        // a is slow (about 1 ms per record), so the rebalance happens while it is emitting
        Disposable da = ca.receive().doOnNext(r -> {
            r.acknowledge();
            a.emitted(r);
        }).delayElements(Duration.ofMillis(1)).subscribe(r -> { }, errors::set);
        Disposable db = null;
        try {
            GroupKit.await("a has consumed some records", Duration.ofSeconds(30), () -> a.events.size() > 300);
            db = cb.receive().doOnNext(r -> {
                r.acknowledge();
                b.emitted(r);
            }).subscribe(r -> { }, errors::set);
            GroupKit.await("all 4000 records consumed", Duration.ofSeconds(60),
                    () -> records(a).size() + records(b).size() >= 4000 && ca.assignment().size() == 2);
        } finally {
            da.dispose();
            if (db != null) {
                db.dispose();
            }
        }
        GroupKit.await("both stopped", Duration.ofSeconds(30), () -> ca.assignment().isEmpty() && cb.assignment().isEmpty());
        assertThat(errors.get()).isNull();
        assertRecordsOnlyWhileOwned("a", a.events);
        assertRecordsOnlyWhileOwned("b", b.events);
        assertThat(a.contextProblems).isEmpty();
        assertThat(b.contextProblems).isEmpty();

        // no record twice, none missing: the revoke listener committed exactly what had been emitted
        Map<TopicPartition, List<Long>> byPartition = new HashMap<>();
        for (Event e : records(a)) {
            byPartition.computeIfAbsent(e.tp(), tp -> new ArrayList<>()).add(e.offset());
        }
        for (Event e : records(b)) {
            byPartition.computeIfAbsent(e.tp(), tp -> new ArrayList<>()).add(e.offset());
        }
        int total = 0;
        for (Map.Entry<TopicPartition, List<Long>> e : byPartition.entrySet()) {
            List<Long> offsets = e.getValue();
            assertThat(new HashSet<>(offsets)).as(e.getKey() + " duplicates").hasSize(offsets.size());
            total += offsets.size();
        }
        assertThat(total).isEqualTo(4000);

        // the partitions b took over start right after what a had emitted when its revoke listener ran
        Map<TopicPartition, Long> firstRevoke = a.revokeSnapshots.get(0);
        Map<TopicPartition, Long> bFirst = new HashMap<>();
        for (Event e : records(b)) {
            bFirst.putIfAbsent(e.tp(), e.offset());
        }
        assertThat(bFirst).isNotEmpty();
        bFirst.forEach((tp, first) -> assertThat(first).as("b's first offset of " + tp)
                .isEqualTo(firstRevoke.get(tp) + 1));
    }

    private static List<Event> records(Recorder r) {
        synchronized (r.events) {
            return r.events.stream().filter(e -> e.kind().equals("record")).toList();
        }
    }

    @Test
    void seekInOnPartitionsAssignedPositionsThePartitions(EmbeddedKafkaCluster kafka) {
        String topic = "rl-seek";
        kafka.createTopic(topic, 3, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            for (int i = 0; i < 30; i++) {
                records.add(new ProducerRecord<>(topic, p, "k", "p" + p + "-" + i));
            }
        }
        SampleData.produce(kafka.bootstrapServers(), records);
        TopicPartition p2 = new TopicPartition(topic, 2);
        RebalanceListener seeking = new RebalanceListener() {
            @Override
            public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                for (TopicPartition tp : partitions) {
                    if (tp.equals(p2)) {
                        ctx.seekToEnd(List.of(tp));
                    } else {
                        ctx.seek(tp, 10 + tp.partition());
                    }
                }
                return Mono.empty();
            }
        };
        KafkaFluxConsumer<String, String> consumer = GroupKit.consumer(GroupKit.props(kafka.bootstrapServers(),
                "rl-seek-group", "range"), topic, seeking);
        List<ConsumerRecord<String, String>> got = new CopyOnWriteArrayList<>();
        Disposable d = consumer.receive().subscribe(got::add);
        try {
            GroupKit.await("records of partitions 0 and 1", Duration.ofSeconds(30), () -> got.size() >= 20 + 19);
            // partition 2 was positioned at its end: only what is written now arrives
            SampleData.produce(kafka.bootstrapServers(), List.of(new ProducerRecord<>(topic, 2, "k", "late")));
            GroupKit.await("the late record", Duration.ofSeconds(30), () -> got.size() >= 20 + 19 + 1);
            GroupKit.sleep(500);
        } finally {
            d.dispose();
        }
        Map<TopicPartition, List<Long>> offsets = Kflux.offsetsByPartition(got);
        assertThat(offsets.get(new TopicPartition(topic, 0))).first().isEqualTo(10L);
        assertThat(offsets.get(new TopicPartition(topic, 0))).hasSize(20);
        assertThat(offsets.get(new TopicPartition(topic, 1))).first().isEqualTo(11L);
        assertThat(offsets.get(new TopicPartition(topic, 1))).hasSize(19);
        assertThat(offsets.get(p2)).containsExactly(30L);
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void aFailingListenerIsLoggedAndTheRebalanceGoesOn(String protocol, EmbeddedKafkaCluster kafka) {
        String topic = "rl-fail-" + protocol;
        kafka.createTopic(topic, 4, 1);
        SampleData.produce(kafka.bootstrapServers(), topic, 400);
        AtomicInteger calls = new AtomicInteger();
        // throws from the method itself on the first call of each kind, returns a failed Mono on the next ones
        RebalanceListener failing = new RebalanceListener() {
            @Override
            public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                if (calls.getAndIncrement() == 0) {
                    throw new IllegalStateException("assigned listener throws");
                }
                return Mono.error(new IllegalStateException("assigned listener fails"));
            }

            @Override
            public Mono<Void> onPartitionsRevoked(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                if (calls.getAndIncrement() < 3) {
                    throw new IllegalStateException("revoked listener throws");
                }
                return Mono.error(new IllegalStateException("revoked listener fails"));
            }
        };
        Map<String, Object> props = GroupKit.protocolProps(protocol, kafka.bootstrapServers(), "rl-fail-group-"
                + protocol, "range");
        KfluxMember a = new KfluxMember("a", GroupKit.consumer(props, topic, failing)).start();
        KfluxMember b = null;
        try {
            GroupKit.await("a consumed everything", Duration.ofSeconds(30), () -> a.values().size() >= 400);
            b = new KfluxMember("b", GroupKit.consumer(props, topic, failing)).start();
            KfluxMember bb = b;
            GroupKit.awaitSteady("a and b share the partitions", Duration.ofSeconds(30), Duration.ofMillis(700),
                    () -> GroupKit.balanced(List.of(a.assignment(), bb.assignment()), topic, 4));
            assertThat(calls.get()).isGreaterThanOrEqualTo(3);
            List<ProducerRecord<String, String>> extra = new ArrayList<>();
            for (int i = 400; i < 800; i++) {
                extra.add(new ProducerRecord<>(topic, "key-" + i, "value-" + i));
            }
            SampleData.produce(kafka.bootstrapServers(), extra);
            List<String> produced = new ArrayList<>();
            for (int i = 0; i < 800; i++) {
                produced.add("value-" + i);
            }
            GroupKit.Tally tally = GroupKit.awaitAllConsumed(produced, List.of(a, bb), Duration.ofSeconds(30));
            System.out.println("[failing listener] " + tally + " " + tally.duplicates());
            assertThat(a.error()).isNull();
            assertThat(bb.error()).isNull();
            assertThat(tally.missing()).isEmpty();
            // the revoked partitions stopped being fetched although the listener threw: nobody read them twice
            assertThat(tally.duplicates()).isEmpty();
        } finally {
            a.stop();
            if (b != null) {
                b.stop();
            }
        }
    }
}
