package io.kflux.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.ListOffsetsRequest.ListOffsetsPartition;
import io.kflux.protocol.message.ListOffsetsRequest.ListOffsetsTopic;
import io.kflux.protocol.message.ListOffsetsResponse.ListOffsetsPartitionResponse;
import io.kflux.protocol.message.ListOffsetsResponse.ListOffsetsTopicResponse;
import java.util.List;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.junit.jupiter.api.Test;

class ListOffsetsCodecTest {

    @Test
    void specRangeIsTheOfficialOne() {
        assertThat(ListOffsetsRequest.SPEC.lowestVersion()).isEqualTo(new ListOffsetsRequestData().lowestSupportedVersion());
        assertThat(ListOffsetsRequest.SPEC.highestVersion()).isEqualTo(new ListOffsetsRequestData().highestSupportedVersion());
        assertThat(ListOffsetsResponse.SPEC.lowestVersion()).isEqualTo(new ListOffsetsResponseData().lowestSupportedVersion());
        assertThat(ListOffsetsResponse.SPEC.highestVersion()).isEqualTo(new ListOffsetsResponseData().highestSupportedVersion());
    }

    static ListOffsetsRequest ourRequest(short v) {
        return new ListOffsetsRequest(ListOffsetsRequest.CONSUMER_REPLICA_ID,
                v >= 2 ? ListOffsetsRequest.READ_COMMITTED : 0,
                List.of(new ListOffsetsTopic("orders", List.of(
                                new ListOffsetsPartition(0, v >= 4 ? 12 : -1, ListOffsetsRequest.EARLIEST_TIMESTAMP),
                                new ListOffsetsPartition(3, v >= 4 ? 9 : -1, ListOffsetsRequest.LATEST_TIMESTAMP))),
                        new ListOffsetsTopic("payments", List.of(
                                new ListOffsetsPartition(1, v >= 4 ? 2 : -1, 1_717_171_717_000L),
                                new ListOffsetsPartition(2, -1, v >= 7 ? ListOffsetsRequest.MAX_TIMESTAMP : -1L))),
                        new ListOffsetsTopic("empty", List.of())),
                v >= 10 ? 30_000 : 0);
    }

    static ListOffsetsRequestData officialRequest(short v) {
        ListOffsetsRequestData d = new ListOffsetsRequestData().setReplicaId(-1);
        if (v >= 2) {
            d.setIsolationLevel((byte) 1);
        }
        d.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName("orders").setPartitions(List.of(
                new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0)
                        .setCurrentLeaderEpoch(v >= 4 ? 12 : -1).setTimestamp(-2L),
                new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(3)
                        .setCurrentLeaderEpoch(v >= 4 ? 9 : -1).setTimestamp(-1L))));
        d.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName("payments").setPartitions(List.of(
                new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(1)
                        .setCurrentLeaderEpoch(v >= 4 ? 2 : -1).setTimestamp(1_717_171_717_000L),
                new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(2)
                        .setCurrentLeaderEpoch(-1).setTimestamp(v >= 7 ? -3L : -1L))));
        d.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName("empty"));
        if (v >= 10) {
            d.setTimeoutMs(30_000);
        }
        return d;
    }

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v = ListOffsetsRequest.SPEC.lowestVersion(); v <= ListOffsetsRequest.SPEC.highestVersion(); v++) {
            short version = v;
            OracleCodec.assertSameBytes(ListOffsetsRequest.SPEC, ourRequest(v), officialRequest(v), v,
                    a -> new ListOffsetsRequestData(a, version));
            assertThat(OracleCodec.kfluxRead(ListOffsetsRequest.SPEC, OracleCodec.officialBytes(officialRequest(v), v), v))
                    .isEqualTo(ourRequest(v));
        }
    }

    static ListOffsetsResponse ourResponse(short v) {
        return new ListOffsetsResponse(v >= 2 ? 40 : 0, List.of(
                new ListOffsetsTopicResponse("orders", List.of(
                        new ListOffsetsPartitionResponse(0, (short) 0, -1L, 4711L, v >= 4 ? 12 : -1),
                        new ListOffsetsPartitionResponse(3, (short) 6, -1L, -1L, -1))),
                new ListOffsetsTopicResponse("payments", List.of(
                        new ListOffsetsPartitionResponse(1, (short) 0, 1_717_171_717_123L, 88L, v >= 4 ? 2 : -1),
                        new ListOffsetsPartitionResponse(2, (short) 78, -1L, -1L, -1)))));
    }

    static ListOffsetsResponseData officialResponse(short v) {
        ListOffsetsResponseData d = new ListOffsetsResponseData();
        if (v >= 2) {
            d.setThrottleTimeMs(40);
        }
        d.topics().add(new ListOffsetsResponseData.ListOffsetsTopicResponse().setName("orders").setPartitions(List.of(
                new ListOffsetsResponseData.ListOffsetsPartitionResponse().setPartitionIndex(0).setErrorCode((short) 0)
                        .setTimestamp(-1L).setOffset(4711L).setLeaderEpoch(v >= 4 ? 12 : -1),
                new ListOffsetsResponseData.ListOffsetsPartitionResponse().setPartitionIndex(3).setErrorCode((short) 6)
                        .setTimestamp(-1L).setOffset(-1L).setLeaderEpoch(-1))));
        d.topics().add(new ListOffsetsResponseData.ListOffsetsTopicResponse().setName("payments").setPartitions(List.of(
                new ListOffsetsResponseData.ListOffsetsPartitionResponse().setPartitionIndex(1).setErrorCode((short) 0)
                        .setTimestamp(1_717_171_717_123L).setOffset(88L).setLeaderEpoch(v >= 4 ? 2 : -1),
                new ListOffsetsResponseData.ListOffsetsPartitionResponse().setPartitionIndex(2).setErrorCode((short) 78)
                        .setTimestamp(-1L).setOffset(-1L).setLeaderEpoch(-1))));
        return d;
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v = ListOffsetsResponse.SPEC.lowestVersion(); v <= ListOffsetsResponse.SPEC.highestVersion(); v++) {
            short version = v;
            OracleCodec.assertSameBytes(ListOffsetsResponse.SPEC, ourResponse(v), officialResponse(v), v,
                    a -> new ListOffsetsResponseData(a, version));
            assertThat(OracleCodec.kfluxRead(ListOffsetsResponse.SPEC, OracleCodec.officialBytes(officialResponse(v), v), v))
                    .isEqualTo(ourResponse(v));
        }
    }

    @Test
    void absentLeaderEpochReadsAsMinusOneLikeTheOfficialClient() {
        ListOffsetsResponse read = OracleCodec.kfluxRead(ListOffsetsResponse.SPEC,
                OracleCodec.officialBytes(officialResponse((short) 3), (short) 3), (short) 3);
        assertThat(read.topics().get(0).partitions().get(0).leaderEpoch()).isEqualTo(-1);
        assertThat(new ListOffsetsResponseData.ListOffsetsPartitionResponse().leaderEpoch()).isEqualTo(-1);
    }
}
