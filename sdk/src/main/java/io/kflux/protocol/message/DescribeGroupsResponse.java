package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
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
 * DescribeGroups response. Member metadata/assignment are only filled while the group is Stable.
 * authorizedOperations (v3+) defaults to Integer.MIN_VALUE ("not requested"); errorMessage from v6.
 */
public record DescribeGroupsResponse(int throttleTimeMs, List<DescribedGroup> groups) {

    /** {@link DescribedGroup#authorizedOperations} when they were not requested or not sent. */
    public static final int AUTHORIZED_OPERATIONS_OMITTED = Integer.MIN_VALUE;

    public record DescribedGroup(short errorCode, String errorMessage, String groupId, String groupState,
                                 String protocolType, String protocolData, List<DescribedGroupMember> members,
                                 int authorizedOperations) {
        static final Schema<DescribedGroup> SCHEMA = Schema.of(DescribedGroup.class,
                field("errorCode", INT16),
                field("errorMessage", STRING).versions(6),
                field("groupId", STRING).defaultValue(""),
                field("groupState", STRING).defaultValue(""),
                field("protocolType", STRING).defaultValue(""),
                field("protocolData", STRING).defaultValue(""),
                field("members", array(DescribedGroupMember.SCHEMA)),
                field("authorizedOperations", INT32).versions(3).defaultValue(AUTHORIZED_OPERATIONS_OMITTED));
    }

    public record DescribedGroupMember(String memberId, String groupInstanceId, String clientId, String clientHost,
                                       byte[] memberMetadata, byte[] memberAssignment) {
        static final Schema<DescribedGroupMember> SCHEMA = Schema.of(DescribedGroupMember.class,
                field("memberId", STRING).defaultValue(""),
                field("groupInstanceId", STRING).versions(4),
                field("clientId", STRING).defaultValue(""),
                field("clientHost", STRING).defaultValue(""),
                field("memberMetadata", BYTES).defaultValue(new byte[0]),
                field("memberAssignment", BYTES).defaultValue(new byte[0]));
    }

    public static final MessageSpec<DescribeGroupsResponse> SPEC = MessageSpec.of(ApiKey.DESCRIBE_GROUPS, 0, 6, 5,
            Schema.of(DescribeGroupsResponse.class,
                    field("throttleTimeMs", INT32).versions(1),
                    field("groups", array(DescribedGroup.SCHEMA))));
}
