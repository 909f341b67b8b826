package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import io.kflux.protocol.message.ConsumerGroupDescribeResponse.Assignment;
import java.util.List;

/**
 * ShareGroupDescribe response (KIP-932), version 1. Its assignment structs are those of ConsumerGroupDescribe
 * (topic id, name and partitions); a share member has no instance id, regex or target assignment.
 * {@code authorizedOperations} is {@link Integer#MIN_VALUE} when not asked for.
 */
public record ShareGroupDescribeResponse(int throttleTimeMs, List<DescribedGroup> groups) {

    public record Member(String memberId, String rackId, int memberEpoch, String clientId, String clientHost,
                         List<String> subscribedTopicNames, Assignment assignment) {
        static final Schema<Member> SCHEMA = Schema.of(Member.class,
                field("memberId", STRING).defaultValue(""),
                field("rackId", STRING),
                field("memberEpoch", INT32),
                field("clientId", STRING).defaultValue(""),
                field("clientHost", STRING).defaultValue(""),
                field("subscribedTopicNames", array(STRING)),
                field("assignment", Assignment.SCHEMA));
    }

    public record DescribedGroup(short errorCode, String errorMessage, String groupId, String groupState,
                                 int groupEpoch, int assignmentEpoch, String assignorName, List<Member> members,
                                 int authorizedOperations) {
        static final Schema<DescribedGroup> SCHEMA = Schema.of(DescribedGroup.class,
                field("errorCode", INT16),
                field("errorMessage", STRING),
                field("groupId", STRING).defaultValue(""),
                field("groupState", STRING).defaultValue(""),
                field("groupEpoch", INT32),
                field("assignmentEpoch", INT32),
                field("assignorName", STRING).defaultValue(""),
                field("members", array(Member.SCHEMA)),
                field("authorizedOperations", INT32).defaultValue(Integer.MIN_VALUE));
    }

    public static final MessageSpec<ShareGroupDescribeResponse> SPEC = MessageSpec.of(
            ApiKey.SHARE_GROUP_DESCRIBE, 1, 1, 0,
            Schema.of(ShareGroupDescribeResponse.class,
                    field("throttleTimeMs", INT32),
                    field("groups", array(DescribedGroup.SCHEMA))));
}
