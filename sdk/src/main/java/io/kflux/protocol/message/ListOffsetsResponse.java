package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.INT64;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/** ListOffsets response (api key 2), versions 1-10, flexible from 6: one offset (and its timestamp) per partition. */
public record ListOffsetsResponse(int throttleTimeMs, List<ListOffsetsTopicResponse> topics) {

    public record ListOffsetsTopicResponse(String name, List<ListOffsetsPartitionResponse> partitions) {
        static final Schema<ListOffsetsTopicResponse> SCHEMA = Schema.of(ListOffsetsTopicResponse.class,
                field("name", STRING).defaultValue(""),
                field("partitions", array(ListOffsetsPartitionResponse.SCHEMA)));
    }

    /** {@code offset}/{@code timestamp} are -1 when there is none; {@code leaderEpoch} is -1 before v4 or when unknown. */
    public record ListOffsetsPartitionResponse(int partitionIndex, short errorCode, long timestamp, long offset,
                                               int leaderEpoch) {
        static final Schema<ListOffsetsPartitionResponse> SCHEMA = Schema.of(ListOffsetsPartitionResponse.class,
                field("partitionIndex", INT32),
                field("errorCode", INT16),
                field("timestamp", INT64).versions(1).defaultValue(-1L),
                field("offset", INT64).versions(1).defaultValue(-1L),
                field("leaderEpoch", INT32).versions(4).defaultValue(-1));
    }

    public static final MessageSpec<ListOffsetsResponse> SPEC = MessageSpec.of(ApiKey.LIST_OFFSETS, 1, 10, 6,
            Schema.of(ListOffsetsResponse.class,
                    field("throttleTimeMs", INT32).versions(2),
                    field("topics", array(ListOffsetsTopicResponse.SCHEMA))));
}
