package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.test.KafkaTest;
import io.kflux.compat.support.OfficialConsumers;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The test broker itself: if these fail, no compat test result means anything. */
class EmbeddedClusterTest {

    @Nested
    @KafkaTest(nodes = 1, isolated = true) // pauses its node
    class SingleNode {

        @Test
        void officialClientsRoundTripThousandRecords(EmbeddedKafkaCluster kafka) {
            kafka.createTopic("numbers", 8, 1);

            List<RecordMetadata> written = SampleData.produce(kafka.bootstrapServers(), "numbers", 1000);
            assertThat(written).hasSize(1000);
            assertThat(written.stream().map(RecordMetadata::partition).collect(Collectors.toSet())).hasSize(8);

            List<ConsumerRecord<String, String>> read =
                    OfficialConsumers.readAll(kafka.bootstrapServers(), "numbers", "round-trip", 1000, Duration.ofSeconds(30));
            assertThat(read).extracting(ConsumerRecord::value)
                    .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 1000).mapToObj(i -> "value-" + i).toList());
        }

        @Test
        void pausedNodeAnswersNothingUntilResumed(EmbeddedKafkaCluster kafka) throws Exception {
            try (Admin admin = impatientAdmin(kafka.bootstrapServers())) {
                assertThat(nodeIds(admin, 5000)).containsExactly(1);

                kafka.pause(1);
                try {
                    assertThat(kafka.isPaused(1)).isTrue();
                    assertThatThrownBy(() -> nodeIds(admin, 1000))
                            .isInstanceOf(ExecutionException.class)
                            .hasCauseInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
                } finally {
                    kafka.resume(1);
                }

                assertThat(kafka.isPaused(1)).isFalse();
                assertThat(nodeIds(admin, 15000)).containsExactly(1);
            }
        }
    }

    @Nested
    @KafkaTest(nodes = 3, isolated = true) // stops the leader
    class ThreeNodes {

        @Test
        void leadershipMovesWhenLeaderStopsAndNodeRejoinsAfterRestart(EmbeddedKafkaCluster kafka) throws Exception {
            assertThat(nodeIds(kafka.admin(), 5000)).containsExactlyInAnyOrder(1, 2, 3);
            kafka.createTopic("replicated", 3, 3);
            SampleData.produce(kafka.bootstrapServers(), "replicated", 100);

            int oldLeader = partitionZero(kafka).leader().id();
            kafka.stop(oldLeader);
            assertThat(kafka.isRunning(oldLeader)).isFalse();

            awaitTrue(Duration.ofSeconds(30), "leadership of partition 0 to move", () -> {
                Node leader = partitionZero(kafka).leader();
                return leader != null && !leader.isEmpty() && leader.id() != oldLeader;
            });
            assertThat(partitionZero(kafka).isr()).extracting(Node::id).doesNotContain(oldLeader);

            SampleData.produce(kafka.bootstrapServers(), "replicated", 100);
            List<ConsumerRecord<String, String>> read = OfficialConsumers.readAll(
                    kafka.bootstrapServers(), "replicated", "after-failover", 200, Duration.ofSeconds(30));
            assertThat(read).hasSize(200);

            kafka.start(oldLeader);
            assertThat(kafka.isRunning(oldLeader)).isTrue();
            awaitTrue(Duration.ofSeconds(30), "node " + oldLeader + " to rejoin the ISR", () ->
                    partitionZero(kafka).isr().stream().anyMatch(node -> node.id() == oldLeader));
        }
    }

    private static TopicPartitionInfo partitionZero(EmbeddedKafkaCluster kafka) {
        try {
            TopicDescription topic = kafka.admin().describeTopics(List.of("replicated"))
                    .allTopicNames().get(10, TimeUnit.SECONDS).get("replicated");
            return topic.partitions().get(0);
        } catch (Exception e) {
            throw new AssertionError("cannot describe topic", e);
        }
    }

    private static Set<Integer> nodeIds(Admin admin, int timeoutMs) throws Exception {
        return admin.describeCluster(new DescribeClusterOptions().timeoutMs(timeoutMs)).nodes()
                .get(timeoutMs + 5000L, TimeUnit.MILLISECONDS)
                .stream().map(Node::id).collect(Collectors.toSet());
    }

    private static Admin impatientAdmin(String bootstrapServers) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "1000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "1000");
        return Admin.create(props);
    }

    private static void awaitTrue(Duration timeout, String what, BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(100);
        }
    }
}
