package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.INT64;
import static io.kflux.protocol.Types.INT8;
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
 * Fetch request (api key 1), versions 4-18, flexible from 12 (v0-3 were removed in Kafka 4.0).
 *
 * <p>Fields replaced in newer versions are both declared, each written only in its versions, so a
 * caller fills both and the negotiated version picks: {@code replicaId} (v4-14) and the tagged
 * {@code replicaState} (v15+); topic {@code topic} names (v4-12) and {@code topicId}s (v13+), in
 * {@link FetchTopic} and {@link ForgottenTopic}. A consumer leaves the replica fields at -1
 * ({@link ReplicaState#CONSUMER}). Incremental fetch sessions (KIP-227, v7+): {@code sessionId} 0
 * and {@code sessionEpoch} {@link #FINAL_SESSION_EPOCH} (-1, the default) for a full fetch without
 * a session; id 0 and epoch {@link #INITIAL_SESSION_EPOCH} to open one; the session's id and
 * epoch -1 to close it.
 */
public record FetchRequest(String clusterId, int replicaId, ReplicaState replicaState, int maxWaitMs, int minBytes,
                           int maxBytes, byte isolationLevel, int sessionId, int sessionEpoch, List<FetchTopic> topics,
                           List<ForgottenTopic> forgottenTopicsData, String rackId)
        implements ApiRequest<FetchResponse> {

    public static final int CONSUMER_REPLICA_ID = -1;
    public static final int FINAL_SESSION_EPOCH = -1;
    public static final int INITIAL_SESSION_EPOCH = 0;
    /** {@link FetchPartition#highWatermark} when the requester does not track it (the spec's default). */
    public static final long HIGH_WATERMARK_UNSUPPORTED = Long.MAX_VALUE;

    /** The fetching replica (tagged, v15+, KIP-903); a consumer sends -1/-1, which is the default and so not written. */
    public record ReplicaState(int replicaId, long replicaEpoch) {
        static final Schema<ReplicaState> SCHEMA = Schema.of(ReplicaState.class,
                field("replicaId", INT32).defaultValue(-1),
                field("replicaEpoch", INT64).defaultValue(-1L));

        public static final ReplicaState CONSUMER = new ReplicaState(-1, -1L);
    }

    public record FetchTopic(String topic, UUID topicId, List<FetchPartition> partitions) {
        static final Schema<FetchTopic> SCHEMA = Schema.of(FetchTopic.class,
                field("topic", STRING).versions(0, 12).defaultValue(""),
                field("topicId", UUID_TYPE).versions(13),
                field("partitions", array(FetchPartition.SCHEMA)));
    }

    /**
     * {@code replicaDirectoryId} (tagged, v17+) and {@code highWatermark} (tagged, v18+) are follower
     * fields: leave them at the zero UUID and {@link #HIGH_WATERMARK_UNSUPPORTED}.
     */
    public record FetchPartition(int partition, int currentLeaderEpoch, long fetchOffset, int lastFetchedEpoch,
                                 long logStartOffset, int partitionMaxBytes, UUID replicaDirectoryId,
                                 long highWatermark) {
        static final Schema<FetchPartition> SCHEMA = Schema.of(FetchPartition.class,
                field("partition", INT32),
                field("currentLeaderEpoch", INT32).versions(9).defaultValue(-1),
                field("fetchOffset", INT64),
                field("lastFetchedEpoch", INT32).versions(12).defaultValue(-1),
                field("logStartOffset", INT64).versions(5).defaultValue(-1L),
                field("partitionMaxBytes", INT32),
                field("replicaDirectoryId", UUID_TYPE).versions(17).tag(0),
                field("highWatermark", INT64).versions(18).tag(1).defaultValue(HIGH_WATERMARK_UNSUPPORTED));
    }

    /** Partitions to remove from an incremental fetch session (v7+). */
    public record ForgottenTopic(String topic, UUID topicId, List<Integer> partitions) {
        static final Schema<ForgottenTopic> SCHEMA = Schema.of(ForgottenTopic.class,
                field("topic", STRING).versions(7, 12).defaultValue(""),
                field("topicId", UUID_TYPE).versions(13),
                field("partitions", array(INT32)).versions(7));
    }

    public static final MessageSpec<FetchRequest> SPEC = MessageSpec.of(ApiKey.FETCH, 4, 18, 12,
            Schema.of(FetchRequest.class,
                    field("clusterId", STRING).versions(12).tag(0),
                    field("replicaId", INT32).versions(0, 14).defaultValue(CONSUMER_REPLICA_ID),
                    field("replicaState", ReplicaState.SCHEMA).versions(15).tag(1).defaultValue(ReplicaState.CONSUMER),
                    field("maxWaitMs", INT32),
                    field("minBytes", INT32),
                    field("maxBytes", INT32).versions(3).defaultValue(Integer.MAX_VALUE),
                    field("isolationLevel", INT8).versions(4),
                    field("sessionId", INT32).versions(7),
                    field("sessionEpoch", INT32).versions(7).defaultValue(FINAL_SESSION_EPOCH),
                    field("topics", array(FetchTopic.SCHEMA)),
                    field("forgottenTopicsData", array(ForgottenTopic.SCHEMA)).versions(7),
                    field("rackId", STRING).versions(11).defaultValue("")));

    /** The first version that names topics by id only. */
    public static final short FIRST_TOPIC_ID_VERSION = 13;

    /** Below v13 while a topic id (fetched or forgotten) is unknown: see {@link ApiRequest#maxVersion()}. */
    @Override
    public short maxVersion() {
        boolean idsKnown = topics.stream().noneMatch(t -> Types.isZero(t.topicId()))
                && (forgottenTopicsData == null || forgottenTopicsData.stream().noneMatch(t -> Types.isZero(t.topicId())));
        return idsKnown ? SPEC.highestVersion() : FIRST_TOPIC_ID_VERSION - 1;
    }

    @Override
    public MessageSpec<FetchRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<FetchResponse> responseSpec() {
        return FetchResponse.SPEC;
    }
}
