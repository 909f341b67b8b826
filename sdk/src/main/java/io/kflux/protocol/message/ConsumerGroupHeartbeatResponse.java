package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;
import static io.kflux.protocol.Types.nullableStruct;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;
import java.util.UUID;

/**
 * ConsumerGroupHeartbeat response (KIP-848). {@code assignment} is null when unchanged (a nullable
 * struct: an int8 -1 marker for null, 1 followed by the struct otherwise).
 */
public record ConsumerGroupHeartbeatResponse(int throttleTimeMs, short errorCode, String errorMessage, String memberId,
                                             int memberEpoch, int heartbeatIntervalMs, Assignment assignment) {

    public record TopicPartitions(UUID topicId, List<Integer> partitions) {
        static final Schema<TopicPartitions> SCHEMA = Schema.of(TopicPartitions.class,
                field("topicId", UUID_TYPE),
                field("partitions", array(INT32)));
    }

    /** The partitions assigned to the member that it can use immediately. */
    public record Assignment(List<TopicPartitions> topicPartitions) {
        static final Schema<Assignment> SCHEMA = Schema.of(Assignment.class,
                field("topicPartitions", array(TopicPartitions.SCHEMA)));
    }

    public static final MessageSpec<ConsumerGroupHeartbeatResponse> SPEC = MessageSpec.of(
            ApiKey.CONSUMER_GROUP_HEARTBEAT, 0, 1, 0,
            Schema.of(ConsumerGroupHeartbeatResponse.class,
                    field("throttleTimeMs", INT32),
                    field("errorCode", INT16),
                    field("errorMessage", STRING),
                    field("memberId", STRING),
                    field("memberEpoch", INT32),
                    field("heartbeatIntervalMs", INT32),
                    field("assignment", nullableStruct(Assignment.SCHEMA))));
}
