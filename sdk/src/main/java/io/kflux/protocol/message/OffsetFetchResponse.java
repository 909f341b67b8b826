package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.INT64;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;
import java.util.UUID;

/**
 * OffsetFetch response. v1-7: one group's {@code topics} and a top-level {@code errorCode} (v2+);
 * v8+: per-group results in {@code groups}. An offset of -1 means "no committed offset".
 */
public record OffsetFetchResponse(int throttleTimeMs, List<OffsetFetchResponseTopic> topics, short errorCode,
                                  List<OffsetFetchResponseGroup> groups) {

    public record OffsetFetchResponseTopic(String name, List<OffsetFetchResponsePartition> partitions) {
        static final Schema<OffsetFetchResponseTopic> SCHEMA = Schema.of(OffsetFetchResponseTopic.class,
                field("name", STRING).defaultValue(""),
                field("partitions", array(OffsetFetchResponsePartition.SCHEMA)));
    }

    public record OffsetFetchResponsePartition(int partitionIndex, long committedOffset, int committedLeaderEpoch,
                                               String metadata, short errorCode) {
        static final Schema<OffsetFetchResponsePartition> SCHEMA = Schema.of(OffsetFetchResponsePartition.class,
                field("partitionIndex", INT32),
                field("committedOffset", INT64),
                field("committedLeaderEpoch", INT32).versions(5, 7).defaultValue(-1),
                field("metadata", STRING).defaultValue(""),
                field("errorCode", INT16));
    }

    public record OffsetFetchResponseGroup(String groupId, List<OffsetFetchResponseTopics> topics, short errorCode) {
        static final Schema<OffsetFetchResponseGroup> SCHEMA = Schema.of(OffsetFetchResponseGroup.class,
                field("groupId", STRING).defaultValue(""),
                field("topics", array(OffsetFetchResponseTopics.SCHEMA)),
                field("errorCode", INT16));
    }

    public record OffsetFetchResponseTopics(String name, UUID topicId, List<OffsetFetchResponsePartitions> partitions) {
        static final Schema<OffsetFetchResponseTopics> SCHEMA = Schema.of(OffsetFetchResponseTopics.class,
                field("name", STRING).versions(8, 9).defaultValue(""),
                field("topicId", UUID_TYPE).versions(10),
                field("partitions", array(OffsetFetchResponsePartitions.SCHEMA)));
    }

    public record OffsetFetchResponsePartitions(int partitionIndex, long committedOffset, int committedLeaderEpoch,
                                                String metadata, short errorCode) {
        static final Schema<OffsetFetchResponsePartitions> SCHEMA = Schema.of(OffsetFetchResponsePartitions.class,
                field("partitionIndex", INT32),
                field("committedOffset", INT64),
                field("committedLeaderEpoch", INT32).defaultValue(-1),
                field("metadata", STRING).defaultValue(""),
                field("errorCode", INT16));
    }

    public static final MessageSpec<OffsetFetchResponse> SPEC = MessageSpec.of(ApiKey.OFFSET_FETCH, 1, 10, 6,
            Schema.of(OffsetFetchResponse.class,
                    field("throttleTimeMs", INT32).versions(3),
                    field("topics", array(OffsetFetchResponseTopic.SCHEMA)).versions(0, 7),
                    field("errorCode", INT16).versions(2, 7),
                    field("groups", array(OffsetFetchResponseGroup.SCHEMA)).versions(8)));
}
