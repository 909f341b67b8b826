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
 * SyncGroup request (api key 14). The leader sends every member's assignment; followers send an
 * empty list. groupInstanceId from v3, protocolType/protocolName from v5 (KIP-559: the broker
 * checks them against the group's).
 */
public record SyncGroupRequest(String groupId, int generationId, String memberId, String groupInstanceId,
                               String protocolType, String protocolName, List<SyncGroupRequestAssignment> assignments)
        implements ApiRequest<SyncGroupResponse> {

    public record SyncGroupRequestAssignment(String memberId, byte[] assignment) {
        static final Schema<SyncGroupRequestAssignment> SCHEMA = Schema.of(SyncGroupRequestAssignment.class,
                field("memberId", STRING).defaultValue(""),
                field("assignment", BYTES).defaultValue(new byte[0]));
    }

    public static final MessageSpec<SyncGroupRequest> SPEC = MessageSpec.of(ApiKey.SYNC_GROUP, 0, 5, 4,
            Schema.of(SyncGroupRequest.class,
                    field("groupId", STRING).defaultValue(""),
                    field("generationId", INT32),
                    field("memberId", STRING).defaultValue(""),
                    field("groupInstanceId", STRING).versions(3),
                    field("protocolType", STRING).versions(5),
                    field("protocolName", STRING).versions(5),
                    field("assignments", array(SyncGroupRequestAssignment.SCHEMA))));

    @Override
    public MessageSpec<SyncGroupRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<SyncGroupResponse> responseSpec() {
        return SyncGroupResponse.SPEC;
    }
}
