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
import java.util.List;
import java.util.UUID;

/** OffsetCommit response: an error code per partition; topics by name (v2-9) or by id (v10). */
public record OffsetCommitResponse(int throttleTimeMs, List<OffsetCommitResponseTopic> topics) {

    public record OffsetCommitResponseTopic(String name, UUID topicId, List<OffsetCommitResponsePartition> partitions) {
        static final Schema<OffsetCommitResponseTopic> SCHEMA = Schema.of(OffsetCommitResponseTopic.class,
                field("name", STRING).versions(0, 9).defaultValue(""),
                field("topicId", UUID_TYPE).versions(10),
                field("partitions", array(OffsetCommitResponsePartition.SCHEMA)));
    }

    public record OffsetCommitResponsePartition(int partitionIndex, short errorCode) {
        static final Schema<OffsetCommitResponsePartition> SCHEMA = Schema.of(OffsetCommitResponsePartition.class,
                field("partitionIndex", INT32),
                field("errorCode", INT16));
    }

    public static final MessageSpec<OffsetCommitResponse> SPEC = MessageSpec.of(ApiKey.OFFSET_COMMIT, 2, 10, 8,
            Schema.of(OffsetCommitResponse.class,
                    field("throttleTimeMs", INT32).versions(3),
                    field("topics", array(OffsetCommitResponseTopic.SCHEMA))));
}
