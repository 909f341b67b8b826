package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.INT64;
import static io.kflux.protocol.Types.RECORDS;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.UUID;

/**
 * Fetch response (api key 1), versions 4-18, flexible from 12.
 *
 * <p><b>Buffer ownership:</b> each {@link PartitionData#records()} read by {@link #SPEC} is a
 * <em>retained slice</em> of the response frame (no copy). Whoever reads a FetchResponse owns
 * those buffers and must release each partition's records exactly once when done decoding them,
 * or call {@link #release()} to release them all; the frame's memory is not returned before.
 * Partitions without data carry an empty buffer (a null record set also reads as empty).
 *
 * <p>Topics are named by {@code topic} up to v12 and by {@code topicId} from v13.
 */
public record FetchResponse(int throttleTimeMs, short errorCode, int sessionId, List<FetchableTopicResponse> responses,
                            List<NodeEndpoint> nodeEndpoints) {

    /** {@link PartitionData#preferredReadReplica} when the broker names none. */
    public static final int NO_PREFERRED_READ_REPLICA = -1;

    public record FetchableTopicResponse(String topic, UUID topicId, List<PartitionData> partitions) {
        static final Schema<FetchableTopicResponse> SCHEMA = Schema.of(FetchableTopicResponse.class,
                field("topic", STRING).versions(0, 12).defaultValue(""),
                field("topicId", UUID_TYPE).versions(13),
                field("partitions", array(PartitionData.SCHEMA)));
    }

    /**
     * One partition's answer. The tagged structs ({@code divergingEpoch}, {@code currentLeader},
     * {@code snapshotId}, v12+) are never null: absent they read as their {@code NONE} constant
     * (all -1), and callers writing one must pass that constant rather than null.
     * {@code abortedTransactions} is null when the broker sends null (read-uncommitted fetches).
     * {@code records} must be released by the reader (see {@link FetchResponse}).
     */
    public record PartitionData(int partitionIndex, short errorCode, long highWatermark, long lastStableOffset,
                                long logStartOffset, EpochEndOffset divergingEpoch, LeaderIdAndEpoch currentLeader,
                                SnapshotId snapshotId, List<AbortedTransaction> abortedTransactions,
                                int preferredReadReplica, ByteBuf records) {
        static final Schema<PartitionData> SCHEMA = Schema.of(PartitionData.class,
                field("partitionIndex", INT32),
                field("errorCode", INT16),
                field("highWatermark", INT64),
                field("lastStableOffset", INT64).versions(4).defaultValue(-1L),
                field("logStartOffset", INT64).versions(5).defaultValue(-1L),
                field("divergingEpoch", EpochEndOffset.SCHEMA).versions(12).tag(0).defaultValue(EpochEndOffset.NONE),
                field("currentLeader", LeaderIdAndEpoch.SCHEMA).versions(12).tag(1).defaultValue(LeaderIdAndEpoch.NONE),
                field("snapshotId", SnapshotId.SCHEMA).versions(12).tag(2).defaultValue(SnapshotId.NONE),
                field("abortedTransactions", array(AbortedTransaction.SCHEMA)).versions(4),
                field("preferredReadReplica", INT32).versions(11).defaultValue(NO_PREFERRED_READ_REPLICA),
                field("records", RECORDS));
    }

    /** Where the fetcher's log diverges from the leader's (KIP-320 via Fetch, v12+): truncate to it. */
    public record EpochEndOffset(int epoch, long endOffset) {
        static final Schema<EpochEndOffset> SCHEMA = Schema.of(EpochEndOffset.class,
                field("epoch", INT32).defaultValue(-1),
                field("endOffset", INT64).defaultValue(-1L));

        public static final EpochEndOffset NONE = new EpochEndOffset(-1, -1L);
    }

    /** The partition's current leader, sent with NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH (KIP-951). */
    public record LeaderIdAndEpoch(int leaderId, int leaderEpoch) {
        static final Schema<LeaderIdAndEpoch> SCHEMA = Schema.of(LeaderIdAndEpoch.class,
                field("leaderId", INT32).defaultValue(-1),
                field("leaderEpoch", INT32).defaultValue(-1));

        public static final LeaderIdAndEpoch NONE = new LeaderIdAndEpoch(-1, -1);
    }

    /** For KRaft followers fetching below the log start: the snapshot to fetch instead. */
    public record SnapshotId(long endOffset, int epoch) {
        static final Schema<SnapshotId> SCHEMA = Schema.of(SnapshotId.class,
                field("endOffset", INT64).defaultValue(-1L),
                field("epoch", INT32).defaultValue(-1));

        public static final SnapshotId NONE = new SnapshotId(-1L, -1);
    }

    public record AbortedTransaction(long producerId, long firstOffset) {
        static final Schema<AbortedTransaction> SCHEMA = Schema.of(AbortedTransaction.class,
                field("producerId", INT64),
                field("firstOffset", INT64));
    }

    /** Endpoints of the leaders named in {@link PartitionData#currentLeader} (tagged, v16+). */
    public record NodeEndpoint(int nodeId, String host, int port, String rack) {
        static final Schema<NodeEndpoint> SCHEMA = Schema.of(NodeEndpoint.class,
                field("nodeId", INT32),
                field("host", STRING).defaultValue(""),
                field("port", INT32),
                field("rack", STRING));
    }

    public static final MessageSpec<FetchResponse> SPEC = MessageSpec.of(ApiKey.FETCH, 4, 18, 12,
            Schema.of(FetchResponse.class,
                    field("throttleTimeMs", INT32).versions(1),
                    field("errorCode", INT16).versions(7),
                    field("sessionId", INT32).versions(7),
                    field("responses", array(FetchableTopicResponse.SCHEMA)),
                    field("nodeEndpoints", array(NodeEndpoint.SCHEMA)).versions(16).tag(0)));

    /**
     * Releases every partition's {@code records} buffer. Call once, after the records have been
     * decoded (or copied), and do not use them afterwards.
     */
    public void release() {
        if (responses == null) {
            return;
        }
        for (FetchableTopicResponse topic : responses) {
            if (topic.partitions() == null) {
                continue;
            }
            for (PartitionData partition : topic.partitions()) {
                ByteBuf records = partition.records();
                if (records != null) {
                    records.release();
                }
            }
        }
    }
}
