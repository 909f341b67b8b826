package io.kflux.protocol.message;

import static io.kflux.protocol.message.FetchCodecTest.bytes;
import static io.kflux.protocol.message.FetchCodecTest.bytesOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.FetchResponse.LeaderIdAndEpoch;
import io.kflux.protocol.message.FetchResponse.NodeEndpoint;
import io.kflux.protocol.message.ShareFetchRequest.FetchPartition;
import io.kflux.protocol.message.ShareFetchRequest.FetchTopic;
import io.kflux.protocol.message.ShareFetchRequest.ForgottenTopic;
import io.kflux.protocol.message.ShareFetchResponse.AcquiredRecords;
import io.kflux.protocol.message.ShareFetchResponse.PartitionData;
import io.kflux.protocol.message.ShareFetchResponse.ShareFetchableTopicResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * ShareFetch v1 against the tests' kafka-clients 4.1.1 and kafka-clients 4.4, v2 (which 4.1.1 lacks) against
 * 4.4 ({@link JsonOracle}).
 */
class ShareFetchCodecTest {
    private static final UUID JOBS_ID = UUID.fromString("5d6a1f3e-2b47-4c1a-9f0e-7c3b2a1d0e9f");
    private static final UUID MAIL_ID = UUID.fromString("00000000-0000-0001-0000-000000000002");
    private static final byte[] JOBS_RECORDS = bytesOf(MemoryRecords.withRecords(1_150L, Compression.NONE,
            new SimpleRecord(1_717_171_717_000L, bytes("job-1"), bytes("resize a.png")),
            new SimpleRecord(1_717_171_717_010L, bytes("job-2"), bytes("resize b.png"))));

    @Test
    void versionRangeIsTheNewestBrokersAndTheTestsClientLacksV2() {
        assertThat(ShareFetchRequest.SPEC.lowestVersion()).isEqualTo(JsonOracle.KAFKA_4_4.lowestVersion("ShareFetchRequest"));
        assertThat(ShareFetchRequest.SPEC.highestVersion()).isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("ShareFetchRequest"));
        assertThat(ShareFetchResponse.SPEC.lowestVersion()).isEqualTo(JsonOracle.KAFKA_4_4.lowestVersion("ShareFetchResponse"));
        assertThat(ShareFetchResponse.SPEC.highestVersion()).isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("ShareFetchResponse"));
        assertThat(JsonOracle.TESTS.highestVersion("ShareFetchRequest")).isEqualTo((short) 1);
    }

    @Test
    void requestWithAcknowledgementsAndForgottenPartitionsMatchesOfficialBytes() {
        for (JsonOracle oracle : List.of(JsonOracle.TESTS, JsonOracle.KAFKA_4_4)) {
            for (short v : oracle.versions(ShareFetchRequest.SPEC, "ShareFetchRequest")) {
                boolean renew = v >= 2;
                ShareFetchRequest ours = new ShareFetchRequest("workers", "Zr0YSzlPTSy8xqVj5gRnMg", 3, 500, 1, 52_428_800,
                        500, 500, renew ? ShareFetchRequest.ACQUIRE_RECORD_LIMIT : ShareFetchRequest.ACQUIRE_BATCH_OPTIMIZED,
                        renew, List.of(new FetchTopic(JOBS_ID, List.of(
                                new FetchPartition(0, List.of(new AcknowledgementBatch(100L, 109L, List.of((byte) 1)),
                                        new AcknowledgementBatch(110L, 113L, List.of((byte) 2, (byte) 0, (byte) 3,
                                                (byte) (renew ? 4 : 1))))),
                                new FetchPartition(1, List.of())))),
                        List.of(new ForgottenTopic(MAIL_ID, List.of(4, 5))));
                String json = """
                        {"groupId":"workers","memberId":"Zr0YSzlPTSy8xqVj5gRnMg","shareSessionEpoch":3,"maxWaitMs":500,
                         "minBytes":1,"maxBytes":52428800,"maxRecords":500,"batchSize":500,%s
                         "topics":[{"topicId":"%s","partitions":[
                           {"partitionIndex":0,"acknowledgementBatches":[
                             {"firstOffset":100,"lastOffset":109,"acknowledgeTypes":[1]},
                             {"firstOffset":110,"lastOffset":113,"acknowledgeTypes":[2,0,3,%d]}]},
                           {"partitionIndex":1,"acknowledgementBatches":[]}]}],
                         "forgottenTopicsData":[{"topicId":"%s","partitions":[4,5]}]}
                        """.formatted(renew ? "\"shareAcquireMode\":1,\"isRenewAck\":true," : "", JsonOracle.topicId(JOBS_ID),
                        renew ? 4 : 1, JsonOracle.topicId(MAIL_ID));
                oracle.assertSameBytes(ShareFetchRequest.SPEC, ours, "ShareFetchRequest", json, v);
            }
        }
    }

    @Test
    void openingAndClosingRequestsMatchOfficialBytes() {
        for (JsonOracle oracle : List.of(JsonOracle.TESTS, JsonOracle.KAFKA_4_4)) {
            for (short v : oracle.versions(ShareFetchRequest.SPEC, "ShareFetchRequest")) {
                ShareFetchRequest close = new ShareFetchRequest(null, "m", -1, 0, 0, Integer.MAX_VALUE, 0, 0, (byte) 0, false,
                        List.of(), List.of());
                oracle.assertSameBytes(ShareFetchRequest.SPEC, close, "ShareFetchRequest",
                        """
                        {"groupId":null,"memberId":"m","shareSessionEpoch":-1,"maxWaitMs":0,"minBytes":0,
                         "maxBytes":2147483647,"maxRecords":0,"batchSize":0,%s"topics":[],"forgottenTopicsData":[]}
                        """.formatted(v >= 2 ? "\"shareAcquireMode\":0,\"isRenewAck\":false," : ""), v);
            }
        }
    }

    @Test
    void responseWithAcquiredRecordsAndErrorsMatchesOfficialBytes() {
        for (JsonOracle oracle : List.of(JsonOracle.TESTS, JsonOracle.KAFKA_4_4)) {
            for (short v : oracle.versions(ShareFetchResponse.SPEC, "ShareFetchResponse")) {
                ShareFetchResponse ours = response();
                String json = """
                        {"throttleTimeMs":0,"errorCode":0,"errorMessage":null,"acquisitionLockTimeoutMs":30000,
                         "responses":[{"topicId":"%s","partitions":[
                           {"partitionIndex":0,"errorCode":0,"errorMessage":null,"acknowledgeErrorCode":0,
                            "acknowledgeErrorMessage":null,"currentLeader":{"leaderId":-1,"leaderEpoch":-1},
                            "records":"%s","acquiredRecords":[{"firstOffset":1150,"lastOffset":1150,"deliveryCount":1},
                                                              {"firstOffset":1151,"lastOffset":1151,"deliveryCount":3}]},
                           {"partitionIndex":1,"errorCode":6,"errorMessage":"not the leader","acknowledgeErrorCode":121,
                            "acknowledgeErrorMessage":"The record state is invalid.",
                            "currentLeader":{"leaderId":2,"leaderEpoch":7},"records":"","acquiredRecords":[]}]}],
                         "nodeEndpoints":[{"nodeId":2,"host":"broker-2","port":9092,"rack":"eu-west-1b"}]}
                        """.formatted(JsonOracle.topicId(JOBS_ID), Base64.getEncoder().encodeToString(JOBS_RECORDS));
                oracle.assertSameBytes(ShareFetchResponse.SPEC, ours, "ShareFetchResponse", json, v);
                ours.release();
            }
        }
    }

    @Test
    void responseRecordsAreReadAsSlicesTheReaderReleases() {
        ShareFetchResponse written = response();
        byte[] bytes = OracleCodec.kfluxBytes(ShareFetchResponse.SPEC, written, (short) 1);
        written.release();
        ByteBuf frame = Unpooled.wrappedBuffer(bytes);
        ShareFetchResponse read = ShareFetchResponse.SPEC.read(frame, (short) 1);
        PartitionData p0 = read.responses().get(0).partitions().get(0);
        byte[] records = new byte[p0.records().readableBytes()];
        p0.records().getBytes(p0.records().readerIndex(), records);
        assertThat(records).isEqualTo(JOBS_RECORDS);
        assertThat(p0.acquiredRecords()).containsExactly(new AcquiredRecords(1150L, 1150L, (short) 1),
                new AcquiredRecords(1151L, 1151L, (short) 3));
        assertThat(frame.refCnt()).isGreaterThan(1);
        read.release();
        assertThat(frame.refCnt()).isEqualTo(1);
    }

    private static ShareFetchResponse response() {
        return new ShareFetchResponse(0, (short) 0, null, 30_000, List.of(new ShareFetchableTopicResponse(JOBS_ID, List.of(
                new PartitionData(0, (short) 0, null, (short) 0, null, new LeaderIdAndEpoch(-1, -1),
                        Unpooled.wrappedBuffer(JOBS_RECORDS), List.of(new AcquiredRecords(1150L, 1150L, (short) 1),
                        new AcquiredRecords(1151L, 1151L, (short) 3))),
                new PartitionData(1, (short) 6, "not the leader", (short) 121, "The record state is invalid.",
                        new LeaderIdAndEpoch(2, 7), Unpooled.EMPTY_BUFFER, List.of())))),
                List.of(new NodeEndpoint(2, "broker-2", 9092, "eu-west-1b")));
    }
}
