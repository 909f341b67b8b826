package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BOOLEAN;
import static io.kflux.protocol.Types.INT32;
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
 * OffsetFetch request (api key 9). v1 is the baseline since Kafka 4.0 (KIP-896). v1-7 ask for one
 * group ({@code groupId}, {@code topics}: null = all topics from v2); v8+ ask for a batch of
 * {@code groups}; requireStable from v7 (KIP-447); memberId/memberEpoch from v9 (KIP-848); v10
 * (unstable in 4.1, from 4.2) names topics by id. Callers fill the shape(s) the negotiated
 * version has.
 */
public record OffsetFetchRequest(String groupId, List<OffsetFetchRequestTopic> topics,
                                 List<OffsetFetchRequestGroup> groups, boolean requireStable)
        implements ApiRequest<OffsetFetchResponse> {

    public record OffsetFetchRequestTopic(String name, List<Integer> partitionIndexes) {
        static final Schema<OffsetFetchRequestTopic> SCHEMA = Schema.of(OffsetFetchRequestTopic.class,
                field("name", STRING).defaultValue(""),
                field("partitionIndexes", array(INT32)));
    }

    public record OffsetFetchRequestGroup(String groupId, String memberId, int memberEpoch,
                                          List<OffsetFetchRequestTopics> topics) {
        static final Schema<OffsetFetchRequestGroup> SCHEMA = Schema.of(OffsetFetchRequestGroup.class,
                field("groupId", STRING).defaultValue(""),
                field("memberId", STRING).versions(9),
                field("memberEpoch", INT32).versions(9).defaultValue(-1),
                field("topics", array(OffsetFetchRequestTopics.SCHEMA)));
    }

    public record OffsetFetchRequestTopics(String name, UUID topicId, List<Integer> partitionIndexes) {
        static final Schema<OffsetFetchRequestTopics> SCHEMA = Schema.of(OffsetFetchRequestTopics.class,
                field("name", STRING).versions(8, 9).defaultValue(""),
                field("topicId", UUID_TYPE).versions(10),
                field("partitionIndexes", array(INT32)));
    }

    public static final MessageSpec<OffsetFetchRequest> SPEC = MessageSpec.of(ApiKey.OFFSET_FETCH, 1, 10, 6,
            Schema.of(OffsetFetchRequest.class,
                    field("groupId", STRING).versions(0, 7).defaultValue(""),
                    field("topics", array(OffsetFetchRequestTopic.SCHEMA)).versions(0, 7),
                    field("groups", array(OffsetFetchRequestGroup.SCHEMA)).versions(8),
                    field("requireStable", BOOLEAN).versions(7)));

    /** The first version that names topics by id only. */
    public static final short FIRST_TOPIC_ID_VERSION = 10;

    /**
     * Below v10 while a topic id is unknown: see {@link ApiRequest#maxVersion()}. A request for all topics of a
     * group (null topics) names no topic and can use any version.
     */
    @Override
    public short maxVersion() {
        boolean idsKnown = groups == null || groups.stream()
                .allMatch(g -> g.topics() == null || g.topics().stream().noneMatch(t -> Types.isZero(t.topicId())));
        return idsKnown ? SPEC.highestVersion() : FIRST_TOPIC_ID_VERSION - 1;
    }

    @Override
    public MessageSpec<OffsetFetchRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<OffsetFetchResponse> responseSpec() {
        return OffsetFetchResponse.SPEC;
    }
}
