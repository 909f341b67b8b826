package io.kflux.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.Types;
import io.kflux.protocol.message.FetchRequest.FetchPartition;
import io.kflux.protocol.message.FetchRequest.FetchTopic;
import io.kflux.protocol.message.FetchRequest.ForgottenTopic;
import io.kflux.protocol.message.FetchRequest.ReplicaState;
import io.kflux.protocol.message.FetchResponse.AbortedTransaction;
import io.kflux.protocol.message.FetchResponse.EpochEndOffset;
import io.kflux.protocol.message.FetchResponse.FetchableTopicResponse;
import io.kflux.protocol.message.FetchResponse.LeaderIdAndEpoch;
import io.kflux.protocol.message.FetchResponse.NodeEndpoint;
import io.kflux.protocol.message.FetchResponse.PartitionData;
import io.kflux.protocol.message.FetchResponse.SnapshotId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;

class FetchCodecTest {
    private static final UUID ORDERS_ID = UUID.fromString("5b0d6c1e-93a4-4f1a-8a55-2f1e9d0a7c11");
    private static final UUID PAYMENTS_ID = UUID.fromString("0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b");
    private static final UUID STALE_ID = UUID.fromString("9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d");
    private static final UUID DIR_ID = UUID.fromString("11111111-2222-4333-8444-555555555555");
    private static final String CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qk";

    private static final MemoryRecords ORDERS_RECORDS = MemoryRecords.withRecords(1_150L, Compression.NONE,
            new SimpleRecord(1_717_171_717_000L, bytes("order-1"), bytes("{\"total\":12.5}")),
            new SimpleRecord(1_717_171_717_010L, bytes("order-2"), bytes("{\"total\":7}"),
                    new org.apache.kafka.common.header.Header[] {new RecordHeader("trace", bytes("abc"))}),
            new SimpleRecord(1_717_171_717_020L, null, bytes("tombstone-less value")));
    private static final MemoryRecords PAYMENTS_RECORDS = MemoryRecords.withRecords(5_000L, Compression.NONE,
            new SimpleRecord(1_717_171_800_000L, bytes("pay-1"), bytes("ok")));

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] bytesOf(MemoryRecords records) {
        ByteBuffer b = records.buffer().duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static ByteBuf buf(MemoryRecords records) {
        return Unpooled.wrappedBuffer(bytesOf(records));
    }

    static Uuid official(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    @Test
    void specRangeIsTheOfficialOne() {
        assertThat(FetchRequest.SPEC.lowestVersion()).isEqualTo(new FetchRequestData().lowestSupportedVersion());
        assertThat(FetchRequest.SPEC.highestVersion()).isEqualTo(new FetchRequestData().highestSupportedVersion());
        assertThat(FetchResponse.SPEC.lowestVersion()).isEqualTo(new FetchResponseData().lowestSupportedVersion());
        assertThat(FetchResponse.SPEC.highestVersion()).isEqualTo(new FetchResponseData().highestSupportedVersion());
    }

    // ---------------------------------------------------------------- request

    /** A follower-like request: every field away from its default where the version has it; names and ids both filled. */
    static FetchRequest ourFullRequest(short v) {
        return new FetchRequest(CLUSTER_ID, 2, new ReplicaState(2, 31L), 500, 1, 52_428_800, (byte) 1, 42, 3,
                List.of(new FetchTopic("orders", ORDERS_ID, List.of(
                                new FetchPartition(0, 5, 1_200L, 5, 10L, 1_048_576, DIR_ID, 1_190L),
                                new FetchPartition(3, 4, 0L, 4, 0L, 65_536, DIR_ID, -1L))),
                        new FetchTopic("payments", PAYMENTS_ID, List.of(
                                new FetchPartition(2, 9, 5_001L, 8, 5_000L, 1_048_576, DIR_ID, 5_001L)))),
                List.of(new ForgottenTopic("stale-topic", STALE_ID, List.of(0, 1, 4))),
                "eu-west-1a");
    }

    static FetchRequestData officialFullRequest(short v) {
        FetchRequestData d = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(52_428_800)
                .setIsolationLevel((byte) 1);
        if (v >= 12) {
            d.setClusterId(CLUSTER_ID);
        }
        if (v <= 14) {
            d.setReplicaId(2);
        } else {
            d.setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(2).setReplicaEpoch(31L));
        }
        if (v >= 7) {
            d.setSessionId(42).setSessionEpoch(3);
        }
        d.topics().add(officialTopic(v, "orders", ORDERS_ID,
                officialPartition(v, 0, 5, 1_200L, 5, 10L, 1_048_576, 1_190L),
                officialPartition(v, 3, 4, 0L, 4, 0L, 65_536, -1L)));
        d.topics().add(officialTopic(v, "payments", PAYMENTS_ID,
                officialPartition(v, 2, 9, 5_001L, 8, 5_000L, 1_048_576, 5_001L)));
        if (v >= 7) {
            FetchRequestData.ForgottenTopic forgotten = new FetchRequestData.ForgottenTopic().setPartitions(List.of(0, 1, 4));
            if (v >= 13) {
                forgotten.setTopicId(official(STALE_ID));
            } else {
                forgotten.setTopic("stale-topic");
            }
            d.forgottenTopicsData().add(forgotten);
        }
        if (v >= 11) {
            d.setRackId("eu-west-1a");
        }
        return d;
    }

    private static FetchRequestData.FetchTopic officialTopic(short v, String name, UUID id, FetchRequestData.FetchPartition... partitions) {
        FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setPartitions(new ArrayList<>(List.of(partitions)));
        return v >= 13 ? t.setTopicId(official(id)) : t.setTopic(name);
    }

    private static FetchRequestData.FetchPartition officialPartition(short v, int partition, int currentLeaderEpoch,
                                                                     long fetchOffset, int lastFetchedEpoch,
                                                                     long logStartOffset, int maxBytes, long highWatermark) {
        FetchRequestData.FetchPartition p = new FetchRequestData.FetchPartition().setPartition(partition)
                .setFetchOffset(fetchOffset).setPartitionMaxBytes(maxBytes);
        if (v >= 9) {
            p.setCurrentLeaderEpoch(currentLeaderEpoch);
        }
        if (v >= 12) {
            p.setLastFetchedEpoch(lastFetchedEpoch);
        }
        if (v >= 5) {
            p.setLogStartOffset(logStartOffset);
        }
        if (v >= 17) {
            p.setReplicaDirectoryId(official(DIR_ID));
        }
        if (v >= 18) {
            p.setHighWatermark(highWatermark);
        }
        return p;
    }

    @Test
    void requestWithEveryFieldSetMatchesOfficialBytesInEveryVersion() {
        for (short v = FetchRequest.SPEC.lowestVersion(); v <= FetchRequest.SPEC.highestVersion(); v++) {
            short version = v;
            OracleCodec.assertSameBytes(FetchRequest.SPEC, ourFullRequest(v), officialFullRequest(v), v,
                    a -> new FetchRequestData(a, version));

            FetchRequest read = OracleCodec.kfluxRead(FetchRequest.SPEC, OracleCodec.officialBytes(officialFullRequest(v), v), v);
            FetchTopic orders = read.topics().get(0);
            assertThat(orders.topic()).isEqualTo(v <= 12 ? "orders" : "");
            assertThat(orders.topicId()).isEqualTo(v >= 13 ? ORDERS_ID : Types.ZERO_UUID);
            assertThat(read.replicaId()).isEqualTo(v <= 14 ? 2 : -1);
            assertThat(read.replicaState()).isEqualTo(v >= 15 ? new ReplicaState(2, 31L) : ReplicaState.CONSUMER);
            assertThat(read.clusterId()).isEqualTo(v >= 12 ? CLUSTER_ID : null);
            assertThat(orders.partitions().get(0).replicaDirectoryId()).isEqualTo(v >= 17 ? DIR_ID : Types.ZERO_UUID);
            assertThat(orders.partitions().get(0).highWatermark()).isEqualTo(v >= 18 ? 1_190L : Long.MAX_VALUE);
            assertThat(read.forgottenTopicsData()).hasSize(v >= 7 ? 1 : 0);
            assertThat(read.rackId()).isEqualTo(v >= 11 ? "eu-west-1a" : "");
        }
    }

    /** What kflux sends: a consumer, so replica/follower fields stay at their defaults (tagged ones are then not written). */
    @Test
    void consumerRequestWithDefaultsMatchesOfficialBytesInEveryVersion() {
        for (short v = FetchRequest.SPEC.lowestVersion(); v <= FetchRequest.SPEC.highestVersion(); v++) {
            FetchRequest ours = new FetchRequest(null, FetchRequest.CONSUMER_REPLICA_ID, ReplicaState.CONSUMER, 500, 1,
                    Integer.MAX_VALUE, (byte) 0, 0, FetchRequest.FINAL_SESSION_EPOCH,
                    List.of(new FetchTopic("orders", ORDERS_ID, List.of(new FetchPartition(0, -1, 42L, -1, -1L,
                            1_048_576, Types.ZERO_UUID, FetchRequest.HIGH_WATERMARK_UNSUPPORTED)))),
                    List.of(), "");
            FetchRequestData official = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1);
            official.topics().add(officialTopic(v, "orders", ORDERS_ID, new FetchRequestData.FetchPartition()
                    .setPartition(0).setFetchOffset(42L).setPartitionMaxBytes(1_048_576)));
            short version = v;
            OracleCodec.assertSameBytes(FetchRequest.SPEC, ours, official, v, a -> new FetchRequestData(a, version));
        }
    }

    // ---------------------------------------------------------------- response

    /**
     * With {@code bothNames}, topics carry both their name and id (as callers do; the version picks);
     * without, only what the version has (as a read gives).
     */
    static FetchResponse ourResponse(short v, boolean bothNames) {
        boolean tagged = v >= 12;
        boolean names = bothNames || v <= 12;
        boolean ids = bothNames || v >= 13;
        return new FetchResponse(30, (short) 0, v >= 7 ? 987_654 : 0, List.of(
                new FetchableTopicResponse(names ? "orders" : "", ids ? ORDERS_ID : Types.ZERO_UUID, List.of(
                        new PartitionData(0, (short) 0, 1_200L, 1_190L, v >= 5 ? 10L : -1L, EpochEndOffset.NONE,
                                LeaderIdAndEpoch.NONE, SnapshotId.NONE,
                                List.of(new AbortedTransaction(7_001L, 1_150L), new AbortedTransaction(7_002L, 1_160L)),
                                v >= 11 ? 3 : -1, buf(ORDERS_RECORDS)),
                        new PartitionData(1, (short) 6, -1L, -1L, -1L,
                                tagged ? new EpochEndOffset(4, 880L) : EpochEndOffset.NONE,
                                tagged ? new LeaderIdAndEpoch(2, 9) : LeaderIdAndEpoch.NONE,
                                tagged ? new SnapshotId(760L, 3) : SnapshotId.NONE,
                                null, -1, Unpooled.EMPTY_BUFFER))),
                new FetchableTopicResponse(names ? "payments" : "", ids ? PAYMENTS_ID : Types.ZERO_UUID, List.of(
                        new PartitionData(2, (short) 0, 5_001L, 5_001L, v >= 5 ? 5_000L : -1L, EpochEndOffset.NONE,
                                LeaderIdAndEpoch.NONE, SnapshotId.NONE, List.of(), -1, buf(PAYMENTS_RECORDS))))),
                v >= 16 ? List.of(new NodeEndpoint(2, "broker-2.kafka.local", 9093, "eu-west-1b"),
                        new NodeEndpoint(3, "broker-3.kafka.local", 9094, null)) : List.of());
    }

    static FetchResponseData officialResponse(short v) {
        FetchResponseData d = new FetchResponseData().setThrottleTimeMs(30);
        if (v >= 7) {
            d.setErrorCode((short) 0).setSessionId(987_654);
        }
        FetchResponseData.PartitionData p0 = new FetchResponseData.PartitionData().setPartitionIndex(0)
                .setErrorCode((short) 0).setHighWatermark(1_200L).setLastStableOffset(1_190L)
                .setAbortedTransactions(new ArrayList<>(List.of(
                        new FetchResponseData.AbortedTransaction().setProducerId(7_001L).setFirstOffset(1_150L),
                        new FetchResponseData.AbortedTransaction().setProducerId(7_002L).setFirstOffset(1_160L))))
                .setRecords(ORDERS_RECORDS);
        FetchResponseData.PartitionData p1 = new FetchResponseData.PartitionData().setPartitionIndex(1)
                .setErrorCode((short) 6).setHighWatermark(-1L).setLastStableOffset(-1L).setLogStartOffset(-1L)
                .setAbortedTransactions(null).setRecords(MemoryRecords.EMPTY);
        FetchResponseData.PartitionData p2 = new FetchResponseData.PartitionData().setPartitionIndex(2)
                .setErrorCode((short) 0).setHighWatermark(5_001L).setLastStableOffset(5_001L)
                .setAbortedTransactions(new ArrayList<>()).setRecords(PAYMENTS_RECORDS);
        if (v >= 5) {
            p0.setLogStartOffset(10L);
            p2.setLogStartOffset(5_000L);
        }
        if (v >= 11) {
            p0.setPreferredReadReplica(3);
        }
        if (v >= 12) {
            p1.setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(4).setEndOffset(880L))
                    .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(2).setLeaderEpoch(9))
                    .setSnapshotId(new FetchResponseData.SnapshotId().setEndOffset(760L).setEpoch(3));
        }
        FetchResponseData.FetchableTopicResponse orders = new FetchResponseData.FetchableTopicResponse()
                .setPartitions(new ArrayList<>(List.of(p0, p1)));
        FetchResponseData.FetchableTopicResponse payments = new FetchResponseData.FetchableTopicResponse()
                .setPartitions(new ArrayList<>(List.of(p2)));
        if (v >= 13) {
            orders.setTopicId(official(ORDERS_ID));
            payments.setTopicId(official(PAYMENTS_ID));
        } else {
            orders.setTopic("orders");
            payments.setTopic("payments");
        }
        d.responses().add(orders);
        d.responses().add(payments);
        if (v >= 16) {
            d.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(2).setHost("broker-2.kafka.local")
                    .setPort(9093).setRack("eu-west-1b"));
            d.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(3).setHost("broker-3.kafka.local")
                    .setPort(9094).setRack(null));
        }
        return d;
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v = FetchResponse.SPEC.lowestVersion(); v <= FetchResponse.SPEC.highestVersion(); v++) {
            short version = v;
            for (boolean bothNames : new boolean[] {true, false}) {
                FetchResponse ours = ourResponse(v, bothNames);
                OracleCodec.assertSameBytes(FetchResponse.SPEC, ours, officialResponse(v), v,
                        a -> new FetchResponseData(a, version));
                ours.release();
            }
        }
    }

    @Test
    void responseReadYieldsRetainedSlicesOfTheFrameWithTheRecordBatchBytes() {
        for (short v = FetchResponse.SPEC.lowestVersion(); v <= FetchResponse.SPEC.highestVersion(); v++) {
            byte[] bytes = OracleCodec.officialBytes(officialResponse(v), v);
            ByteBuf frame = Unpooled.wrappedBuffer(bytes);
            FetchResponse read = FetchResponse.SPEC.read(frame, v);
            assertThat(frame.isReadable()).isFalse();

            FetchResponse expected = ourResponse(v, false);
            assertThat(read).isEqualTo(expected); // ByteBuf equality is content equality
            expected.release();

            PartitionData p0 = read.responses().get(0).partitions().get(0);
            PartitionData p1 = read.responses().get(0).partitions().get(1);
            PartitionData p2 = read.responses().get(1).partitions().get(0);
            assertThat(readableBytesOf(p0.records())).isEqualTo(bytesOf(ORDERS_RECORDS));
            assertThat(readableBytesOf(p2.records())).isEqualTo(bytesOf(PAYMENTS_RECORDS));
            assertThat(p1.records().readableBytes()).isZero();
            assertThat(p1.abortedTransactions()).isNull();
            assertThat(p2.abortedTransactions()).isEmpty();
            // a slice, not a copy: same backing array as the frame
            assertThat(p0.records().hasArray()).isTrue();
            assertThat(p0.records().array()).isSameAs(bytes);

            // the records decode with the official reader
            List<String> keys = new ArrayList<>();
            for (Record r : MemoryRecords.readableRecords(p0.records().nioBuffer()).records()) {
                keys.add(r.hasKey() ? StandardCharsets.UTF_8.decode(r.key()).toString() : null);
            }
            assertThat(keys).containsExactly("order-1", "order-2", null);

            // two non-empty record sets retained the frame; release() gives them back
            assertThat(frame.refCnt()).isEqualTo(3);
            read.release();
            assertThat(frame.refCnt()).isEqualTo(1);
            assertThat(frame.release()).isTrue();
        }
    }

    @Test
    void absentTaggedAndVersionedFieldsReadAsTheOfficialDefaults() {
        short v = 11;
        FetchResponse read = FetchResponse.SPEC.read(Unpooled.wrappedBuffer(
                OracleCodec.officialBytes(officialResponse(v), v)), v);
        PartitionData p1 = read.responses().get(0).partitions().get(1);
        FetchResponseData.PartitionData defaults = new FetchResponseData.PartitionData();
        assertThat(p1.divergingEpoch().epoch()).isEqualTo(defaults.divergingEpoch().epoch());
        assertThat(p1.divergingEpoch().endOffset()).isEqualTo(defaults.divergingEpoch().endOffset());
        assertThat(p1.currentLeader()).isEqualTo(new LeaderIdAndEpoch(defaults.currentLeader().leaderId(),
                defaults.currentLeader().leaderEpoch()));
        assertThat(p1.snapshotId()).isEqualTo(new SnapshotId(defaults.snapshotId().endOffset(), defaults.snapshotId().epoch()));
        assertThat(read.responses().get(0).topicId()).isEqualTo(Types.ZERO_UUID);
        assertThat(read.nodeEndpoints()).isEmpty();
        read.release();

        FetchResponse v4 = FetchResponse.SPEC.read(Unpooled.wrappedBuffer(
                OracleCodec.officialBytes(officialResponse((short) 4), (short) 4)), (short) 4);
        PartitionData p0 = v4.responses().get(0).partitions().get(0);
        assertThat(p0.logStartOffset()).isEqualTo(defaults.logStartOffset()).isEqualTo(-1L);
        assertThat(p0.preferredReadReplica()).isEqualTo(defaults.preferredReadReplica()).isEqualTo(-1);
        assertThat(v4.sessionId()).isZero();
        v4.release();
    }

    @Test
    void topLevelErrorWithoutTopics() {
        for (short v = 7; v <= FetchResponse.SPEC.highestVersion(); v++) {
            FetchResponse ours = new FetchResponse(0, (short) 70, 0, List.of(), List.of()); // FETCH_SESSION_ID_NOT_FOUND
            FetchResponseData official = new FetchResponseData().setErrorCode((short) 70).setSessionId(0);
            short version = v;
            OracleCodec.assertSameBytes(FetchResponse.SPEC, ours, official, v, a -> new FetchResponseData(a, version));
        }
    }

    @Test
    void nullRecordSetReadsAsAnEmptyBuffer() {
        FetchResponseData official = new FetchResponseData();
        official.responses().add(new FetchResponseData.FetchableTopicResponse().setTopicId(official(ORDERS_ID))
                .setPartitions(new ArrayList<>(List.of(new FetchResponseData.PartitionData().setPartitionIndex(0)
                        .setRecords(null)))));
        FetchResponse read = OracleCodec.kfluxRead(FetchResponse.SPEC, OracleCodec.officialBytes(official, (short) 18), (short) 18);
        assertThat(read.responses().get(0).partitions().get(0).records().readableBytes()).isZero();
        read.release();
    }

    @Test
    void truncatedResponseIsMalformedAtEveryCutPoint() {
        for (short v : new short[] {4, 5, 7, 11, 12, 13, 16, 18}) {
            byte[] bytes = OracleCodec.officialBytes(officialResponse(v), v);
            for (int cut = 0; cut < bytes.length; cut++) {
                ByteBuf frame = Unpooled.wrappedBuffer(bytes, 0, cut);
                short version = v;
                Throwable thrown = catchThrowable(() -> FetchResponse.SPEC.read(frame, version));
                assertThat(thrown).as("v%d cut at %d of %d", v, cut, bytes.length)
                        .isInstanceOf(MalformedMessageException.class);
            }
        }
    }

    @Test
    void truncatedRequestIsMalformedAtEveryCutPoint() {
        for (short v : new short[] {4, 12, 13, 18}) {
            byte[] bytes = OracleCodec.officialBytes(officialFullRequest(v), v);
            for (int cut = 0; cut < bytes.length; cut++) {
                short version = v;
                int c = cut;
                assertThatThrownBy(() -> FetchRequest.SPEC.read(Unpooled.wrappedBuffer(bytes, 0, c), version))
                        .as("v%d cut at %d", v, cut).isInstanceOf(MalformedMessageException.class);
            }
        }
    }

    /**
     * A response that fails part-way must not keep the frame retained by the record slices it had
     * already read.
     */
    @Test
    void failedReadReleasesTheRecordSlicesAlreadyRead() {
        short v = 18;
        byte[] bytes = OracleCodec.officialBytes(officialResponse(v), v);
        for (int cut = 0; cut < bytes.length; cut++) {
            ByteBuf frame = Unpooled.wrappedBuffer(bytes, 0, cut);
            catchThrowable(() -> FetchResponse.SPEC.read(frame, v));
            assertThat(frame.refCnt()).as("cut at %d", cut).isEqualTo(1);
        }
    }

    private static byte[] readableBytesOf(ByteBuf b) {
        return io.netty.buffer.ByteBufUtil.getBytes(b);
    }
}
