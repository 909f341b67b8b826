package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BYTES;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/**
 * JoinGroup request (api key 11). rebalanceTimeoutMs from v1 (absent: -1, the broker then uses the
 * session timeout), groupInstanceId (static membership, KIP-345) from v5, reason (KIP-800) from v8.
 * From v4 a first join without member id is answered MEMBER_ID_REQUIRED with the id to rejoin with.
 */
public record JoinGroupRequest(String groupId, int sessionTimeoutMs, int rebalanceTimeoutMs, String memberId,
                               String groupInstanceId, String protocolType, List<JoinGroupRequestProtocol> protocols,
                               String reason) implements ApiRequest<JoinGroupResponse> {

    /** One assignment protocol (assignor name) the member supports, with its subscription metadata. */
    public record JoinGroupRequestProtocol(String name, byte[] metadata) {
        static final Schema<JoinGroupRequestProtocol> SCHEMA = Schema.of(JoinGroupRequestProtocol.class,
                field("name", STRING).defaultValue(""),
                field("metadata", BYTES).defaultValue(new byte[0]));
    }

    public static final MessageSpec<JoinGroupRequest> SPEC = MessageSpec.of(ApiKey.JOIN_GROUP, 0, 9, 6,
            Schema.of(JoinGroupRequest.class,
                    field("groupId", STRING).defaultValue(""),
                    field("sessionTimeoutMs", INT32),
                    field("rebalanceTimeoutMs", INT32).versions(1).defaultValue(-1),
                    field("memberId", STRING).defaultValue(""),
                    field("groupInstanceId", STRING).versions(5),
                    field("protocolType", STRING).defaultValue(""),
                    field("protocols", array(JoinGroupRequestProtocol.SCHEMA)),
                    field("reason", STRING).versions(8)));

    @Override
    public MessageSpec<JoinGroupRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<JoinGroupResponse> responseSpec() {
        return JoinGroupResponse.SPEC;
    }
}
