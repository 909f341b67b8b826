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

/** OffsetForLeaderEpoch response (api key 23), versions 2-4, flexible from 4: the end offset of the asked epoch per partition. */
public record OffsetForLeaderEpochResponse(int throttleTimeMs, List<OffsetForLeaderTopicResult> topics) {

    public record OffsetForLeaderTopicResult(String topic, List<EpochEndOffset> partitions) {
        static final Schema<OffsetForLeaderTopicResult> SCHEMA = Schema.of(OffsetForLeaderTopicResult.class,
                field("topic", STRING).defaultValue(""),
                field("partitions", array(EpochEndOffset.SCHEMA)));
    }

    /** The largest epoch &lt;= the asked one ({@code leaderEpoch}) and its end offset; -1/-1 when unknown. */
    public record EpochEndOffset(short errorCode, int partition, int leaderEpoch, long endOffset) {
        static final Schema<EpochEndOffset> SCHEMA = Schema.of(EpochEndOffset.class,
                field("errorCode", INT16),
                field("partition", INT32),
                field("leaderEpoch", INT32).versions(1).defaultValue(-1),
                field("endOffset", INT64).defaultValue(-1L));
    }

    public static final MessageSpec<OffsetForLeaderEpochResponse> SPEC = MessageSpec.of(ApiKey.OFFSET_FOR_LEADER_EPOCH,
            2, 4, 4,
            Schema.of(OffsetForLeaderEpochResponse.class,
                    field("throttleTimeMs", INT32).versions(2),
                    field("topics", array(OffsetForLeaderTopicResult.SCHEMA))));
}
