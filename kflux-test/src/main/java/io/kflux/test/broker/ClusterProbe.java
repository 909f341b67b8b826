package io.kflux.test.broker;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

/** Asks the cluster itself, through the official Admin client, whether it is ready for tests. */
final class ClusterProbe {

    static final String OFFSETS_TOPIC = "__consumer_offsets";

    private ClusterProbe() {
    }

    /** An Admin that gives up quickly, so a probe loop notices a dead broker process soon. */
    static Admin impatientAdmin(String bootstrapServers) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "kflux-embedded-probe");
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        props.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "100");
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
        return Admin.create(props);
    }

    /**
     * Waits until {@code describeCluster} lists every expected node: only then are they
     * registered and unfenced with the controller, i.e. able to lead partitions.
     */
    static void awaitBrokers(Admin admin, Set<Integer> expected, Instant deadline, Runnable aliveCheck) {
        Set<Integer> seen = Set.of();
        while (true) {
            aliveCheck.run();
            try {
                Collection<Node> nodes = admin.describeCluster(new DescribeClusterOptions().timeoutMs(3000))
                        .nodes().get(4, TimeUnit.SECONDS);
                seen = new TreeSet<>();
                for (Node node : nodes) {
                    seen.add(node.id());
                }
                if (seen.containsAll(expected)) {
                    return;
                }
            } catch (ExecutionException | TimeoutException notYet) {
                // brokers still starting; keep asking until the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for Kafka nodes", e);
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("Kafka nodes " + expected + " not all registered in time; seen " + seen);
            }
            pause();
        }
    }

    /**
     * Makes the broker create the group coordinator's topic now, while every node is up: created
     * later with a node down, a replication factor of 3 could not be met and no consumer group
     * could ever find its coordinator.
     */
    static void createOffsetsTopic(Admin admin, int replication, Instant deadline, Runnable aliveCheck) {
        while (true) {
            aliveCheck.run();
            try {
                // FindCoordinator is what triggers the creation, and this call sends one
                admin.listConsumerGroupOffsets("kflux-embedded-warmup").partitionsToOffsetAndMetadata()
                        .get(5, TimeUnit.SECONDS);
                break;
            } catch (ExecutionException | TimeoutException notYet) {
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("group coordinator not available in time", notYet);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while warming up Kafka", e);
            }
        }
        awaitLeaders(admin, OFFSETS_TOPIC, replication, deadline);
    }

    /** Waits until every partition has a leader and {@code minIsr} in-sync replicas. */
    static void awaitLeaders(Admin admin, String topic, int minIsr, Instant deadline) {
        String state = "not described yet";
        while (true) {
            try {
                Map<String, TopicDescription> described = admin.describeTopics(List.of(topic))
                        .allTopicNames().get(5, TimeUnit.SECONDS);
                List<TopicPartitionInfo> partitions = described.get(topic).partitions();
                boolean ready = !partitions.isEmpty();
                for (TopicPartitionInfo partition : partitions) {
                    if (partition.leader() == null || partition.leader().isEmpty() || partition.isr().size() < minIsr) {
                        ready = false;
                        state = "partition " + partition.partition() + " leader " + partition.leader()
                                + " isr " + partition.isr();
                    }
                }
                if (ready) {
                    return;
                }
            } catch (ExecutionException | TimeoutException notYet) {
                state = notYet.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + topic, e);
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(topic + " has no leader for every partition in time: " + state);
            }
            pause();
        }
    }

    static Instant deadline(Duration timeout) {
        return Instant.now().plus(timeout);
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Kafka", e);
        }
    }
}
