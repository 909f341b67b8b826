package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BOOLEAN;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.INT64;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/** ApiVersions response: the version range the broker supports per API key, plus features (tagged, v3+). */
public record ApiVersionsResponse(short errorCode, List<ApiVersion> apiKeys, int throttleTimeMs,
                                  List<SupportedFeatureKey> supportedFeatures, long finalizedFeaturesEpoch,
                                  List<FinalizedFeatureKey> finalizedFeatures, boolean zkMigrationReady) {

    public record ApiVersion(short apiKey, short minVersion, short maxVersion) {
        static final Schema<ApiVersion> SCHEMA = Schema.of(ApiVersion.class,
                field("apiKey", INT16), field("minVersion", INT16), field("maxVersion", INT16));
    }

    public record SupportedFeatureKey(String name, short minVersion, short maxVersion) {
        static final Schema<SupportedFeatureKey> SCHEMA = Schema.of(SupportedFeatureKey.class,
                field("name", STRING), field("minVersion", INT16), field("maxVersion", INT16));
    }

    public record FinalizedFeatureKey(String name, short maxVersionLevel, short minVersionLevel) {
        static final Schema<FinalizedFeatureKey> SCHEMA = Schema.of(FinalizedFeatureKey.class,
                field("name", STRING), field("maxVersionLevel", INT16), field("minVersionLevel", INT16));
    }

    public static final MessageSpec<ApiVersionsResponse> SPEC = MessageSpec.of(ApiKey.API_VERSIONS, 0, 5, 3,
            Schema.of(ApiVersionsResponse.class,
                    field("errorCode", INT16),
                    field("apiKeys", array(ApiVersion.SCHEMA)),
                    field("throttleTimeMs", INT32).versions(1),
                    field("supportedFeatures", array(SupportedFeatureKey.SCHEMA)).versions(3).tag(0),
                    field("finalizedFeaturesEpoch", INT64).versions(3).tag(1).defaultValue(-1L),
                    field("finalizedFeatures", array(FinalizedFeatureKey.SCHEMA)).versions(3).tag(2),
                    field("zkMigrationReady", BOOLEAN).versions(3).tag(3)));

    /** The broker's range for {@code key}, or null when it does not support that API. */
    public ApiVersion find(ApiKey key) {
        for (ApiVersion v : apiKeys) {
            if (v.apiKey() == key.id) {
                return v;
            }
        }
        return null;
    }
}
