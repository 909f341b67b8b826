package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;

/** Heartbeat request (api key 12) of the classic group protocol; groupInstanceId from v3. */
public record HeartbeatRequest(String groupId, int generationId, String memberId, String groupInstanceId)
        implements ApiRequest<HeartbeatResponse> {

    public static final MessageSpec<HeartbeatRequest> SPEC = MessageSpec.of(ApiKey.HEARTBEAT, 0, 4, 4,
            Schema.of(HeartbeatRequest.class,
                    field("groupId", STRING).defaultValue(""),
                    field("generationId", INT32),
                    field("memberId", STRING).defaultValue(""),
                    field("groupInstanceId", STRING).versions(3)));

    @Override
    public MessageSpec<HeartbeatRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<HeartbeatResponse> responseSpec() {
        return HeartbeatResponse.SPEC;
    }
}
