package io.kflux.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.FetchResponse.LeaderIdAndEpoch;
import io.kflux.protocol.message.FetchResponse.NodeEndpoint;
import io.kflux.protocol.message.ShareAcknowledgeRequest.AcknowledgePartition;
import io.kflux.protocol.message.ShareAcknowledgeRequest.AcknowledgeTopic;
import io.kflux.protocol.message.ShareAcknowledgeResponse.PartitionData;
import io.kflux.protocol.message.ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * ShareAcknowledge v1 against the tests' kafka-clients 4.1.1 and kafka-clients 4.4, v2 (which 4.1.1 lacks)
 * against 4.4 ({@link JsonOracle}).
 */
class ShareAcknowledgeCodecTest {
    private static final UUID JOBS_ID = UUID.fromString("5d6a1f3e-2b47-4c1a-9f0e-7c3b2a1d0e9f");

    @Test
    void versionRangeIsTheNewestBrokersAndTheTestsClientLacksV2() {
        assertThat(ShareAcknowledgeRequest.SPEC.lowestVersion()).isEqualTo(JsonOracle.KAFKA_4_4.lowestVersion("ShareAcknowledgeRequest"));
        assertThat(ShareAcknowledgeRequest.SPEC.highestVersion()).isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("ShareAcknowledgeRequest"));
        assertThat(ShareAcknowledgeResponse.SPEC.lowestVersion()).isEqualTo(JsonOracle.KAFKA_4_4.lowestVersion("ShareAcknowledgeResponse"));
        assertThat(ShareAcknowledgeResponse.SPEC.highestVersion()).isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("ShareAcknowledgeResponse"));
        assertThat(JsonOracle.TESTS.highestVersion("ShareAcknowledgeRequest")).isEqualTo((short) 1);
    }

    @Test
    void requestMatchesOfficialBytes() {
        for (JsonOracle oracle : List.of(JsonOracle.TESTS, JsonOracle.KAFKA_4_4)) {
            for (short v : oracle.versions(ShareAcknowledgeRequest.SPEC, "ShareAcknowledgeRequest")) {
                boolean renew = v >= 2;
                ShareAcknowledgeRequest ours = new ShareAcknowledgeRequest("workers", "Zr0YSzlPTSy8xqVj5gRnMg", 4, renew,
                        List.of(new AcknowledgeTopic(JOBS_ID, List.of(new AcknowledgePartition(0, List.of(
                                new AcknowledgementBatch(100L, 100L, List.of((byte) 3)),
                                new AcknowledgementBatch(101L, 103L, List.of((byte) (renew ? 4 : 2), (byte) 0, (byte) 1))))))));
                String json = """
                        {"groupId":"workers","memberId":"Zr0YSzlPTSy8xqVj5gRnMg","shareSessionEpoch":4,%s
                         "topics":[{"topicId":"%s","partitions":[{"partitionIndex":0,"acknowledgementBatches":[
                           {"firstOffset":100,"lastOffset":100,"acknowledgeTypes":[3]},
                           {"firstOffset":101,"lastOffset":103,"acknowledgeTypes":[%d,0,1]}]}]}]}
                        """.formatted(renew ? "\"isRenewAck\":true," : "", JsonOracle.topicId(JOBS_ID), renew ? 4 : 2);
                oracle.assertSameBytes(ShareAcknowledgeRequest.SPEC, ours, "ShareAcknowledgeRequest", json, v);
            }
        }
    }

    @Test
    void responseMatchesOfficialBytes() {
        for (JsonOracle oracle : List.of(JsonOracle.TESTS, JsonOracle.KAFKA_4_4)) {
            for (short v : oracle.versions(ShareAcknowledgeResponse.SPEC, "ShareAcknowledgeResponse")) {
                int lock = v >= 2 ? 30_000 : 0;
                ShareAcknowledgeResponse ours = new ShareAcknowledgeResponse(0, (short) 0, null, lock, List.of(
                        new ShareAcknowledgeTopicResponse(JOBS_ID, List.of(
                                new PartitionData(0, (short) 0, null, new LeaderIdAndEpoch(-1, -1)),
                                new PartitionData(1, (short) 121, "The record state is invalid.", new LeaderIdAndEpoch(-1, -1)),
                                new PartitionData(2, (short) 6, null, new LeaderIdAndEpoch(3, 9))))),
                        List.of(new NodeEndpoint(3, "broker-3", 9094, null)));
                String json = """
                        {"throttleTimeMs":0,"errorCode":0,"errorMessage":null,%s"responses":[{"topicId":"%s","partitions":[
                           {"partitionIndex":0,"errorCode":0,"errorMessage":null,"currentLeader":{"leaderId":-1,"leaderEpoch":-1}},
                           {"partitionIndex":1,"errorCode":121,"errorMessage":"The record state is invalid.",
                            "currentLeader":{"leaderId":-1,"leaderEpoch":-1}},
                           {"partitionIndex":2,"errorCode":6,"errorMessage":null,"currentLeader":{"leaderId":3,"leaderEpoch":9}}]}],
                         "nodeEndpoints":[{"nodeId":3,"host":"broker-3","port":9094,"rack":null}]}
                        """.formatted(v >= 2 ? "\"acquisitionLockTimeoutMs\":30000," : "", JsonOracle.topicId(JOBS_ID));
                oracle.assertSameBytes(ShareAcknowledgeResponse.SPEC, ours, "ShareAcknowledgeResponse", json, v);
            }
        }
    }
}
