package io.kflux.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.OffsetForLeaderEpochRequest.OffsetForLeaderPartition;
import io.kflux.protocol.message.OffsetForLeaderEpochRequest.OffsetForLeaderTopic;
import io.kflux.protocol.message.OffsetForLeaderEpochResponse.EpochEndOffset;
import io.kflux.protocol.message.OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult;
import java.util.List;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.junit.jupiter.api.Test;

class OffsetForLeaderEpochCodecTest {

    @Test
    void specRangeIsTheOfficialOne() {
        assertThat(OffsetForLeaderEpochRequest.SPEC.lowestVersion())
                .isEqualTo(new OffsetForLeaderEpochRequestData().lowestSupportedVersion());
        assertThat(OffsetForLeaderEpochRequest.SPEC.highestVersion())
                .isEqualTo(new OffsetForLeaderEpochRequestData().highestSupportedVersion());
        assertThat(OffsetForLeaderEpochResponse.SPEC.highestVersion())
                .isEqualTo(new OffsetForLeaderEpochResponseData().highestSupportedVersion());
    }

    static OffsetForLeaderEpochRequest ourRequest(short v) {
        return new OffsetForLeaderEpochRequest(v >= 3 ? OffsetForLeaderEpochRequest.CONSUMER_REPLICA_ID : -2, List.of(
                new OffsetForLeaderTopic("orders", List.of(new OffsetForLeaderPartition(0, 7, 5),
                        new OffsetForLeaderPartition(4, 3, 3))),
                new OffsetForLeaderTopic("payments", List.of(new OffsetForLeaderPartition(1, 12, 11)))));
    }

    static OffsetForLeaderEpochRequestData officialRequest(short v) {
        OffsetForLeaderEpochRequestData d = new OffsetForLeaderEpochRequestData();
        if (v >= 3) {
            d.setReplicaId(-1);
        }
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopic orders = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic()
                .setTopic("orders");
        orders.partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0)
                .setCurrentLeaderEpoch(7).setLeaderEpoch(5));
        orders.partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(4)
                .setCurrentLeaderEpoch(3).setLeaderEpoch(3));
        d.topics().add(orders);
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopic payments = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic()
                .setTopic("payments");
        payments.partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(1)
                .setCurrentLeaderEpoch(12).setLeaderEpoch(11));
        d.topics().add(payments);
        return d;
    }

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v = OffsetForLeaderEpochRequest.SPEC.lowestVersion(); v <= OffsetForLeaderEpochRequest.SPEC.highestVersion(); v++) {
            short version = v;
            OracleCodec.assertSameBytes(OffsetForLeaderEpochRequest.SPEC, ourRequest(v), officialRequest(v), v,
                    a -> new OffsetForLeaderEpochRequestData(a, version));
            assertThat(OracleCodec.kfluxRead(OffsetForLeaderEpochRequest.SPEC,
                    OracleCodec.officialBytes(officialRequest(v), v), v)).isEqualTo(ourRequest(v));
        }
    }

    @Test
    void replicaIdAbsentInV2ReadsAsTheSpecDefault() {
        OffsetForLeaderEpochRequest read = OracleCodec.kfluxRead(OffsetForLeaderEpochRequest.SPEC,
                OracleCodec.officialBytes(officialRequest((short) 2), (short) 2), (short) 2);
        assertThat(read.replicaId()).isEqualTo(new OffsetForLeaderEpochRequestData().replicaId()).isEqualTo(-2);
    }

    static OffsetForLeaderEpochResponse ourResponse(short v) {
        return new OffsetForLeaderEpochResponse(15, List.of(
                new OffsetForLeaderTopicResult("orders", List.of(new EpochEndOffset((short) 0, 0, 5, 1_234L),
                        new EpochEndOffset((short) 74, 4, -1, -1L))),
                new OffsetForLeaderTopicResult("payments", List.of(new EpochEndOffset((short) 0, 1, 11, 99_000L)))));
    }

    static OffsetForLeaderEpochResponseData officialResponse(short v) {
        OffsetForLeaderEpochResponseData d = new OffsetForLeaderEpochResponseData().setThrottleTimeMs(15);
        OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult orders = new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult()
                .setTopic("orders");
        orders.partitions().add(new OffsetForLeaderEpochResponseData.EpochEndOffset().setErrorCode((short) 0)
                .setPartition(0).setLeaderEpoch(5).setEndOffset(1_234L));
        orders.partitions().add(new OffsetForLeaderEpochResponseData.EpochEndOffset().setErrorCode((short) 74)
                .setPartition(4).setLeaderEpoch(-1).setEndOffset(-1L));
        d.topics().add(orders);
        OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult payments = new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult()
                .setTopic("payments");
        payments.partitions().add(new OffsetForLeaderEpochResponseData.EpochEndOffset().setErrorCode((short) 0)
                .setPartition(1).setLeaderEpoch(11).setEndOffset(99_000L));
        d.topics().add(payments);
        return d;
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v = OffsetForLeaderEpochResponse.SPEC.lowestVersion(); v <= OffsetForLeaderEpochResponse.SPEC.highestVersion(); v++) {
            short version = v;
            OracleCodec.assertSameBytes(OffsetForLeaderEpochResponse.SPEC, ourResponse(v), officialResponse(v), v,
                    a -> new OffsetForLeaderEpochResponseData(a, version));
            assertThat(OracleCodec.kfluxRead(OffsetForLeaderEpochResponse.SPEC,
                    OracleCodec.officialBytes(officialResponse(v), v), v)).isEqualTo(ourResponse(v));
        }
    }
}
