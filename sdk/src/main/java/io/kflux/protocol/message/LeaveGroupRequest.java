package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/**
 * LeaveGroup request (api key 13). v0-2 name one {@code memberId}; v3+ (KIP-345) carry a batch of
 * {@code members}, each with its group.instance.id, and from v5 a reason (KIP-800). Callers fill
 * both ({@link #of}) and the schema writes the one the negotiated version has.
 */
public record LeaveGroupRequest(String groupId, String memberId, List<MemberIdentity> members)
        implements ApiRequest<LeaveGroupResponse> {

    public record MemberIdentity(String memberId, String groupInstanceId, String reason) {
        static final Schema<MemberIdentity> SCHEMA = Schema.of(MemberIdentity.class,
                field("memberId", STRING).defaultValue(""),
                field("groupInstanceId", STRING),
                field("reason", STRING).versions(5));
    }

    public static final MessageSpec<LeaveGroupRequest> SPEC = MessageSpec.of(ApiKey.LEAVE_GROUP, 0, 5, 4,
            Schema.of(LeaveGroupRequest.class,
                    field("groupId", STRING).defaultValue(""),
                    field("memberId", STRING).versions(0, 2).defaultValue(""),
                    field("members", array(MemberIdentity.SCHEMA)).versions(3)));

    /** One member leaving, valid in every version. */
    public static LeaveGroupRequest of(String groupId, String memberId, String groupInstanceId, String reason) {
        return new LeaveGroupRequest(groupId, memberId, List.of(new MemberIdentity(memberId, groupInstanceId, reason)));
    }

    @Override
    public MessageSpec<LeaveGroupRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<LeaveGroupResponse> responseSpec() {
        return LeaveGroupResponse.SPEC;
    }
}
