package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;

/**
 * ApiVersions request (api key 18), versions 0-5, flexible from 3. Client software name/version exist from v3 on
 * (KIP-511). From v5 (Kafka 4.4, KIP-1242) the client may name the cluster and the node it means to reach: a broker
 * that is not that node of that cluster answers REBOOTSTRAP_REQUIRED instead of serving a misrouted connection; a
 * null {@code clusterId} (node id -1) asks for no check. Both are dropped when written below v5.
 *
 * @param clusterId the cluster id the client learned from Metadata, or null for no check
 * @param nodeId    the node id the client means to reach, or -1 with a null {@code clusterId}
 */
public record ApiVersionsRequest(String clientSoftwareName, String clientSoftwareVersion, String clusterId,
                                 int nodeId) implements ApiRequest<ApiVersionsResponse> {

    /** The first version that carries the cluster and node the client means to reach (KIP-1242). */
    public static final short FIRST_CLUSTER_CHECK_VERSION = 5;

    public static final MessageSpec<ApiVersionsRequest> SPEC = MessageSpec.of(ApiKey.API_VERSIONS, 0, 5, 3,
            Schema.of(ApiVersionsRequest.class,
                    field("clientSoftwareName", STRING).versions(3),
                    field("clientSoftwareVersion", STRING).versions(3),
                    field("clusterId", STRING).versions(5),
                    field("nodeId", INT32).versions(5).defaultValue(-1)));

    /** A request without the KIP-1242 check (bootstrap connections, or when the cluster id is not known yet). */
    public ApiVersionsRequest(String clientSoftwareName, String clientSoftwareVersion) {
        this(clientSoftwareName, clientSoftwareVersion, null, -1);
    }

    @Override
    public MessageSpec<ApiVersionsRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<ApiVersionsResponse> responseSpec() {
        return ApiVersionsResponse.SPEC;
    }
}
