package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;
import static io.kflux.protocol.Types.nullableArray;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;
import java.util.UUID;

/**
 * ConsumerGroupHeartbeat request (api key 68, KIP-848), flexible in every version. Most fields are
 * "null/-1 if unchanged since the last heartbeat". v1 adds subscribedTopicRegex and requires the
 * member to generate its own member id (KIP-1082). memberEpoch: 0 join, -1 leave, -2 static leave.
 */
public record ConsumerGroupHeartbeatRequest(String groupId, String memberId, int memberEpoch, String instanceId,
                                            String rackId, int rebalanceTimeoutMs, List<String> subscribedTopicNames,
                                            String subscribedTopicRegex, String serverAssignor,
                                            List<TopicPartitions> topicPartitions)
        implements ApiRequest<ConsumerGroupHeartbeatResponse> {

    public static final int JOIN_EPOCH = 0;
    public static final int LEAVE_EPOCH = -1;
    public static final int STATIC_LEAVE_EPOCH = -2;

    public record TopicPartitions(UUID topicId, List<Integer> partitions) {
        static final Schema<TopicPartitions> SCHEMA = Schema.of(TopicPartitions.class,
                field("topicId", UUID_TYPE),
                field("partitions", array(INT32)));
    }

    public static final MessageSpec<ConsumerGroupHeartbeatRequest> SPEC = MessageSpec.of(
            ApiKey.CONSUMER_GROUP_HEARTBEAT, 0, 1, 0,
            Schema.of(ConsumerGroupHeartbeatRequest.class,
                    field("groupId", STRING).defaultValue(""),
                    field("memberId", STRING).defaultValue(""),
                    field("memberEpoch", INT32),
                    field("instanceId", STRING),
                    field("rackId", STRING),
                    field("rebalanceTimeoutMs", INT32).defaultValue(-1),
                    field("subscribedTopicNames", nullableArray(STRING)),
                    field("subscribedTopicRegex", STRING).versions(1),
                    field("serverAssignor", STRING),
                    field("topicPartitions", nullableArray(TopicPartitions.SCHEMA))));

    @Override
    public MessageSpec<ConsumerGroupHeartbeatRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<ConsumerGroupHeartbeatResponse> responseSpec() {
        return ConsumerGroupHeartbeatResponse.SPEC;
    }
}
