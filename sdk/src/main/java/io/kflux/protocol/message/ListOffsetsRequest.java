package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.INT64;
import static io.kflux.protocol.Types.INT8;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/**
 * ListOffsets request (api key 2), versions 1-10, flexible from 6 (v0 was removed in Kafka 4.0).
 * Each partition's {@code timestamp} is a time in ms or one of the special values below; some of
 * them need a minimum version (max timestamp v7, local log start v8, earliest pending upload v9).
 */
public record ListOffsetsRequest(int replicaId, byte isolationLevel, List<ListOffsetsTopic> topics, int timeoutMs)
        implements ApiRequest<ListOffsetsResponse> {

    /** {@code replicaId} of a normal consumer. */
    public static final int CONSUMER_REPLICA_ID = -1;
    public static final long LATEST_TIMESTAMP = -1L;
    public static final long EARLIEST_TIMESTAMP = -2L;
    /** v7+ (KIP-734): the offset of the record with the largest timestamp. */
    public static final long MAX_TIMESTAMP = -3L;
    /** v8+ (KIP-405). */
    public static final long EARLIEST_LOCAL_TIMESTAMP = -4L;
    /** v9+ (KIP-1005). */
    public static final long LATEST_TIERED_TIMESTAMP = -5L;

    public static final byte READ_UNCOMMITTED = 0;
    public static final byte READ_COMMITTED = 1;

    public record ListOffsetsTopic(String name, List<ListOffsetsPartition> partitions) {
        static final Schema<ListOffsetsTopic> SCHEMA = Schema.of(ListOffsetsTopic.class,
                field("name", STRING).defaultValue(""),
                field("partitions", array(ListOffsetsPartition.SCHEMA)));
    }

    public record ListOffsetsPartition(int partitionIndex, int currentLeaderEpoch, long timestamp) {
        static final Schema<ListOffsetsPartition> SCHEMA = Schema.of(ListOffsetsPartition.class,
                field("partitionIndex", INT32),
                field("currentLeaderEpoch", INT32).versions(4).defaultValue(-1),
                field("timestamp", INT64));
    }

    public static final MessageSpec<ListOffsetsRequest> SPEC = MessageSpec.of(ApiKey.LIST_OFFSETS, 1, 10, 6,
            Schema.of(ListOffsetsRequest.class,
                    field("replicaId", INT32),
                    field("isolationLevel", INT8).versions(2),
                    field("topics", array(ListOffsetsTopic.SCHEMA)),
                    field("timeoutMs", INT32).versions(10)));

    @Override
    public MessageSpec<ListOffsetsRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<ListOffsetsResponse> responseSpec() {
        return ListOffsetsResponse.SPEC;
    }
}
