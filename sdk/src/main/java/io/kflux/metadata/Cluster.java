package io.kflux.metadata;

import io.kflux.TopicPartition;
import io.kflux.protocol.message.MetadataResponse;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseBroker;
import io.kflux.protocol.message.MetadataResponse.MetadataResponsePartition;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseTopic;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * An immutable snapshot of what the cluster told us: brokers, topics, topic ids, partition
 * leaders and leader epochs. A new snapshot replaces the old one as a whole, so readers on other
 * threads never see half an update.
 */
public final class Cluster {
    private static final UUID ZERO_ID = new UUID(0, 0);
    public static final Cluster EMPTY = new Cluster(null, Map.of(), Map.of(), 0L);

    private final String clusterId;
    private final Map<Integer, Node> nodes;
    private final Map<String, TopicInfo> topics;
    private final Map<UUID, String> topicNames;
    private final long createdNanos;

    Cluster(String clusterId, Map<Integer, Node> nodes, Map<String, TopicInfo> topics, long createdNanos) {
        this.clusterId = clusterId;
        this.nodes = nodes;
        this.topics = topics;
        Map<UUID, String> names = new HashMap<>();
        topics.values().forEach(t -> names.put(t.topicId(), t.name()));
        this.topicNames = Collections.unmodifiableMap(names);
        this.createdNanos = createdNanos;
    }

    /**
     * Builds a snapshot from a Metadata response; {@code previous} fills topics the response did not list (with
     * {@code mergeWithPrevious}). A partition whose leader epoch went down since {@code previous} (same topic id) keeps
     * its previous leader and epoch: the answer came from a broker whose metadata lags, and following it would move
     * the partition back to a former leader (which answers FENCED_LEADER_EPOCH or NOT_LEADER_OR_FOLLOWER), as the
     * official client also ignores it (KIP-320). An answer without epoch (-1) is taken as it is.
     */
    public static Cluster from(MetadataResponse response, Cluster previous, boolean mergeWithPrevious, long nowNanos) {
        Map<Integer, Node> nodes = new HashMap<>();
        for (MetadataResponseBroker b : response.brokers()) {
            nodes.put(b.nodeId(), new Node(b.nodeId(), b.host(), b.port(), b.rack()));
        }
        Map<String, TopicInfo> topics = new HashMap<>(mergeWithPrevious ? previous.topics : Map.of());
        for (MetadataResponseTopic t : response.topics()) {
            List<PartitionInfo> partitions = new ArrayList<>();
            List<MetadataResponsePartition> sorted = new ArrayList<>(t.partitions());
            sorted.sort(Comparator.comparingInt(MetadataResponsePartition::partitionIndex));
            TopicInfo before = previous == null ? null : previous.topics.get(t.name());
            boolean sameTopic = before != null && t.topicId() != null && !ZERO_ID.equals(t.topicId())
                    && t.topicId().equals(before.topicId());
            for (MetadataResponsePartition p : sorted) {
                PartitionInfo fresh = new PartitionInfo(t.name(), p.partitionIndex(), p.leaderId(), p.leaderEpoch(),
                        p.errorCode(), p.replicaNodes());
                PartitionInfo known = sameTopic ? before.partition(p.partitionIndex()) : null;
                partitions.add(known != null && fresh.leaderEpoch() >= 0 && fresh.leaderEpoch() < known.leaderEpoch()
                        ? known : fresh);
            }
            topics.put(t.name(), new TopicInfo(t.name(), t.topicId(), t.errorCode(), t.isInternal(),
                    Collections.unmodifiableList(partitions)));
        }
        return new Cluster(response.clusterId(), Collections.unmodifiableMap(nodes),
                Collections.unmodifiableMap(topics), nowNanos);
    }

    public String clusterId() {
        return clusterId;
    }

    public Map<Integer, Node> nodes() {
        return nodes;
    }

    public Node node(int id) {
        return nodes.get(id);
    }

    public Map<String, TopicInfo> topics() {
        return topics;
    }

    public TopicInfo topic(String name) {
        return topics.get(name);
    }

    /** The topic name for an id (Fetch v13+ answers by id), or null. */
    public String topicName(UUID topicId) {
        return topicNames.get(topicId);
    }

    /** The partition's leadership, or null when the topic or partition is unknown. */
    public PartitionInfo partition(TopicPartition tp) {
        TopicInfo t = topics.get(tp.topic());
        return t == null ? null : t.partition(tp.partition());
    }

    /** The leader node of {@code tp}, or null when unknown or without leader. */
    public Node leader(TopicPartition tp) {
        PartitionInfo p = partition(tp);
        return p == null || p.leaderId() < 0 ? null : nodes.get(p.leaderId());
    }

    public long createdNanos() {
        return createdNanos;
    }

    /**
     * This snapshot without its brokers: what a rebootstrap leaves (KIP-899), so the next request for any broker
     * goes to {@code bootstrap.servers}; topics and leaders stay until the next answer replaces them.
     */
    public Cluster withoutNodes() {
        return new Cluster(clusterId, Map.of(), topics, createdNanos);
    }
}
