package io.kflux.test;

import io.kflux.TopicPartition;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The cluster a {@link KafkaTest} class gets: a real Kafka cluster (each node a forked broker JVM) with what a test
 * of a kflux pipeline needs: consumer properties pointing at it, topics, test records (written with the official
 * producer, {@code acks=all}) and the committed offsets of a group (read with the official {@code Admin} client).
 *
 * <p>It wraps {@link EmbeddedKafkaCluster}, the broker kflux's own compatibility tests run against; {@link #cluster()}
 * reaches it for stopping, killing or pausing nodes. Thread-safe. Every method waits for the broker's answer and
 * fails with an unchecked exception (the broker's {@code KafkaException}, or {@link IllegalStateException} on a
 * timeout of 30 s) rather than returning early.
 */
public final class KafkaTestCluster implements AutoCloseable {
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    private final EmbeddedKafkaCluster cluster;

    /** @param cluster a started cluster; closed with this */
    public KafkaTestCluster(EmbeddedKafkaCluster cluster) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
    }

    /**
     * Starts a cluster without the JUnit extension (close it when done).
     *
     * @param nodes number of nodes, at least 1
     * @return the started cluster
     */
    public static KafkaTestCluster start(int nodes) {
        return new KafkaTestCluster(EmbeddedKafkaCluster.startCluster(nodes));
    }

    /** @return {@code host:port,...} of every node, for {@code bootstrap.servers} */
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** @return the underlying cluster: stop, kill, pause and restart nodes, or use its {@code Admin} client */
    public EmbeddedKafkaCluster cluster() {
        return cluster;
    }

    /**
     * Consumer properties for this cluster: {@code bootstrap.servers}, {@code auto.offset.reset=earliest} (a test
     * reads what it wrote before subscribing) and, when given, {@code group.id}. A mutable copy: add your own.
     *
     * @param groupId the group, or {@code null} for a consumer with a manual assignment
     * @return the properties, for {@code ConsumerOptions.create(...)}
     */
    public Map<String, Object> consumerProperties(String groupId) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrapServers());
        props.put("auto.offset.reset", "earliest");
        if (groupId != null) {
            props.put("group.id", groupId);
        }
        return props;
    }

    /**
     * Creates a topic (replication factor 1) and waits until every partition has a leader.
     *
     * @param name       topic name
     * @param partitions number of partitions, at least 1
     * @return its partitions, 0 to {@code partitions - 1}
     */
    public List<TopicPartition> createTopic(String name, int partitions) {
        cluster.createTopic(name, partitions, 1);
        return IntStream.range(0, partitions).mapToObj(p -> new TopicPartition(name, p)).toList();
    }

    /**
     * Writes string values, keyed {@code null}, to one partition, in order.
     *
     * @param topic     an existing topic
     * @param partition its partition
     * @param values    the values, UTF-8; {@code null} writes a tombstone
     * @return the offset of each record, in the order given
     */
    public List<Long> produce(String topic, int partition, String... values) {
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (String value : values) {
            records.add(new ProducerRecord<>(topic, partition, null, value));
        }
        return SampleData.produce(bootstrapServers(), records).stream().map(RecordMetadata::offset).toList();
    }

    /**
     * Writes records with string keys and values, each naming its topic and optionally partition, timestamp and
     * headers, in order; waits until every one is acknowledged.
     *
     * @param records the records
     * @return the offset of each record, in the order given
     */
    public List<Long> produce(Collection<ProducerRecord<String, String>> records) {
        return SampleData.produce(bootstrapServers(), records).stream().map(RecordMetadata::offset).toList();
    }

    /**
     * Writes one record of raw bytes, e.g. a value your deserializer cannot read (a poison record).
     *
     * @param topic     an existing topic
     * @param partition its partition
     * @param key       key bytes, may be {@code null}
     * @param value     value bytes, may be {@code null}
     * @return the record's offset
     */
    public long produceBytes(String topic, int partition, byte[] key, byte[] value) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            Future<RecordMetadata> sent = producer.send(new ProducerRecord<>(topic, partition, key, value));
            return await(sent, "producing to " + topic + "-" + partition).offset();
        }
    }

    /**
     * The offsets a consumer group committed (OffsetFetch through {@code Admin.listConsumerGroupOffsets}).
     *
     * @param groupId the group
     * @return the committed offset (the next offset to read) per partition; partitions without one are absent
     */
    public Map<TopicPartition, Long> committedOffsets(String groupId) {
        Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets = await(cluster.admin()
                .listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata(), "reading offsets of " + groupId);
        Map<TopicPartition, Long> out = new HashMap<>();
        offsets.forEach((tp, om) -> {
            if (om != null) {
                out.put(new TopicPartition(tp.topic(), tp.partition()), om.offset());
            }
        });
        return out;
    }

    /**
     * Waits until {@code groupId} has committed at least {@code offset} for {@code tp}.
     *
     * @param groupId the group
     * @param tp      the partition
     * @param offset  the committed offset awaited (the next offset to read, so one past the last processed record)
     * @param timeout how long to wait
     * @throws AssertionError when the committed offset is still lower after {@code timeout}, naming what it was
     */
    public void awaitCommitted(String groupId, TopicPartition tp, long offset, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Long committed = null;
        while (System.nanoTime() < deadline) {
            committed = committedOffsets(groupId).get(tp);
            if (committed != null && committed >= offset) {
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a commit", e);
            }
        }
        throw new AssertionError("group " + groupId + " committed " + (committed == null ? "nothing" : committed)
                + " for " + tp + " within " + timeout + ", expected at least " + offset);
    }

    /**
     * The end offsets (high watermarks) of partitions: the offset the next record written will get.
     *
     * @param partitions existing partitions
     * @return the end offset per partition
     */
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        Map<org.apache.kafka.common.TopicPartition, OffsetSpec> query = new HashMap<>();
        partitions.forEach(tp -> query.put(new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition()),
                OffsetSpec.latest()));
        Map<TopicPartition, Long> out = new HashMap<>();
        await(cluster.admin().listOffsets(query).all(), "listing end offsets").forEach((tp, info) ->
                out.put(new TopicPartition(tp.topic(), tp.partition()), info.offset()));
        return out;
    }

    private static <T> T await(Future<T> future, String what) {
        try {
            return future.get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException(what + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " did not finish within " + ADMIN_TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + what, e);
        }
    }

    /** Stops every node and deletes the cluster's data. */
    @Override
    public void close() {
        cluster.close();
    }
}
