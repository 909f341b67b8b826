package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.INT64;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import io.kflux.protocol.Types;
import java.util.List;
import java.util.UUID;

/**
 * OffsetCommit request (api key 8). v2 is the baseline since Kafka 4.0 (KIP-896).
 * retentionTimeMs exists only in v2-4 (-1: broker default); committedLeaderEpoch from v6;
 * groupInstanceId from v7; v9 is the first usable with KIP-848 groups
 * ({@code generationIdOrMemberEpoch} then carries the member epoch); v10 (unstable in 4.1, from
 * 4.2) names topics by {@code topicId} instead of {@code name}: fill both.
 */
public record OffsetCommitRequest(String groupId, int generationIdOrMemberEpoch, String memberId,
                                  String groupInstanceId, long retentionTimeMs, List<OffsetCommitRequestTopic> topics)
        implements ApiRequest<OffsetCommitResponse> {

    public record OffsetCommitRequestTopic(String name, UUID topicId, List<OffsetCommitRequestPartition> partitions) {
        static final Schema<OffsetCommitRequestTopic> SCHEMA = Schema.of(OffsetCommitRequestTopic.class,
                field("name", STRING).versions(0, 9).defaultValue(""),
                field("topicId", UUID_TYPE).versions(10),
                field("partitions", array(OffsetCommitRequestPartition.SCHEMA)));
    }

    public record OffsetCommitRequestPartition(int partitionIndex, long committedOffset, int committedLeaderEpoch,
                                               String committedMetadata) {
        static final Schema<OffsetCommitRequestPartition> SCHEMA = Schema.of(OffsetCommitRequestPartition.class,
                field("partitionIndex", INT32),
                field("committedOffset", INT64),
                field("committedLeaderEpoch", INT32).versions(6).defaultValue(-1),
                field("committedMetadata", STRING).defaultValue(""));
    }

    public static final MessageSpec<OffsetCommitRequest> SPEC = MessageSpec.of(ApiKey.OFFSET_COMMIT, 2, 10, 8,
            Schema.of(OffsetCommitRequest.class,
                    field("groupId", STRING).defaultValue(""),
                    field("generationIdOrMemberEpoch", INT32).versions(1).defaultValue(-1),
                    field("memberId", STRING).versions(1).defaultValue(""),
                    field("groupInstanceId", STRING).versions(7),
                    field("retentionTimeMs", INT64).versions(2, 4).defaultValue(-1L),
                    field("topics", array(OffsetCommitRequestTopic.SCHEMA))));

    /** The first version that names topics by id only. */
    public static final short FIRST_TOPIC_ID_VERSION = 10;

    /** Below v10 while a topic id is unknown: see {@link ApiRequest#maxVersion()}. */
    @Override
    public short maxVersion() {
        boolean idsKnown = topics.stream().noneMatch(t -> Types.isZero(t.topicId()));
        return idsKnown ? SPEC.highestVersion() : FIRST_TOPIC_ID_VERSION - 1;
    }

    @Override
    public MessageSpec<OffsetCommitRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<OffsetCommitResponse> responseSpec() {
        return OffsetCommitResponse.SPEC;
    }
}
