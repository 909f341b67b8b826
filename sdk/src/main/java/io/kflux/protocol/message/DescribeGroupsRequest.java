package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BOOLEAN;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/** DescribeGroups request (api key 15) for classic groups; includeAuthorizedOperations from v3. */
public record DescribeGroupsRequest(List<String> groups, boolean includeAuthorizedOperations)
        implements ApiRequest<DescribeGroupsResponse> {

    public static final MessageSpec<DescribeGroupsRequest> SPEC = MessageSpec.of(ApiKey.DESCRIBE_GROUPS, 0, 6, 5,
            Schema.of(DescribeGroupsRequest.class,
                    field("groups", array(STRING)),
                    field("includeAuthorizedOperations", BOOLEAN).versions(3)));

    @Override
    public MessageSpec<DescribeGroupsRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<DescribeGroupsResponse> responseSpec() {
        return DescribeGroupsResponse.SPEC;
    }
}
