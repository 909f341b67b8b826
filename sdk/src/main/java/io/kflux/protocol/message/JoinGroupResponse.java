package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BOOLEAN;
import static io.kflux.protocol.Types.BYTES;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/**
 * JoinGroup response. The leader gets every member's metadata in {@code members} (others get an
 * empty list). protocolType from v7 (KIP-559, null when absent); skipAssignment from v9 (KIP-814:
 * a static leader rejoining must not reassign).
 */
public record JoinGroupResponse(int throttleTimeMs, short errorCode, int generationId, String protocolType,
                                String protocolName, String leader, boolean skipAssignment, String memberId,
                                List<JoinGroupResponseMember> members) {

    public record JoinGroupResponseMember(String memberId, String groupInstanceId, byte[] metadata) {
        static final Schema<JoinGroupResponseMember> SCHEMA = Schema.of(JoinGroupResponseMember.class,
                field("memberId", STRING).defaultValue(""),
                field("groupInstanceId", STRING).versions(5),
                field("metadata", BYTES).defaultValue(new byte[0]));
    }

    public static final MessageSpec<JoinGroupResponse> SPEC = MessageSpec.of(ApiKey.JOIN_GROUP, 0, 9, 6,
            Schema.of(JoinGroupResponse.class,
                    field("throttleTimeMs", INT32).versions(2),
                    field("errorCode", INT16),
                    field("generationId", INT32).defaultValue(-1),
                    field("protocolType", STRING).versions(7),
                    field("protocolName", STRING).defaultValue(""),
                    field("leader", STRING).defaultValue(""),
                    field("skipAssignment", BOOLEAN).versions(9),
                    field("memberId", STRING).defaultValue(""),
                    field("members", array(JoinGroupResponseMember.SCHEMA))));

    public boolean isLeader() {
        return memberId != null && memberId.equals(leader);
    }
}
