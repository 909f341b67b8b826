package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.GroupKit.BackgroundProducer;
import io.kflux.compat.support.GroupKit.KfluxMember;
import io.kflux.compat.support.GroupKit.Member;
import io.kflux.compat.support.GroupKit.OfficialMember;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import io.kflux.network.BrokerConnection;
import io.kflux.network.NetworkOptions;
import io.kflux.protocol.message.ConsumerGroupDescribeRequest;
import io.kflux.protocol.message.ConsumerGroupDescribeResponse;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * {@code group.protocol=consumer} (KIP-848) against a real broker: the broker assigns, each member reconciles on its
 * own heartbeat. The broker's heartbeat interval is shortened to 500 ms so that the tests converge quickly.
 */
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.session.timeout.ms=10000",
        "group.consumer.min.session.timeout.ms=10000"}, isolated = true) // timing-sensitive group test; not yet run sharing a cluster
class ConsumerGroupProtocolTest {
    private static final int PARTITIONS = 6;

    @Test
    void kfluxMembersJoinAndLeaveUnderProductionAndEveryRecordIsConsumed(EmbeddedKafkaCluster kafka) {
        run(kafka, "kip848-kflux", false);
    }

    @Test
    void kfluxAndOfficialConsumersShareAConsumerProtocolGroup(EmbeddedKafkaCluster kafka) {
        run(kafka, "kip848-mixed", true);
    }

    /** Four members join one by one, two leave; records are produced all along and every one is consumed. */
    private static void run(EmbeddedKafkaCluster kafka, String id, boolean mixed) {
        String topic = id;
        String group = id + "-group";
        kafka.createTopic(topic, PARTITIONS, 1);
        List<Member> all = new ArrayList<>();
        List<Member> active = new ArrayList<>();
        try (BackgroundProducer producer = new BackgroundProducer(kafka.bootstrapServers(), topic, 1000)) {
            for (int i = 0; i < 4; i++) {
                boolean kflux = !mixed || i % 2 == 0;
                Member m = kflux
                        ? new KfluxMember("kflux-" + i, GroupKit.consumer(GroupKit.consumerProtocolProps(
                                kafka.bootstrapServers(), group, "client.id", "kflux-" + i), topic, null)).start()
                        : OfficialMember.consumerProtocol("official-" + i, kafka.bootstrapServers(), group, topic)
                                .start();
                all.add(m);
                active.add(m);
                awaitBalanced(id, topic, active);
            }
            for (int i : new int[] {1, 2}) {
                Member m = all.get(i);
                m.stop();
                active.remove(m);
                awaitBalanced(id, topic, active);
            }
            // members join and leave gracefully, committing what they consumed before their partitions move: no
            // fault, so nothing is consumed twice
            assertThat(GroupKit.assertEveryRecordConsumed(id, producer.stop(), all).duplicates())
                    .as("records consumed more than once").isEmpty();
        } finally {
            active.forEach(Member::stop);
        }
    }

    /**
     * Online migration (the broker's {@code group.consumer.migration.policy}, bidirectional by default since 4.0):
     * kflux members of a classic group are replaced one by one with kflux members speaking {@code consumer} (the
     * group becomes a consumer group once the first joins; the classic members keep their protocol meanwhile), then
     * back. Records are produced all along and every one is consumed.
     */
    @Test
    void aGroupMigratesOnlineFromClassicToConsumerAndBack(EmbeddedKafkaCluster kafka) {
        String id = "kip848-migration";
        String topic = id;
        String group = id + "-group";
        kafka.createTopic(topic, PARTITIONS, 1);
        List<Member> all = new ArrayList<>();
        List<Member> active = new ArrayList<>();
        try (BackgroundProducer producer = new BackgroundProducer(kafka.bootstrapServers(), topic, 1000)) {
            int n = 0;
            for (String protocol : List.of("classic", "classic", "consumer", "consumer", "classic", "classic")) {
                String name = protocol + "-" + n++;
                Map<String, Object> props = protocol.equals("classic")
                        ? GroupKit.props(kafka.bootstrapServers(), group, "cooperative-sticky", "client.id", name)
                        : GroupKit.consumerProtocolProps(kafka.bootstrapServers(), group, "client.id", name);
                Member m = new KfluxMember(name, GroupKit.consumer(props, topic, null)).start();
                all.add(m);
                active.add(m);
                awaitBalanced(id, topic, active);
                if (active.size() > 2) {
                    Member oldest = active.remove(0); // the oldest member of the other protocol leaves
                    oldest.stop();
                    awaitBalanced(id, topic, active);
                }
            }
            // members join and leave gracefully, committing what they consumed before their partitions move: no
            // fault, so nothing is consumed twice
            assertThat(GroupKit.assertEveryRecordConsumed(id, producer.stop(), all).duplicates())
                    .as("records consumed more than once").isEmpty();
        } finally {
            active.forEach(Member::stop);
        }
    }

    private static void awaitBalanced(String id, String topic, List<Member> active) {
        GroupKit.awaitBalanced(id, topic, PARTITIONS, active, Duration.ofMillis(1_500));
    }

    /** Records what the listener was told, to show that a static member's restart moves nothing. */
    static final class Calls implements RebalanceListener {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
            calls.add("assigned " + partitions.size());
            return Mono.empty();
        }

        @Override
        public Mono<Void> onPartitionsRevoked(Collection<TopicPartition> partitions, RebalanceContext ctx) {
            calls.add("revoked " + partitions.size());
            return Mono.empty();
        }

        @Override
        public Mono<Void> onPartitionsLost(Collection<TopicPartition> partitions, RebalanceContext ctx) {
            calls.add("lost " + partitions.size());
            return Mono.empty();
        }
    }

    @Test
    void aStaticMemberThatRestartsGetsItsPartitionsBackAndTheOtherSeesNoRevocation(EmbeddedKafkaCluster kafka) {
        String topic = "kip848-static";
        String group = topic + "-group";
        kafka.createTopic(topic, PARTITIONS, 1);
        Calls otherCalls = new Calls();
        KfluxMember other = new KfluxMember("other", GroupKit.consumer(GroupKit.consumerProtocolProps(
                kafka.bootstrapServers(), group, "group.instance.id", "other"), topic, otherCalls)).start();
        KfluxMember first = new KfluxMember("pod", GroupKit.consumer(GroupKit.consumerProtocolProps(
                kafka.bootstrapServers(), group, "group.instance.id", "pod"), topic, null)).start();
        KfluxMember second = null;
        try {
            List<Member> both = List.of(other, first);
            GroupKit.awaitSteady("balanced", Duration.ofSeconds(30), Duration.ofMillis(1_500),
                    () -> GroupKit.balanced(both.stream().map(Member::assignment).toList(), topic, PARTITIONS));
            Set<TopicPartition> before = first.assignment();
            List<String> otherBefore = List.copyOf(otherCalls.calls);
            first.stop(); // a static member leaves with epoch -2: the broker keeps its partitions for it
            second = new KfluxMember("pod again", GroupKit.consumer(GroupKit.consumerProtocolProps(
                    kafka.bootstrapServers(), group, "group.instance.id", "pod"), topic, null)).start();
            KfluxMember restarted = second;
            GroupKit.await("restarted member assigned", Duration.ofSeconds(30), () -> !restarted.assignment().isEmpty());
            assertThat(restarted.assignment()).isEqualTo(before);
            GroupKit.sleep(2_000);
            assertThat(otherCalls.calls).as("the other member's listener calls").isEqualTo(otherBefore);
            assertThat(other.error()).isNull();
            assertThat(restarted.error()).isNull();
        } finally {
            other.stop();
            if (second != null) {
                second.stop();
            }
        }
    }

    /**
     * {@code client.rack} is sent as the member's rack id (KIP-848), which the broker's rack-aware assignors use: the
     * coordinator's own ConsumerGroupDescribe shows it (the official Admin's MemberDescription has no rack).
     */
    @Test
    void clientRackReachesTheCoordinatorAsTheMemberRackId(EmbeddedKafkaCluster kafka) {
        String topic = "kip848-rack";
        String group = topic + "-group";
        kafka.createTopic(topic, 2, 1);
        KfluxMember member = new KfluxMember("racked", GroupKit.consumer(GroupKit.consumerProtocolProps(
                kafka.bootstrapServers(), group, "client.rack", "rack-z", "client.id", "racked"), topic, null)).start();
        try {
            GroupKit.await("assigned", Duration.ofSeconds(30), () -> member.assignment().size() == 2);
            String[] hostPort = kafka.address(1).split(":");
            BrokerConnection c = BrokerConnection.connect(new InetSocketAddress(hostPort[0],
                    Integer.parseInt(hostPort[1])), io.kflux.internal.ClientSettings.of(java.util.Map.of("bootstrap.servers", "localhost:9092", "client.id", "kflux")).network()).block(Duration.ofSeconds(10));
            try {
                ConsumerGroupDescribeResponse.DescribedGroup described = c.exchange(
                        new ConsumerGroupDescribeRequest(List.of(group), false)).block(Duration.ofSeconds(10))
                        .groups().get(0);
                assertThat(described.errorCode()).isZero();
                assertThat(described.members()).singleElement().satisfies(m -> {
                    assertThat(m.clientId()).isEqualTo("racked");
                    assertThat(m.rackId()).isEqualTo("rack-z");
                });
            } finally {
                c.close().block(Duration.ofSeconds(10));
            }
            assertThat(member.error()).isNull();
        } finally {
            member.stop();
        }
    }

    @Test
    void aRegexSubscriptionPicksUpATopicCreatedLater(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("kip848-regex-a", 2, 1);
        SampleData.produce(kafka.bootstrapServers(), "kip848-regex-a", 20);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        GroupKit.consumerProtocolProps(kafka.bootstrapServers(), "kip848-regex-group"),
                        Deserializers.string(), Deserializers.string())
                .subscription(Pattern.compile("kip848-regex-.*")));
        List<String> topics = new CopyOnWriteArrayList<>();
        var subscription = consumer.receive().subscribe(r -> {
            r.acknowledge();
            topics.add(r.topic());
        });
        try {
            GroupKit.await("records of the first topic", Duration.ofSeconds(30),
                    () -> topics.stream().filter("kip848-regex-a"::equals).count() == 20);
            kafka.createTopic("kip848-regex-b", 2, 1);
            SampleData.produce(kafka.bootstrapServers(), "kip848-regex-b", 20);
            GroupKit.await("records of the topic created later", Duration.ofSeconds(60),
                    () -> topics.stream().filter("kip848-regex-b"::equals).count() == 20);
            assertThat(topics).hasSize(40);
        } finally {
            subscription.dispose();
        }
    }
}
