package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.PartitionFlux;
import io.kflux.TopicPartition;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.GroupKit.KfluxMember;
import io.kflux.compat.support.GroupKit.Member;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * {@code receivePartitioned()}: one inner flux per assigned partition, which completes when the partition is revoked
 * or lost (here: moved to a member that joins), after the last record emitted for it.
 */
@KafkaTest(nodes = 1)
class PartitionedGroupTest {

    /** One inner flux as the subscriber saw it. */
    static final class Inner {
        final TopicPartition tp;
        final List<ConsumerRecord<String, String>> records = new CopyOnWriteArrayList<>();
        volatile boolean completed;

        Inner(TopicPartition tp) {
            this.tp = tp;
        }

        @Override
        public String toString() {
            return tp + (completed ? " completed" : " open") + " after " + records.size() + " records";
        }
    }

    /** A kflux member consuming with receivePartitioned(), each partition in its own inner subscriber. */
    static final class PartitionedMember implements Member {
        final KafkaFluxConsumer<String, String> consumer;
        final List<Inner> inners = new CopyOnWriteArrayList<>();
        final ConcurrentLinkedQueue<String> values = new ConcurrentLinkedQueue<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final Disposable subscription;

        PartitionedMember(KafkaFluxConsumer<String, String> consumer) {
            this.consumer = consumer;
            Flux<PartitionFlux<String, String>> partitions = consumer.receivePartitioned();
            subscription = partitions.flatMap(pf -> {
                Inner inner = new Inner(pf.topicPartition());
                inners.add(inner);
                return pf.doOnNext(r -> {
                    r.acknowledge();
                    inner.records.add(r);
                    values.add(r.value());
                }).doOnComplete(() -> inner.completed = true);
            }, 64).subscribe(v -> { }, error::set);
        }

        List<Inner> open() {
            return inners.stream().filter(i -> !i.completed).toList();
        }

        Set<TopicPartition> openPartitions() {
            return open().stream().map(i -> i.tp).collect(Collectors.toSet());
        }

        @Override
        public String name() {
            return "partitioned";
        }

        @Override
        public Set<TopicPartition> assignment() {
            return consumer.assignment();
        }

        @Override
        public List<String> values() {
            return new ArrayList<>(values);
        }

        @Override
        public Throwable error() {
            return error.get();
        }

        @Override
        public void stop() {
            subscription.dispose();
            GroupKit.await("stopped", Duration.ofSeconds(30), () -> consumer.assignment().isEmpty());
        }
    }

    private static void assertInOrderWithoutGaps(Inner inner) {
        List<Long> offsets = inner.records.stream().map(ConsumerRecord::offset).toList();
        for (int i = 1; i < offsets.size(); i++) {
            assertThat(offsets.get(i)).as(inner + ": offsets " + offsets).isEqualTo(offsets.get(i - 1) + 1);
        }
    }

    private void secondMemberJoins(EmbeddedKafkaCluster kafka, String assignor) {
        String topic = "part-" + assignor;
        String group = "part-group-" + assignor;
        kafka.createTopic(topic, 4, 1);
        SampleData.produce(kafka.bootstrapServers(), topic, 400);
        PartitionedMember a = new PartitionedMember(GroupKit.consumer(GroupKit.props(kafka.bootstrapServers(), group,
                assignor), topic, null));
        KfluxMember b = null;
        try {
            GroupKit.await("a has an open inner flux per partition and all records", Duration.ofSeconds(30),
                    () -> a.openPartitions().size() == 4 && a.values().size() >= 400);
            assertThat(a.inners).hasSize(4);
            b = new KfluxMember("b", GroupKit.consumer(GroupKit.props(kafka.bootstrapServers(), group, assignor),
                    topic, null)).start();
            KfluxMember bb = b;
            GroupKit.awaitSteady("a and b share the partitions", Duration.ofSeconds(30), Duration.ofMillis(700),
                    () -> GroupKit.balanced(List.of(a.assignment(), bb.assignment()), topic, 4)
                            && a.openPartitions().equals(a.assignment()) && a.open().size() == 2);
            Set<TopicPartition> kept = a.assignment();
            Set<TopicPartition> moved = bb.assignment();
            System.out.printf("[%s] a keeps %s, b took %s; a's inner fluxes: %s%n", assignor, kept, moved, a.inners);
            for (Inner inner : a.inners) {
                if (moved.contains(inner.tp)) {
                    assertThat(inner.completed).as(inner + " of a moved partition").isTrue();
                }
            }
            if (assignor.equals("cooperative-sticky")) {
                // only what moves is revoked: the kept partitions' inner fluxes go on
                assertThat(a.inners).hasSize(4);
            } else {
                // eager: everything was revoked, the kept partitions got new inner fluxes
                assertThat(a.inners).hasSize(6);
                assertThat(a.inners.subList(0, 4)).allMatch(i -> i.completed);
            }

            List<ProducerRecord<String, String>> more = new ArrayList<>();
            for (int i = 400; i < 800; i++) {
                more.add(new ProducerRecord<>(topic, "key-" + i, "value-" + i));
            }
            SampleData.produce(kafka.bootstrapServers(), more);
            List<String> produced = IntStream.range(0, 800).mapToObj(i -> "value-" + i).toList();
            GroupKit.Tally tally = GroupKit.awaitAllConsumed(produced, List.of(a, bb), Duration.ofSeconds(30));
            System.out.printf("[%s] %s %s%n", assignor, tally, tally.duplicates());
            assertThat(tally.missing()).isEmpty();
            assertThat(tally.duplicates()).isEmpty();
            assertThat(a.error()).isNull();
            assertThat(bb.error()).isNull();
            for (Inner inner : a.inners) {
                assertInOrderWithoutGaps(inner);
                assertThat(inner.records).allMatch(r -> r.topicPartition().equals(inner.tp));
                if (!inner.completed) {
                    assertThat(kept).contains(inner.tp);
                }
            }
        } finally {
            a.stop();
            if (b != null) {
                b.stop();
            }
        }
    }

    @Test
    void cooperativeOnlyTheMovedPartitionsInnerFluxesComplete(EmbeddedKafkaCluster kafka) {
        secondMemberJoins(kafka, "cooperative-sticky");
    }

    @Test
    void eagerEveryInnerFluxCompletesAndKeptPartitionsGetNewOnes(EmbeddedKafkaCluster kafka) {
        secondMemberJoins(kafka, "range");
    }

    @Test
    void manualAssignmentGetsAnInnerFluxPerPartitionBeforeAnyRecord(EmbeddedKafkaCluster kafka) {
        String topic = "part-manual";
        kafka.createTopic(topic, 3, 1);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                Kflux.props(kafka.bootstrapServers()), Deserializers.string(), Deserializers.string())
                .assignment(Kflux.partitions(topic, 3)));
        PartitionedMember m = new PartitionedMember(consumer);
        try {
            GroupKit.await("three inner fluxes", Duration.ofSeconds(20), () -> m.inners.size() == 3);
            assertThat(m.openPartitions()).isEqualTo(new HashSet<>(Kflux.partitions(topic, 3)));
            List<ProducerRecord<String, String>> records = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                for (int i = 0; i < 10; i++) {
                    records.add(new ProducerRecord<>(topic, p, "k", p + "-" + i));
                }
            }
            SampleData.produce(kafka.bootstrapServers(), records);
            GroupKit.await("all records", Duration.ofSeconds(20), () -> m.values().size() == 30);
            for (Inner inner : m.inners) {
                assertThat(inner.records).extracting(ConsumerRecord::value)
                        .containsExactlyElementsOf(IntStream.range(0, 10).mapToObj(i -> inner.tp.partition() + "-" + i)
                                .toList());
            }
            assertThat(m.inners).hasSize(3);
        } finally {
            m.subscription.dispose();
        }
    }
}
