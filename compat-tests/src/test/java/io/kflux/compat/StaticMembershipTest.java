package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.FencedInstanceIdException;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.GroupKit.KfluxMember;
import io.kflux.test.KafkaTest;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Static membership (KIP-345, {@code group.instance.id}) through {@link KafkaFluxConsumer}: a member restarted within
 * {@code session.timeout.ms} gets its partitions back without a rebalance, and of two live consumers with the same
 * instance id the older one is fenced.
 */
@Tag("smoke")
@KafkaTest(nodes = 1)
class StaticMembershipTest {

    /** Listener calls of one consumer instance, with the generation the context reports. */
    static final class Calls implements RebalanceListener {
        final List<String> events = new CopyOnWriteArrayList<>();
        volatile int generation = -1;

        @Override
        public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
            generation = ctx.generationId();
            events.add("assigned " + partitions + " gen " + ctx.generationId());
            return Mono.empty();
        }

        @Override
        public Mono<Void> onPartitionsRevoked(Collection<TopicPartition> partitions, RebalanceContext ctx) {
            events.add("revoked " + partitions + " gen " + ctx.generationId());
            return Mono.empty();
        }

        @Override
        public Mono<Void> onPartitionsLost(Collection<TopicPartition> partitions, RebalanceContext ctx) {
            events.add("lost " + partitions + " gen " + ctx.generationId());
            return Mono.empty();
        }
    }

    private static KfluxMember staticMember(EmbeddedKafkaCluster kafka, String group, String instance, String topic,
                                            Calls calls) {
        // a long session: the restarts below happen well within it
        return new KfluxMember(instance, GroupKit.consumer(GroupKit.props(kafka.bootstrapServers(), group, "range",
                "group.instance.id", instance, "session.timeout.ms", 30_000), topic, calls)).start();
    }

    private static ConsumerGroupDescription describe(EmbeddedKafkaCluster kafka, String group) {
        try {
            return kafka.admin().describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS).get(group);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Instance id -> assigned partitions, as the coordinator describes the group. */
    private static Map<String, Set<TopicPartition>> brokerView(EmbeddedKafkaCluster kafka, String group) {
        Map<String, Set<TopicPartition>> out = new HashMap<>();
        for (MemberDescription m : describe(kafka, group).members()) {
            Set<TopicPartition> tps = new HashSet<>();
            m.assignment().topicPartitions().forEach(tp -> tps.add(new TopicPartition(tp.topic(), tp.partition())));
            out.put(m.groupInstanceId().orElse("dynamic:" + m.consumerId()), tps);
        }
        return out;
    }

    @Test
    void aRestartedStaticMemberGetsItsPartitionsBackWithoutARebalance(EmbeddedKafkaCluster kafka) {
        String topic = "static-restart";
        String group = "static-restart-group";
        kafka.createTopic(topic, 4, 1);
        SampleData.produce(kafka.bootstrapServers(), topic, 400);
        Calls callsA = new Calls();
        Calls callsB = new Calls();
        KfluxMember a = staticMember(kafka, group, "static-a", topic, callsA);
        GroupKit.await("a owns everything", Duration.ofSeconds(30), () -> a.assignment().size() == 4);
        KfluxMember b = staticMember(kafka, group, "static-b", topic, callsB);
        List<KfluxMember> all = new ArrayList<>(List.of(a, b));
        try {
            GroupKit.awaitSteady("a and b share the partitions", Duration.ofSeconds(30), Duration.ofMillis(700),
                    () -> GroupKit.balanced(List.of(a.assignment(), b.assignment()), topic, 4));
            int generation = callsA.generation;
            assertThat(callsB.generation).isEqualTo(generation);
            Set<TopicPartition> ofA = a.assignment();
            Set<TopicPartition> ofB = b.assignment();
            assertThat(brokerView(kafka, group)).isEqualTo(Map.of("static-a", ofA, "static-b", ofB));
            int eventsOfB = callsB.events.size();

            // a (the leader: it joined first) restarts: cancel sends no LeaveGroup for a static member
            a.stop();
            assertThat(brokerView(kafka, group)).as("the coordinator keeps a's place").containsKey("static-a");
            Calls callsA2 = new Calls();
            KfluxMember a2 = staticMember(kafka, group, "static-a", topic, callsA2);
            all.add(a2);
            // assignment() shows the partitions before the assigned listener has run: wait for both
            GroupKit.await("a2 has a's partitions", Duration.ofSeconds(20),
                    () -> a2.assignment().equals(ofA) && callsA2.generation != -1);
            assertThat(callsA2.generation).as("generation after a's restart").isEqualTo(generation);

            // b (a follower) restarts
            b.stop();
            Calls callsB2 = new Calls();
            KfluxMember b2 = staticMember(kafka, group, "static-b", topic, callsB2);
            all.add(b2);
            GroupKit.await("b2 has b's partitions", Duration.ofSeconds(20),
                    () -> b2.assignment().equals(ofB) && callsB2.generation != -1);
            assertThat(callsB2.generation).as("generation after b's restart").isEqualTo(generation);

            GroupKit.sleep(1500); // a few heartbeats: nobody starts a rebalance
            assertThat(callsA2.events).as("a2's listener calls").hasSize(1);
            assertThat(callsB2.events).as("b2's listener calls").hasSize(1);
            assertThat(callsB.events.subList(eventsOfB, callsB.events.size()))
                    .as("b saw no rebalance while a restarted").allMatch(e -> e.startsWith("revoked")); // its own stop
            assertThat(a2.assignment()).isEqualTo(ofA);
            assertThat(b2.assignment()).isEqualTo(ofB);
            ConsumerGroupDescription d = describe(kafka, group);
            assertThat(d.groupState()).isEqualTo(GroupState.STABLE);
            assertThat(brokerView(kafka, group)).isEqualTo(Map.of("static-a", ofA, "static-b", ofB));

            List<String> produced = IntStream.range(0, 400).mapToObj(i -> "value-" + i).toList();
            GroupKit.Tally tally = GroupKit.awaitAllConsumed(produced, all, Duration.ofSeconds(20));
            System.out.println("[static] " + tally + " " + tally.duplicates());
            assertThat(tally.missing()).isEmpty();
            all.forEach(m -> assertThat(m.error()).as(m.name()).isNull());
            a2.stop();
            b2.stop();
        } finally {
            all.forEach(KfluxMember::stop);
        }
    }

    @Test
    void ofTwoLiveConsumersWithTheSameInstanceIdTheOlderIsFenced(EmbeddedKafkaCluster kafka) {
        String topic = "static-fenced";
        String group = "static-fenced-group";
        kafka.createTopic(topic, 2, 1);
        Calls firstCalls = new Calls();
        KfluxMember first = staticMember(kafka, group, "twin", topic, firstCalls);
        KfluxMember second = null;
        try {
            GroupKit.await("first owns everything", Duration.ofSeconds(30), () -> first.assignment().size() == 2);
            second = staticMember(kafka, group, "twin", topic, new Calls());
            KfluxMember s = second;
            GroupKit.await("second owns everything", Duration.ofSeconds(30), () -> s.assignment().size() == 2);
            GroupKit.await("first is fenced", Duration.ofSeconds(20), () -> first.error() != null);
            assertThat(first.error()).isInstanceOf(FencedInstanceIdException.class);
            assertThat(((FencedInstanceIdException) first.error()).groupInstanceId()).isEqualTo("twin");
            GroupKit.await("first released everything", Duration.ofSeconds(10), () -> first.assignment().isEmpty());
            // fenced: ownership was already gone, so the listener hears "lost", not "revoked"
            assertThat(firstCalls.events).hasSize(2);
            assertThat(firstCalls.events.get(1)).startsWith("lost ").contains("static-fenced-0", "static-fenced-1");
            GroupKit.sleep(1500);
            assertThat(second.error()).isNull();
            assertThat(second.assignment()).hasSize(2);
            assertThat(brokerView(kafka, group)).containsOnlyKeys("twin");
        } finally {
            first.stop();
            if (second != null) {
                second.stop();
            }
        }
    }
}
