package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;

/** Heartbeat response: REBALANCE_IN_PROGRESS tells a member to rejoin. */
public record HeartbeatResponse(int throttleTimeMs, short errorCode) {

    public static final MessageSpec<HeartbeatResponse> SPEC = MessageSpec.of(ApiKey.HEARTBEAT, 0, 4, 4,
            Schema.of(HeartbeatResponse.class,
                    field("throttleTimeMs", INT32).versions(1),
                    field("errorCode", INT16)));
}
