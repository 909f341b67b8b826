package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/**
 * OffsetForLeaderEpoch request (api key 23), versions 2-4, flexible from 4 (v0-1 were removed in
 * Kafka 4.0). A consumer validating its position after a leader change (KIP-320) sends
 * {@code replicaId} -1 ({@link #CONSUMER_REPLICA_ID}); the spec's default, -2, is the "debug
 * consumer" id that may see offsets beyond the high watermark.
 */
public record OffsetForLeaderEpochRequest(int replicaId, List<OffsetForLeaderTopic> topics)
        implements ApiRequest<OffsetForLeaderEpochResponse> {

    public static final int CONSUMER_REPLICA_ID = -1;
    public static final int DEBUG_REPLICA_ID = -2;

    public record OffsetForLeaderTopic(String topic, List<OffsetForLeaderPartition> partitions) {
        static final Schema<OffsetForLeaderTopic> SCHEMA = Schema.of(OffsetForLeaderTopic.class,
                field("topic", STRING).defaultValue(""),
                field("partitions", array(OffsetForLeaderPartition.SCHEMA)));
    }

    public record OffsetForLeaderPartition(int partition, int currentLeaderEpoch, int leaderEpoch) {
        static final Schema<OffsetForLeaderPartition> SCHEMA = Schema.of(OffsetForLeaderPartition.class,
                field("partition", INT32),
                field("currentLeaderEpoch", INT32).versions(2).defaultValue(-1),
                field("leaderEpoch", INT32));
    }

    public static final MessageSpec<OffsetForLeaderEpochRequest> SPEC = MessageSpec.of(ApiKey.OFFSET_FOR_LEADER_EPOCH,
            2, 4, 4,
            Schema.of(OffsetForLeaderEpochRequest.class,
                    field("replicaId", INT32).versions(3).defaultValue(DEBUG_REPLICA_ID),
                    field("topics", array(OffsetForLeaderTopic.SCHEMA))));

    @Override
    public MessageSpec<OffsetForLeaderEpochRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<OffsetForLeaderEpochResponse> responseSpec() {
        return OffsetForLeaderEpochResponse.SPEC;
    }
}
