package io.kflux.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.ApiVersionsResponse.ApiVersion;
import io.kflux.protocol.message.ApiVersionsResponse.FinalizedFeatureKey;
import io.kflux.protocol.message.ApiVersionsResponse.SupportedFeatureKey;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.junit.jupiter.api.Test;

class ApiVersionsCodecTest {

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v = ApiVersionsRequest.SPEC.lowestVersion(); v <= JsonOracle.TESTS.highestVersion("ApiVersionsRequest"); v++) {
            ApiVersionsRequest ours = v >= 3 ? new ApiVersionsRequest("kflux", "0.1.0") : new ApiVersionsRequest(null, null);
            ApiVersionsRequestData official = new ApiVersionsRequestData();
            if (v >= 3) {
                official.setClientSoftwareName("kflux").setClientSoftwareVersion("0.1.0");
            }
            short version = v;
            OracleCodec.assertSameBytes(ApiVersionsRequest.SPEC, ours, official, v,
                    a -> new ApiVersionsRequestData(a, version));
        }
    }

    /** v5 (KIP-1242, Kafka 4.4): the cluster and node the client means to reach, against kafka-clients 4.4.0. */
    @Test
    void clusterCheckFieldsMatchKafka44InEveryVersion() {
        assertThat(ApiVersionsRequest.SPEC.highestVersion()).isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("ApiVersionsRequest"));
        for (short v : JsonOracle.KAFKA_4_4.versions(ApiVersionsRequest.SPEC, "ApiVersionsRequest")) {
            boolean named = v >= 3;
            boolean checked = v >= ApiVersionsRequest.FIRST_CLUSTER_CHECK_VERSION;
            ApiVersionsRequest ours = new ApiVersionsRequest(named ? "kflux" : null, named ? "0.1.0" : null,
                    checked ? "MkU3OEVBNTcwNTJENDM2Qk" : null, checked ? 2 : -1);
            String json = (named ? "{\"clientSoftwareName\":\"kflux\",\"clientSoftwareVersion\":\"0.1.0\"%s}" : "{%s}")
                    .formatted(checked ? ",\"clusterId\":\"MkU3OEVBNTcwNTJENDM2Qk\",\"nodeId\":2" : "");
            JsonOracle.KAFKA_4_4.assertSameBytes(ApiVersionsRequest.SPEC, ours, "ApiVersionsRequest", json, v);
        }
        // no check asked: a null cluster id and node -1, as kafka-clients' defaults
        JsonOracle.KAFKA_4_4.assertSameBytes(ApiVersionsRequest.SPEC, new ApiVersionsRequest("kflux", "0.1.0"),
                "ApiVersionsRequest", "{\"clientSoftwareName\":\"kflux\",\"clientSoftwareVersion\":\"0.1.0\","
                        + "\"clusterId\":null,\"nodeId\":-1}", (short) 5);
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersionIncludingTaggedFeatures() {
        for (short v = ApiVersionsResponse.SPEC.lowestVersion(); v <= JsonOracle.TESTS.highestVersion("ApiVersionsResponse"); v++) {
            boolean flexible = v >= 3;
            ApiVersionsResponse ours = new ApiVersionsResponse((short) 0,
                    List.of(new ApiVersion((short) 1, (short) 4, (short) 17), new ApiVersion((short) 18, (short) 0, (short) 4)),
                    v >= 1 ? 12 : 0,
                    flexible ? List.of(new SupportedFeatureKey("kraft.version", (short) 0, (short) 1)) : List.of(),
                    flexible ? 7L : -1L,
                    flexible ? List.of(new FinalizedFeatureKey("metadata.version", (short) 27, (short) 27)) : List.of(),
                    false);
            ApiVersionsResponseData official = new ApiVersionsResponseData().setErrorCode((short) 0);
            official.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey((short) 1).setMinVersion((short) 4).setMaxVersion((short) 17));
            official.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey((short) 18).setMinVersion((short) 0).setMaxVersion((short) 4));
            if (v >= 1) {
                official.setThrottleTimeMs(12);
            }
            if (flexible) {
                official.supportedFeatures().add(new ApiVersionsResponseData.SupportedFeatureKey()
                        .setName("kraft.version").setMinVersion((short) 0).setMaxVersion((short) 1));
                official.setFinalizedFeaturesEpoch(7L);
                official.finalizedFeatures().add(new ApiVersionsResponseData.FinalizedFeatureKey()
                        .setName("metadata.version").setMaxVersionLevel((short) 27).setMinVersionLevel((short) 27));
            }
            short version = v;
            OracleCodec.assertSameBytes(ApiVersionsResponse.SPEC, ours, official, v,
                    a -> new ApiVersionsResponseData(a, version));
        }
    }

    /** v5's answer is v4's (KIP-1242 changed the request only); REBOOTSTRAP_REQUIRED is how a broker refuses. */
    @Test
    void responseV5MatchesKafka44() {
        assertThat(ApiVersionsResponse.SPEC.highestVersion()).isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("ApiVersionsResponse"));
        ApiVersionsResponse ours = new ApiVersionsResponse((short) 129, List.of(new ApiVersion((short) 18, (short) 0,
                (short) 5)), 0, List.of(), -1L, List.of(), false);
        JsonOracle.KAFKA_4_4.assertSameBytes(ApiVersionsResponse.SPEC, ours, "ApiVersionsResponse",
                "{\"errorCode\":129,\"apiKeys\":[{\"apiKey\":18,\"minVersion\":0,\"maxVersion\":5}],"
                        + "\"throttleTimeMs\":0,\"supportedFeatures\":[],\"finalizedFeaturesEpoch\":-1,"
                        + "\"finalizedFeatures\":[],\"zkMigrationReady\":false}", (short) 5);
    }

    @Test
    void unknownTaggedFieldsAreSkipped() {
        ApiVersionsResponseData official = new ApiVersionsResponseData().setErrorCode((short) 35);
        official.unknownTaggedFields().add(new org.apache.kafka.common.protocol.types.RawTaggedField(99, new byte[] {1, 2, 3}));
        byte[] bytes = OracleCodec.officialBytes(official, (short) 3);
        ApiVersionsResponse read = OracleCodec.kfluxRead(ApiVersionsResponse.SPEC, bytes, (short) 3);
        assertThat(read.errorCode()).isEqualTo((short) 35);
        assertThat(read.apiKeys()).isEmpty();
    }
}
