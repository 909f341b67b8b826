package io.kflux.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.Types;
import io.kflux.protocol.message.MetadataRequest.MetadataRequestTopic;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseBroker;
import io.kflux.protocol.message.MetadataResponse.MetadataResponsePartition;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseTopic;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.junit.jupiter.api.Test;

class MetadataCodecTest {
    private static final UUID ORDERS_ID = UUID.fromString("5b0d6c1e-93a4-4f1a-8a55-2f1e9d0a7c11");
    private static final UUID PAYMENTS_ID = UUID.fromString("0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b");

    static Uuid official(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    @Test
    void specRangeIsTheBrokers() {
        assertThat(MetadataRequest.SPEC.lowestVersion()).isEqualTo((short) 0);
        assertThat(MetadataRequest.SPEC.highestVersion()).isEqualTo(new MetadataRequestData().highestSupportedVersion());
        assertThat(MetadataResponse.SPEC.highestVersion()).isEqualTo(new MetadataResponseData().highestSupportedVersion());
        assertThat(MetadataRequest.SPEC.lowestVersion()).isEqualTo(new MetadataRequestData().lowestSupportedVersion());
    }

    @Test
    void requestWithNamedTopicsMatchesOfficialBytesInEveryVersion() {
        for (short v = MetadataRequest.SPEC.lowestVersion(); v <= MetadataRequest.SPEC.highestVersion(); v++) {
            boolean ids = v >= 10;
            MetadataRequest ours = new MetadataRequest(List.of(
                    new MetadataRequestTopic(ids ? ORDERS_ID : Types.ZERO_UUID, "orders"),
                    new MetadataRequestTopic(ids ? PAYMENTS_ID : Types.ZERO_UUID, "payments")),
                    false, v >= 8 && v <= 10, v >= 8);
            MetadataRequestData official = new MetadataRequestData();
            List<MetadataRequestData.MetadataRequestTopic> topics = new ArrayList<>();
            topics.add(new MetadataRequestData.MetadataRequestTopic().setName("orders")
                    .setTopicId(ids ? official(ORDERS_ID) : Uuid.ZERO_UUID));
            topics.add(new MetadataRequestData.MetadataRequestTopic().setName("payments")
                    .setTopicId(ids ? official(PAYMENTS_ID) : Uuid.ZERO_UUID));
            official.setTopics(topics);
            if (v >= 4) {
                official.setAllowAutoTopicCreation(false);
            }
            if (v >= 8 && v <= 10) {
                official.setIncludeClusterAuthorizedOperations(true);
            }
            if (v >= 8) {
                official.setIncludeTopicAuthorizedOperations(true);
            }
            short version = v;
            OracleCodec.assertSameBytes(MetadataRequest.SPEC, ours, official, v, a -> new MetadataRequestData(a, version));
        }
    }

    @Test
    void requestForAllTopicsIsANullArrayFromV1AndNoTopicsIsEmpty() {
        for (short v = 1; v <= MetadataRequest.SPEC.highestVersion(); v++) {
            short version = v;
            MetadataRequestData all = new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(v < 4);
            OracleCodec.assertSameBytes(MetadataRequest.SPEC, new MetadataRequest(null, v < 4, false, false), all, v,
                    a -> new MetadataRequestData(a, version));
            assertThat(OracleCodec.kfluxRead(MetadataRequest.SPEC, OracleCodec.officialBytes(all, v), v).topics()).isNull();

            MetadataRequestData none = new MetadataRequestData().setTopics(new ArrayList<>()).setAllowAutoTopicCreation(true);
            OracleCodec.assertSameBytes(MetadataRequest.SPEC, new MetadataRequest(List.of(), true, false, false), none, v,
                    a -> new MetadataRequestData(a, version));
            assertThat(OracleCodec.kfluxRead(MetadataRequest.SPEC, OracleCodec.officialBytes(none, v), v).topics()).isEmpty();
        }
        assertThat(MetadataRequest.allTopics().topics()).isNull();
        assertThat(MetadataRequest.forTopics(List.of("a")).topics()).containsExactly(MetadataRequestTopic.byName("a"));
    }

    @Test
    void requestByTopicIdWithNullNameFromV12() {
        for (short v = 12; v <= MetadataRequest.SPEC.highestVersion(); v++) {
            MetadataRequest ours = new MetadataRequest(List.of(MetadataRequestTopic.byId(ORDERS_ID),
                    MetadataRequestTopic.byName("payments")), false, false, false);
            List<MetadataRequestData.MetadataRequestTopic> topics = new ArrayList<>();
            topics.add(new MetadataRequestData.MetadataRequestTopic().setTopicId(official(ORDERS_ID)).setName(null));
            topics.add(new MetadataRequestData.MetadataRequestTopic().setName("payments"));
            MetadataRequestData official = new MetadataRequestData().setTopics(topics).setAllowAutoTopicCreation(false);
            short version = v;
            OracleCodec.assertSameBytes(MetadataRequest.SPEC, ours, official, v, a -> new MetadataRequestData(a, version));
            MetadataRequest read = OracleCodec.kfluxRead(MetadataRequest.SPEC, OracleCodec.officialBytes(official, v), v);
            assertThat(read.topics().get(0).name()).isNull();
            assertThat(read.topics().get(0).topicId()).isEqualTo(ORDERS_ID);
        }
    }

    @Test
    void absentFieldsReadAsTheOfficialDefaults() {
        MetadataRequest read = OracleCodec.kfluxRead(MetadataRequest.SPEC,
                OracleCodec.officialBytes(new MetadataRequestData(), (short) 3), (short) 3);
        MetadataRequestData officialRead = new MetadataRequestData(new org.apache.kafka.common.protocol.ByteBufferAccessor(
                java.nio.ByteBuffer.wrap(OracleCodec.officialBytes(new MetadataRequestData(), (short) 3))), (short) 3);
        assertThat(read.allowAutoTopicCreation()).isEqualTo(officialRead.allowAutoTopicCreation()).isTrue();

        MetadataResponse response = OracleCodec.kfluxRead(MetadataResponse.SPEC,
                OracleCodec.officialBytes(new MetadataResponseData(), (short) 0), (short) 0);
        MetadataResponseData defaults = new MetadataResponseData();
        assertThat(response.controllerId()).isEqualTo(defaults.controllerId()).isEqualTo(-1);
        assertThat(response.clusterId()).isEqualTo(defaults.clusterId()).isNull();
        assertThat(response.clusterAuthorizedOperations()).isEqualTo(defaults.clusterAuthorizedOperations());
    }

    static MetadataResponse ourResponse(short v) {
        boolean ids = v >= 10;
        return new MetadataResponse(v >= 3 ? 25 : 0,
                List.of(new MetadataResponseBroker(1, "broker-1.kafka.local", 9092, v >= 1 ? "eu-west-1a" : null),
                        new MetadataResponseBroker(2, "broker-2.kafka.local", 9093, null)),
                v >= 2 ? "MkU3OEVBNTcwNTJENDM2Qk" : null,
                v >= 1 ? 2 : -1,
                List.of(new MetadataResponseTopic((short) 0, "orders", ids ? ORDERS_ID : Types.ZERO_UUID, false,
                                List.of(new MetadataResponsePartition((short) 0, 0, 1, v >= 7 ? 17 : -1,
                                                List.of(1, 2, 3), List.of(1, 2), v >= 5 ? List.of(3) : List.of()),
                                        new MetadataResponsePartition((short) 5, 1, -1, v >= 7 ? 4 : -1,
                                                List.of(2, 3), List.of(), List.of())),
                                v >= 8 ? 0b1011_1000 : Integer.MIN_VALUE),
                        new MetadataResponseTopic((short) 0, "__consumer_offsets", ids ? PAYMENTS_ID : Types.ZERO_UUID,
                                v >= 1, List.of(new MetadataResponsePartition((short) 0, 0, 2, v >= 7 ? 1 : -1,
                                List.of(2), List.of(2), List.of())), v >= 8 ? 0 : Integer.MIN_VALUE)),
                v >= 8 && v <= 10 ? 0b1111_1000 : Integer.MIN_VALUE,
                (short) 0);
    }

    static MetadataResponseData officialResponse(short v) {
        boolean ids = v >= 10;
        MetadataResponseData official = new MetadataResponseData();
        if (v >= 3) {
            official.setThrottleTimeMs(25);
        }
        official.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(1)
                .setHost("broker-1.kafka.local").setPort(9092).setRack(v >= 1 ? "eu-west-1a" : null));
        official.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(2)
                .setHost("broker-2.kafka.local").setPort(9093).setRack(null));
        if (v >= 2) {
            official.setClusterId("MkU3OEVBNTcwNTJENDM2Qk");
        }
        if (v >= 1) {
            official.setControllerId(2);
        }
        MetadataResponseData.MetadataResponseTopic orders = new MetadataResponseData.MetadataResponseTopic()
                .setErrorCode((short) 0).setName("orders").setTopicId(ids ? official(ORDERS_ID) : Uuid.ZERO_UUID)
                .setIsInternal(false);
        orders.partitions().add(new MetadataResponseData.MetadataResponsePartition().setErrorCode((short) 0)
                .setPartitionIndex(0).setLeaderId(1).setLeaderEpoch(v >= 7 ? 17 : -1)
                .setReplicaNodes(List.of(1, 2, 3)).setIsrNodes(List.of(1, 2))
                .setOfflineReplicas(v >= 5 ? List.of(3) : List.of()));
        orders.partitions().add(new MetadataResponseData.MetadataResponsePartition().setErrorCode((short) 5)
                .setPartitionIndex(1).setLeaderId(-1).setLeaderEpoch(v >= 7 ? 4 : -1)
                .setReplicaNodes(List.of(2, 3)).setIsrNodes(List.of()).setOfflineReplicas(List.of()));
        if (v >= 8) {
            orders.setTopicAuthorizedOperations(0b1011_1000);
        }
        official.topics().add(orders);
        MetadataResponseData.MetadataResponseTopic offsets = new MetadataResponseData.MetadataResponseTopic()
                .setErrorCode((short) 0).setName("__consumer_offsets")
                .setTopicId(ids ? official(PAYMENTS_ID) : Uuid.ZERO_UUID).setIsInternal(v >= 1);
        offsets.partitions().add(new MetadataResponseData.MetadataResponsePartition().setErrorCode((short) 0)
                .setPartitionIndex(0).setLeaderId(2).setLeaderEpoch(v >= 7 ? 1 : -1)
                .setReplicaNodes(List.of(2)).setIsrNodes(List.of(2)).setOfflineReplicas(List.of()));
        if (v >= 8) {
            offsets.setTopicAuthorizedOperations(0);
        }
        official.topics().add(offsets);
        if (v >= 8 && v <= 10) {
            official.setClusterAuthorizedOperations(0b1111_1000);
        }
        return official;
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v = MetadataResponse.SPEC.lowestVersion(); v <= MetadataResponse.SPEC.highestVersion(); v++) {
            short version = v;
            OracleCodec.assertSameBytes(MetadataResponse.SPEC, ourResponse(v), officialResponse(v), v,
                    a -> new MetadataResponseData(a, version));
            MetadataResponse read = OracleCodec.kfluxRead(MetadataResponse.SPEC,
                    OracleCodec.officialBytes(officialResponse(v), v), v);
            assertThat(read).isEqualTo(ourResponse(v));
        }
    }

    @Test
    void responseTopLevelErrorCodeNullClusterIdAndUnknownTopicById() {
        for (short v = 12; v <= MetadataResponse.SPEC.highestVersion(); v++) {
            short error = v >= 13 ? (short) 129 : 0; // REBOOTSTRAP_REQUIRED
            MetadataResponse ours = new MetadataResponse(0, List.of(), null, -1,
                    List.of(new MetadataResponseTopic((short) 100, null, ORDERS_ID, false, List.of(),
                            Integer.MIN_VALUE)), Integer.MIN_VALUE, error);
            MetadataResponseData official = new MetadataResponseData().setClusterId(null).setControllerId(-1)
                    .setErrorCode(error);
            official.topics().add(new MetadataResponseData.MetadataResponseTopic().setErrorCode((short) 100)
                    .setName(null).setTopicId(official(ORDERS_ID)));
            short version = v;
            OracleCodec.assertSameBytes(MetadataResponse.SPEC, ours, official, v, a -> new MetadataResponseData(a, version));
            assertThat(OracleCodec.kfluxRead(MetadataResponse.SPEC, OracleCodec.officialBytes(official, v), v))
                    .isEqualTo(ours);
        }
    }
}
