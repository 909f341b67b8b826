package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/** LeaveGroup response: a top-level error, and from v3 one result per leaving member. */
public record LeaveGroupResponse(int throttleTimeMs, short errorCode, List<MemberResponse> members) {

    public record MemberResponse(String memberId, String groupInstanceId, short errorCode) {
        static final Schema<MemberResponse> SCHEMA = Schema.of(MemberResponse.class,
                field("memberId", STRING).defaultValue(""),
                field("groupInstanceId", STRING).defaultValue(""),
                field("errorCode", INT16));
    }

    public static final MessageSpec<LeaveGroupResponse> SPEC = MessageSpec.of(ApiKey.LEAVE_GROUP, 0, 5, 4,
            Schema.of(LeaveGroupResponse.class,
                    field("throttleTimeMs", INT32).versions(1),
                    field("errorCode", INT16),
                    field("members", array(MemberResponse.SCHEMA)).versions(3)));
}
