package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.nullableStruct;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse.Assignment;

/**
 * ShareGroupHeartbeat response (KIP-932), version 1. {@code assignment} is null when unchanged since the last
 * heartbeat; a share member owns every partition it is assigned at once (no revocation step, unlike KIP-848). Its
 * assignment structs are ConsumerGroupHeartbeat's (the same fields).
 */
public record ShareGroupHeartbeatResponse(int throttleTimeMs, short errorCode, String errorMessage, String memberId,
                                          int memberEpoch, int heartbeatIntervalMs, Assignment assignment) {

    public static final MessageSpec<ShareGroupHeartbeatResponse> SPEC = MessageSpec.of(
            ApiKey.SHARE_GROUP_HEARTBEAT, 1, 1, 0,
            Schema.of(ShareGroupHeartbeatResponse.class,
                    field("throttleTimeMs", INT32),
                    field("errorCode", INT16),
                    field("errorMessage", STRING),
                    field("memberId", STRING),
                    field("memberEpoch", INT32),
                    field("heartbeatIntervalMs", INT32),
                    field("assignment", nullableStruct(Assignment.SCHEMA))));
}
