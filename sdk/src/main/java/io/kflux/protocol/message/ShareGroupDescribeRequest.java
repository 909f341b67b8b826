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

/** ShareGroupDescribe request (api key 77, KIP-932), version 1, flexible: the share groups to describe. */
public record ShareGroupDescribeRequest(List<String> groupIds, boolean includeAuthorizedOperations)
        implements ApiRequest<ShareGroupDescribeResponse> {

    public static final MessageSpec<ShareGroupDescribeRequest> SPEC = MessageSpec.of(
            ApiKey.SHARE_GROUP_DESCRIBE, 1, 1, 0,
            Schema.of(ShareGroupDescribeRequest.class,
                    field("groupIds", array(STRING)),
                    field("includeAuthorizedOperations", BOOLEAN)));

    @Override
    public MessageSpec<ShareGroupDescribeRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<ShareGroupDescribeResponse> responseSpec() {
        return ShareGroupDescribeResponse.SPEC;
    }
}
