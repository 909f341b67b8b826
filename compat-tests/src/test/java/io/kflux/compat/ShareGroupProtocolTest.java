package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.AcknowledgeType;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.network.BrokerConnection;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.AcknowledgementBatch;
import io.kflux.protocol.message.ShareAcknowledgeRequest;
import io.kflux.protocol.message.ShareAcknowledgeResponse;
import io.kflux.protocol.message.ShareFetchRequest;
import io.kflux.protocol.message.ShareFetchResponse;
import io.kflux.protocol.message.ShareGroupDescribeRequest;
import io.kflux.protocol.message.ShareGroupDescribeResponse;
import io.kflux.protocol.message.ShareGroupHeartbeatRequest;
import io.kflux.protocol.message.ShareGroupHeartbeatResponse;
import io.kflux.share.PartitionAcknowledgements;
import io.kflux.share.SharePartition;
import io.kflux.share.ShareSession;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The share group messages (KIP-932) against a real broker over kflux's own connection, driven by the share
 * session and acknowledgement bookkeeping the share member will use: join a share group, get its partition
 * assigned, acquire records the official producer wrote, acknowledge them (ACCEPT, and RELEASE for one that must
 * come back with delivery count 2) through ShareAcknowledge and piggy-backed on ShareFetch, and see nothing
 * accepted come back. On brokers before 4.1 (no stable share group API) kflux refuses the request with
 * {@link UnsupportedVersionException} before sending it.
 */
@Tag("smoke")
@KafkaTest(nodes = 1)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShareGroupProtocolTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final short NONE = Errors.NONE.code();

    @Test
    void joinsAcquiresAcknowledgesAndNothingAcceptedComesBack(EmbeddedKafkaCluster kafka) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(BrokerVersion.current().atLeast(4, 2),
                "share groups are production-ready from Kafka 4.2");
        String topic = "jobs";
        String group = "workers";
        kafka.createTopic(topic, 1, 1);
        UUID topicId;
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            Uuid id = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
            topicId = new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
            // a share group starts at the log end by default; these records were written before it exists
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                    .all().get();
        }
        produce(kafka, topic, 5);

        BrokerConnection c = connect(kafka);
        try {
            // join: epoch 0 with the subscription, until the assignment names the partition
            String memberId = Uuid.randomUuid().toString();
            ShareGroupHeartbeatResponse hb = c.exchange(new ShareGroupHeartbeatRequest(group, memberId,
                    ShareGroupHeartbeatRequest.JOIN_EPOCH, null, List.of(topic))).block(WAIT);
            assertThat(hb.errorCode()).as("join: %s", hb.errorMessage()).isEqualTo(NONE);
            int epoch = hb.memberEpoch();
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!assigned(hb, topicId) && System.nanoTime() < deadline) {
                Thread.sleep(Math.min(hb.heartbeatIntervalMs(), 500));
                hb = c.exchange(new ShareGroupHeartbeatRequest(group, memberId, epoch, null, null)).block(WAIT);
                assertThat(hb.errorCode()).as("heartbeat: %s", hb.errorMessage()).isEqualTo(NONE);
                epoch = hb.memberEpoch();
            }
            assertThat(assigned(hb, topicId)).as("partition 0 of %s assigned in %s", topic, hb).isTrue();

            ShareGroupDescribeResponse described = c.exchange(new ShareGroupDescribeRequest(List.of(group), false)).block(WAIT);
            assertThat(described.groups().get(0).members()).extracting(ShareGroupDescribeResponse.Member::memberId)
                    .containsExactly(memberId);

            // acquire all five (one ShareFetch may bring fewer), opening the share session with epoch 0
            SharePartition p0 = new SharePartition(topicId, 0);
            ShareSession session = new ShareSession(kafka.nodeIds().get(0));
            Map<Long, Short> acquired = new TreeMap<>();
            Map<Long, String> values = new TreeMap<>();
            while (acquired.size() < 5 && System.nanoTime() < deadline) {
                ShareFetchResponse r = shareFetch(c, session, group, memberId, p0, null);
                collect(r, acquired, values);
            }
            assertThat(values).isEqualTo(Map.of(0L, "job-0", 1L, "job-1", 2L, "job-2", 3L, "job-3",
                    4L, "job-4"));
            assertThat(acquired.values()).containsOnly((short) 1);

            // ShareAcknowledge: accept 0-2, release 3 (it must come back); offset 4 stays acquired for now
            PartitionAcknowledgements acks = new PartitionAcknowledgements();
            for (long o = 0; o <= 2; o++) {
                acks.add(o, AcknowledgeType.ACCEPT);
            }
            acks.add(3, AcknowledgeType.RELEASE);
            ShareSession.Request ackRequest = session.acknowledge(Set.of(p0));
            ShareAcknowledgeResponse ack = c.exchange(new ShareAcknowledgeRequest(group, memberId, ackRequest.epoch(), false,
                    List.of(new ShareAcknowledgeRequest.AcknowledgeTopic(topicId, List.of(
                            new ShareAcknowledgeRequest.AcknowledgePartition(0, acks.drain())))))).block(WAIT);
            session.onAnswer(ack.errorCode());
            assertThat(ack.errorCode()).as("ShareAcknowledge: %s", ack.errorMessage()).isEqualTo(NONE);
            assertThat(ack.responses().get(0).partitions().get(0).errorCode()).isEqualTo(NONE);

            // ShareFetch with offset 4 accepted on it: the released offset 3 comes back, delivered twice
            PartitionAcknowledgements piggyBacked = new PartitionAcknowledgements();
            piggyBacked.add(4, AcknowledgeType.ACCEPT);
            Map<Long, Short> again = new TreeMap<>();
            ShareFetchResponse r = shareFetch(c, session, group, memberId, p0, piggyBacked.drain());
            assertThat(r.responses().get(0).partitions().get(0).acknowledgeErrorCode()).isEqualTo(NONE);
            collect(r, again, new TreeMap<>());
            while (again.isEmpty() && System.nanoTime() < deadline) {
                collect(shareFetch(c, session, group, memberId, p0, null), again, new TreeMap<>());
            }
            assertThat(again).isEqualTo(Map.of(3L, (short) 2));

            // accept it piggy-backed; then nothing is left: the next ShareFetch acquires nothing
            PartitionAcknowledgements last = new PartitionAcknowledgements();
            last.add(3, AcknowledgeType.ACCEPT);
            Map<Long, Short> after = new TreeMap<>();
            ShareFetchResponse lastAck = shareFetch(c, session, group, memberId, p0, last.drain());
            assertThat(lastAck.responses()).allSatisfy(t -> assertThat(t.partitions())
                    .allSatisfy(p -> assertThat(p.acknowledgeErrorCode()).isEqualTo(NONE)));
            collect(lastAck, after, new TreeMap<>());
            collect(shareFetch(c, session, group, memberId, p0, null), after, new TreeMap<>());
            assertThat(after).as("records acquired after every record was accepted").isEmpty();

            // close the share session (epoch -1), then leave the group (epoch -1)
            ShareSession.Request close = session.close(Set.of()).orElseThrow();
            ShareAcknowledgeResponse closed = c.exchange(new ShareAcknowledgeRequest(group, memberId, close.epoch(), false,
                    List.of())).block(WAIT);
            session.onAnswer(closed.errorCode());
            assertThat(closed.errorCode()).isEqualTo(NONE);
            ShareGroupHeartbeatResponse left = c.exchange(new ShareGroupHeartbeatRequest(group, memberId,
                    ShareGroupHeartbeatRequest.LEAVE_EPOCH, null, null)).block(WAIT);
            assertThat(left.errorCode()).isEqualTo(NONE);
            assertThat(left.memberEpoch()).isEqualTo(ShareGroupHeartbeatRequest.LEAVE_EPOCH);
        } finally {
            c.close().block(WAIT);
        }
    }

    @Test
    void brokersWithoutStableShareGroupsAreRefusedBeforeSending(EmbeddedKafkaCluster kafka) {
        org.junit.jupiter.api.Assumptions.assumeFalse(BrokerVersion.current().atLeast(4, 1),
                "Kafka 4.1+ offers ShareGroupHeartbeat v1");
        BrokerConnection c = connect(kafka);
        try {
            for (ApiKey key : List.of(ApiKey.SHARE_GROUP_HEARTBEAT, ApiKey.SHARE_FETCH, ApiKey.SHARE_ACKNOWLEDGE,
                    ApiKey.SHARE_GROUP_DESCRIBE)) {
                // 3.9 has none of them; 4.0 only v0, its early access, when enabled
                assertThat(!c.apiVersions().supports(key) || c.apiVersions().max(key) == 0)
                        .as("%s offered by %s: %s", key, BrokerVersion.current(), c.apiVersions()).isTrue();
            }
            assertThatThrownBy(() -> c.exchange(new ShareGroupHeartbeatRequest("workers", "m", 0, null, List.of("jobs")))
                    .block(WAIT))
                    .isInstanceOf(UnsupportedVersionException.class)
                    .hasMessageContaining("SHARE_GROUP_HEARTBEAT")
                    .satisfies(e -> assertThat(((UnsupportedVersionException) e).apiKey())
                            .isEqualTo(ApiKey.SHARE_GROUP_HEARTBEAT));
        } finally {
            c.close().block(WAIT);
        }
    }

    private static BrokerConnection connect(EmbeddedKafkaCluster kafka) {
        String[] hostPort = kafka.address(kafka.nodeIds().get(0)).split(":");
        return BrokerConnection.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])),
                io.kflux.internal.ClientSettings.of(java.util.Map.of("bootstrap.servers", "localhost:9092", "client.id",
                                                                     "kflux")).network()).block(WAIT);
    }

    private static boolean assigned(ShareGroupHeartbeatResponse hb, UUID topicId) {
        return hb.assignment() != null && hb.assignment().topicPartitions().stream()
                .anyMatch(tp -> tp.topicId().equals(topicId) && tp.partitions().contains(0));
    }

    /** One ShareFetch of the session, with acknowledgements for p0 or none; the answer is reported to the session. */
    private static ShareFetchResponse shareFetch(BrokerConnection c, ShareSession session, String group, String memberId,
                                                 SharePartition p0, List<AcknowledgementBatch> acks) {
        ShareSession.Request s = session.fetch(Set.of(p0), acks == null ? Set.of() : Set.of(p0));
        List<ShareFetchRequest.FetchTopic> topics = new ArrayList<>();
        for (SharePartition p : s.listed()) {
            topics.add(new ShareFetchRequest.FetchTopic(p.topicId(), List.of(new ShareFetchRequest.FetchPartition(
                    p.partition(), acks == null ? List.of() : acks))));
        }
        ShareFetchResponse r = c.exchange(new ShareFetchRequest(group, memberId, s.epoch(), 500, 1, 1 << 20, 500, 500,
                ShareFetchRequest.ACQUIRE_BATCH_OPTIMIZED, false, topics, List.of())).block(WAIT);
        session.onAnswer(r.errorCode());
        assertThat(r.errorCode()).as("ShareFetch epoch %d: %s", s.epoch(), r.errorMessage()).isEqualTo(NONE);
        return r;
    }

    /** The acquired offsets with their delivery counts, and the values of the records among them; releases the records. */
    private static void collect(ShareFetchResponse r, Map<Long, Short> acquired, Map<Long, String> values) {
        try {
            for (ShareFetchResponse.ShareFetchableTopicResponse t : r.responses()) {
                for (ShareFetchResponse.PartitionData p : t.partitions()) {
                    assertThat(p.errorCode()).as("partition %d: %s", p.partitionIndex(), p.errorMessage()).isEqualTo(NONE);
                    for (ShareFetchResponse.AcquiredRecords a : p.acquiredRecords()) {
                        for (long o = a.firstOffset(); o <= a.lastOffset(); o++) {
                            acquired.put(o, a.deliveryCount());
                        }
                    }
                    MemoryRecords records = MemoryRecords.readableRecords(p.records().nioBuffer());
                    for (Record record : records.records()) {
                        if (acquired.containsKey(record.offset())) {
                            values.put(record.offset(), StandardCharsets.UTF_8.decode(record.value()).toString());
                        }
                    }
                }
            }
        } finally {
            r.release();
        }
    }

    private static void produce(EmbeddedKafkaCluster kafka, String topic, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "job-" + i)).get();
            }
        }
    }
}
