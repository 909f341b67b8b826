package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.GroupKit.BackgroundProducer;
import io.kflux.compat.support.GroupKit.KfluxMember;
import io.kflux.compat.support.GroupKit.Tally;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Groups of kflux members only, with each built-in assignor: while records are produced continuously, members join
 * one by one (1 to 5) and some leave (cancel = LeaveGroup); after each change the assignments become disjoint,
 * complete and balanced, and in the end every produced record was consumed by some member.
 */
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.session.timeout.ms=10000",
        "group.consumer.min.session.timeout.ms=10000"}, isolated = true) // timing-sensitive group test; not yet run sharing a cluster
class GroupAssignmentTest {
    private static final int PARTITIONS = 6;

    /**
     * In the smoke runs against older brokers: each way the broker runs a group, the classic protocol eager (range)
     * and cooperative (KIP-429, cooperative-sticky), and KIP-848's consumer protocol (4.0+).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"range", "cooperative-sticky", GroupKit.CONSUMER_PROTOCOL})
    @Tag("smoke")
    void membersJoinAndLeaveWhileConsumingWithoutLosingRecords(String assignor, EmbeddedKafkaCluster kafka) {
        joinAndLeave(assignor, kafka);
    }

    /**
     * The other client-side assignors: the broker sees the same eager classic rebalances as with range (only the
     * leader's assignment differs), so these run against the default broker only.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"roundrobin", "sticky"})
    void membersJoinAndLeaveWhileConsumingWithoutLosingRecordsWithTheOtherAssignors(String assignor,
                                                                                    EmbeddedKafkaCluster kafka) {
        joinAndLeave(assignor, kafka);
    }

    private static void joinAndLeave(String assignor, EmbeddedKafkaCluster kafka) {
        String topic = "ga-" + assignor;
        String group = "ga-group-" + assignor;
        kafka.createTopic(topic, PARTITIONS, 1);
        long t0 = System.nanoTime();
        List<KfluxMember> all = new ArrayList<>();
        List<KfluxMember> active = new ArrayList<>();
        try (BackgroundProducer producer = new BackgroundProducer(kafka.bootstrapServers(), topic, 1000)) {
            for (int i = 1; i <= 5; i++) {
                KfluxMember m = new KfluxMember("m" + i, GroupKit.consumer(
                        GroupKit.forVariant(assignor, GroupKit.props(kafka.bootstrapServers(), group, assignor,
                                "client.id", "m" + i)), topic, null));
                all.add(m);
                active.add(m.start());
                awaitBalanced(assignor, topic, active);
            }
            // leave: the last one to join and one from the middle
            for (String name : List.of("m5", "m2")) {
                KfluxMember m = active.stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
                m.stop();
                active.remove(m);
                awaitBalanced(assignor, topic, active);
            }
            List<String> produced = producer.stop();
            Tally tally = GroupKit.awaitAllConsumed(produced, all, Duration.ofSeconds(30));
            System.out.printf("[%s] %s in %d ms; duplicates: %s%n", assignor, tally,
                    (System.nanoTime() - t0) / 1_000_000, tally.duplicates());
            all.forEach(m -> assertThat(m.error()).as(m.name() + " error").isNull());
            assertThat(tally.missing()).as("records no member consumed").isEmpty();
            // acknowledged offsets are committed on revoke (auto commit): a record is read twice only if it was
            // emitted but not yet acknowledged at the revocation, which the synchronous acknowledge here rules out
            assertThat(tally.duplicates()).as("records consumed twice").isEmpty();
        } finally {
            active.forEach(KfluxMember::stop);
        }
    }

    private static void awaitBalanced(String assignor, String topic, List<KfluxMember> active) {
        long start = System.nanoTime();
        GroupKit.awaitSteady(active.size() + " members balanced: " + active, Duration.ofSeconds(30),
                Duration.ofMillis(700), () -> GroupKit.balanced(active.stream().map(KfluxMember::assignment).toList(),
                        topic, PARTITIONS));
        System.out.printf("[%s] %d members stable after %d ms: %s%n", assignor, active.size(),
                (System.nanoTime() - start) / 1_000_000, active);
    }
}
