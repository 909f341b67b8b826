package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.fetch.FetchRequestListener;
import io.kflux.internal.DefaultKafkaFluxConsumer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;

/**
 * KIP-392 fetch from the closest replica: three nodes in racks rack-1..rack-3 with the broker's
 * {@code RackAwareReplicaSelector}; a consumer with {@code client.rack} naming a follower's rack reads every record
 * from that follower (the fetch request listener shows which node each Fetch went to), and keeps consuming, from the
 * leader, when that follower's broker stops; the {@code preferred.read.replica} meter names the follower, then -1.
 * Offsets are checked gapless and once each.
 */
@KafkaTest(nodes = 3, brokerProperties = {
        "broker.rack=rack-${nodeId}",
        "replica.selector.class=org.apache.kafka.common.replica.RackAwareReplicaSelector",
        "replica.lag.time.max.ms=4000"}, isolated = true) // stops a follower
class FollowerFetchingTest {
    private static final String TOPIC = "nearby";

    @Test
    void readsFromTheReplicaInItsRackAndFallsBackToTheLeaderWhenThatReplicaStops(EmbeddedKafkaCluster kafka)
            throws Exception {
        kafka.createTopic(TOPIC, 1, 3, Map.of("min.insync.replicas", "2"));
        TopicPartitionInfo info = kafka.admin().describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS)
                .get(TOPIC).partitions().get(0);
        int leader = info.leader().id();
        int follower = info.replicas().stream().mapToInt(n -> n.id()).filter(id -> id != leader).findFirst().orElseThrow();

        MeterRegistry registry = new SimpleMeterRegistry();
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "client.rack", "rack-" + follower,
                                "auto.offset.reset", "earliest", "fetch.max.wait.ms", "200"),
                        Deserializers.string(), Deserializers.string())
                .assignment(Kflux.partitions(TOPIC, 1)).withMeterRegistry(registry));
        List<FetchRequestListener.Request> fetches = new CopyOnWriteArrayList<>();
        ((DefaultKafkaFluxConsumer<?, ?>) consumer).fetchRequestListener(fetches::add);
        RecordQueue<String, String> queue = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        ContinuousProducer producer = new ContinuousProducer(kafka.bootstrapServers(), TOPIC, 1, 200, "v-");
        List<ConsumerRecord<String, String>> received = new ArrayList<>();
        try {
            received.addAll(queue.take(400, Duration.ofSeconds(60)));

            List<Integer> nodes = fetches.stream().filter(f -> !f.partitions().isEmpty() || f.sessionEpoch() > 0)
                    .map(FetchRequestListener.Request::nodeId).toList();
            int firstFromFollower = nodes.indexOf(follower);
            assertThat(firstFromFollower).as("Fetches went to the follower in rack-%d: %s", follower, nodes)
                    .isGreaterThanOrEqualTo(0);
            assertThat(nodes.subList(firstFromFollower, nodes.size())).as("after the leader named it, only the follower")
                    .containsOnly(follower);
            assertThat(nodes.subList(0, firstFromFollower)).as("before, the leader (which names the replica)")
                    .containsOnly(leader);

            assertThat(readReplica(registry)).as("the preferred-read-replica meter names the follower")
                    .isEqualTo(follower);

            int before = fetches.size();
            kafka.stop(follower);
            int seen = received.size();
            received.addAll(queue.take(400, Duration.ofSeconds(90)));
            assertThat(received).hasSizeGreaterThan(seen);
            List<Integer> after = fetches.subList(before, fetches.size()).stream()
                    .map(FetchRequestListener.Request::nodeId).toList();
            assertThat(after).as("with the follower stopped, fetching went on from the leader").contains(leader);
            assertThat(queue.error()).isNull();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (readReplica(registry) != -1 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(readReplica(registry)).as("the meter says -1 (the leader) once fetching went back").isEqualTo(-1);
        } finally {
            producer.close();
            queue.dispose();
            consumer.close().block(Duration.ofSeconds(30));
        }
        List<Long> offsets = received.stream().map(ConsumerRecord::offset).toList();
        assertThat(offsets).as("every offset once, in order").isEqualTo(LongStream.range(0, offsets.size()).boxed().toList());
    }

    /** kflux's {@code preferred.read.replica} meter of the one partition, as KafkaClientMetrics names the official one. */
    private static int readReplica(MeterRegistry registry) {
        return (int) registry.get("kafka.consumer.fetch.manager.preferred.read.replica")
                .tags("topic", TOPIC, "partition", "0").gauge().value();
    }
}
