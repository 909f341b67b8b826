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

/**
 * ConsumerGroupDescribe request (api key 69, KIP-848): describes consumer-protocol groups (members, epochs, current
 * and target assignments), for tests and tools. Flexible in every version; v1 is the same as v0 (it lets the
 * response carry the member type, KIP-1099).
 */
public record ConsumerGroupDescribeRequest(List<String> groupIds, boolean includeAuthorizedOperations)
        implements ApiRequest<ConsumerGroupDescribeResponse> {

    public static final MessageSpec<ConsumerGroupDescribeRequest> SPEC = MessageSpec.of(
            ApiKey.CONSUMER_GROUP_DESCRIBE, 0, 1, 0,
            Schema.of(ConsumerGroupDescribeRequest.class,
                    field("groupIds", array(STRING)),
                    field("includeAuthorizedOperations", BOOLEAN)));

    @Override
    public MessageSpec<ConsumerGroupDescribeRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<ConsumerGroupDescribeResponse> responseSpec() {
        return ConsumerGroupDescribeResponse.SPEC;
    }
}
