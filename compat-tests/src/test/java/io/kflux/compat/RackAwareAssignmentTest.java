package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.GroupKit.KfluxMember;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * KIP-881 under the classic protocol: each member's subscription carries its {@code client.rack}, the leader reads
 * the racks of every partition's replicas from metadata ({@code broker.rack}) and the range assignor gives each
 * member, within its share, partitions with a replica in its rack; so do the sticky assignors, where locality comes
 * before keeping what a member held (members join one by one here). Three nodes in three racks, a topic with one
 * replica per partition (two partitions per node, placed explicitly), three kflux members, one per rack: every member owns exactly the
 * partitions stored in its rack. (Rack-blind range order would give member i partitions 2i and 2i+1, which the
 * broker's replica placement does not put on one node.)
 */
@KafkaTest(nodes = 3, brokerProperties = {"broker.rack=rack-${nodeId}"})
class RackAwareAssignmentTest {
    private static final int PARTITIONS = 6;

    @ParameterizedTest
    @ValueSource(strings = {"range", "sticky", "cooperative-sticky"})
    void theAssignorGivesEachMemberThePartitionsInItsRack(String assignor, EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "rack-aware-" + assignor;
        String group = topic + "-group";
        // Placed explicitly: a broker still registering when the topic is made would get fewer partitions than the
        // others, and then no assignment can give every member two partitions of its own rack.
        Map<Integer, List<Integer>> placement = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            placement.put(p, List.of(p % 3 + 1));
        }
        kafka.admin().createTopics(List.of(new NewTopic(topic, placement))).all().get(30, TimeUnit.SECONDS);
        TopicDescription described = describedOnceKnown(kafka, topic);
        Map<TopicPartition, String> rackOf = new HashMap<>();
        described.partitions().forEach(p -> rackOf.put(new TopicPartition(topic, p.partition()),
                p.replicas().get(0).rack()));
        assertThat(rackOf.values()).as("replica racks").containsOnly("rack-1", "rack-2", "rack-3");

        List<KfluxMember> members = new ArrayList<>();
        try {
            for (int node = 1; node <= 3; node++) {
                String rack = "rack-" + node;
                members.add(new KfluxMember(rack, GroupKit.consumer(GroupKit.props(kafka.bootstrapServers(), group,
                        assignor, "client.id", "member-" + rack, "client.rack", rack), topic, null)).start());
            }
            GroupKit.awaitBalanced(topic, topic, PARTITIONS, members, Duration.ofSeconds(2));
            for (KfluxMember m : members) {
                assertThat(m.assignment()).as(m.name() + "'s partitions").hasSize(2)
                        .allSatisfy(tp -> assertThat(rackOf.get(tp)).as("rack of " + tp).isEqualTo(m.name()));
                assertThat(m.error()).isNull();
            }
        } finally {
            members.forEach(KfluxMember::stop);
        }
    }

    /**
     * Right after CreateTopics the Admin may ask a broker whose metadata has not caught up with the new topic yet,
     * which answers UNKNOWN_TOPIC_OR_PARTITION (seen once in a full run): ask again for up to 30 s.
     */
    private static TopicDescription describedOnceKnown(EmbeddedKafkaCluster kafka, String topic) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return kafka.admin().describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS)
                        .get(topic);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)
                        || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
