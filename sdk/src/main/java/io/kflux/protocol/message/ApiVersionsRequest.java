package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.STRING;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;

/** ApiVersions request (api key 18). Client software name/version exist from v3 on (KIP-511). */
public record ApiVersionsRequest(String clientSoftwareName, String clientSoftwareVersion)
        implements ApiRequest<ApiVersionsResponse> {

    public static final MessageSpec<ApiVersionsRequest> SPEC = MessageSpec.of(ApiKey.API_VERSIONS, 0, 4, 3,
            Schema.of(ApiVersionsRequest.class,
                    field("clientSoftwareName", STRING).versions(3),
                    field("clientSoftwareVersion", STRING).versions(3)));

    @Override
    public MessageSpec<ApiVersionsRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<ApiVersionsResponse> responseSpec() {
        return ApiVersionsResponse.SPEC;
    }
}
