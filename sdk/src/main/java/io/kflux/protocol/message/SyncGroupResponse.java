package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BYTES;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;

/** SyncGroup response: this member's assignment (consumer protocol bytes); protocol type/name from v5. */
public record SyncGroupResponse(int throttleTimeMs, short errorCode, String protocolType, String protocolName,
                                byte[] assignment) {

    public static final MessageSpec<SyncGroupResponse> SPEC = MessageSpec.of(ApiKey.SYNC_GROUP, 0, 5, 4,
            Schema.of(SyncGroupResponse.class,
                    field("throttleTimeMs", INT32).versions(1),
                    field("errorCode", INT16),
                    field("protocolType", STRING).versions(5),
                    field("protocolName", STRING).versions(5),
                    field("assignment", BYTES).defaultValue(new byte[0])));
}
