package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.INT8;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;
import java.util.UUID;

/**
 * ConsumerGroupDescribe response (KIP-848). {@code memberType} (v1+, KIP-1099): -1 unknown, 0 classic, 1 consumer.
 */
public record ConsumerGroupDescribeResponse(int throttleTimeMs, List<DescribedGroup> groups) {

    public record TopicPartitions(UUID topicId, String topicName, List<Integer> partitions) {
        static final Schema<TopicPartitions> SCHEMA = Schema.of(TopicPartitions.class,
                field("topicId", UUID_TYPE),
                field("topicName", STRING).defaultValue(""),
                field("partitions", array(INT32)));
    }

    public record Assignment(List<TopicPartitions> topicPartitions) {
        static final Schema<Assignment> SCHEMA = Schema.of(Assignment.class,
                field("topicPartitions", array(TopicPartitions.SCHEMA)));
    }

    public record Member(String memberId, String instanceId, String rackId, int memberEpoch, String clientId,
                         String clientHost, List<String> subscribedTopicNames, String subscribedTopicRegex,
                         Assignment assignment, Assignment targetAssignment, byte memberType) {
        static final Schema<Member> SCHEMA = Schema.of(Member.class,
                field("memberId", STRING).defaultValue(""),
                field("instanceId", STRING),
                field("rackId", STRING),
                field("memberEpoch", INT32),
                field("clientId", STRING).defaultValue(""),
                field("clientHost", STRING).defaultValue(""),
                field("subscribedTopicNames", array(STRING)),
                field("subscribedTopicRegex", STRING),
                field("assignment", Assignment.SCHEMA),
                field("targetAssignment", Assignment.SCHEMA),
                field("memberType", INT8).versions(1).defaultValue((byte) -1));
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

    public static final MessageSpec<ConsumerGroupDescribeResponse> SPEC = MessageSpec.of(
            ApiKey.CONSUMER_GROUP_DESCRIBE, 0, 1, 0,
            Schema.of(ConsumerGroupDescribeResponse.class,
                    field("throttleTimeMs", INT32),
                    field("groups", array(DescribedGroup.SCHEMA))));
}
