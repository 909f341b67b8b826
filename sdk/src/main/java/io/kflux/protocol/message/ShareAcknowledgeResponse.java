package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import io.kflux.protocol.message.FetchResponse.LeaderIdAndEpoch;
import io.kflux.protocol.message.FetchResponse.NodeEndpoint;
import java.util.List;
import java.util.UUID;

/**
 * ShareAcknowledge response (KIP-932), versions 1-2: per partition the acknowledgements' error (e.g.
 * INVALID_RECORD_STATE when a record's lock had expired) and the current leader on NOT_LEADER_OR_FOLLOWER. v2
 * adds {@code acquisitionLockTimeoutMs}, the lock a renewal extended the records by (KIP-1222; 0 below v2).
 */
public record ShareAcknowledgeResponse(int throttleTimeMs, short errorCode, String errorMessage,
                                       int acquisitionLockTimeoutMs, List<ShareAcknowledgeTopicResponse> responses,
                                       List<NodeEndpoint> nodeEndpoints) {

    public record PartitionData(int partitionIndex, short errorCode, String errorMessage,
                                LeaderIdAndEpoch currentLeader) {
        static final Schema<PartitionData> SCHEMA = Schema.of(PartitionData.class,
                field("partitionIndex", INT32),
                field("errorCode", INT16),
                field("errorMessage", STRING),
                field("currentLeader", LeaderIdAndEpoch.SCHEMA));
    }

    public record ShareAcknowledgeTopicResponse(UUID topicId, List<PartitionData> partitions) {
        static final Schema<ShareAcknowledgeTopicResponse> SCHEMA = Schema.of(ShareAcknowledgeTopicResponse.class,
                field("topicId", UUID_TYPE),
                field("partitions", array(PartitionData.SCHEMA)));
    }

    public static final MessageSpec<ShareAcknowledgeResponse> SPEC = MessageSpec.of(ApiKey.SHARE_ACKNOWLEDGE, 1, 2, 0,
            Schema.of(ShareAcknowledgeResponse.class,
                    field("throttleTimeMs", INT32),
                    field("errorCode", INT16),
                    field("errorMessage", STRING),
                    field("acquisitionLockTimeoutMs", INT32).versions(2),
                    field("responses", array(ShareAcknowledgeTopicResponse.SCHEMA)),
                    field("nodeEndpoints", array(NodeEndpoint.SCHEMA))));
}
