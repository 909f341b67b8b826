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
import io.kflux.protocol.message.FetchResponse.LeaderIdAndEpoch;
import io.kflux.protocol.message.FetchResponse.NodeEndpoint;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.UUID;

/**
 * ShareFetch response (KIP-932), versions 1-2. Each partition carries a fetch error and, separately, the error of
 * the acknowledgements that rode on the request; {@code acquiredRecords} says which offsets of {@code records}
 * this member now holds under the acquisition lock of {@code acquisitionLockTimeoutMs}, and how often each range
 * was delivered. Records outside the acquired ranges are not this member's.
 *
 * <p><b>Buffer ownership</b> as for {@link FetchResponse}: each partition's {@code records} is a retained slice of
 * the frame; the reader releases each once, or all by {@link #release()}.
 */
public record ShareFetchResponse(int throttleTimeMs, short errorCode, String errorMessage,
                                 int acquisitionLockTimeoutMs, List<ShareFetchableTopicResponse> responses,
                                 List<NodeEndpoint> nodeEndpoints) {

    /** Offsets {@code firstOffset..lastOffset} inclusive, acquired by this member, delivered deliveryCount times. */
    public record AcquiredRecords(long firstOffset, long lastOffset, short deliveryCount) {
        static final Schema<AcquiredRecords> SCHEMA = Schema.of(AcquiredRecords.class,
                field("firstOffset", INT64),
                field("lastOffset", INT64),
                field("deliveryCount", INT16));
    }

    public record PartitionData(int partitionIndex, short errorCode, String errorMessage, short acknowledgeErrorCode,
                                String acknowledgeErrorMessage, LeaderIdAndEpoch currentLeader, ByteBuf records,
                                List<AcquiredRecords> acquiredRecords) {
        static final Schema<PartitionData> SCHEMA = Schema.of(PartitionData.class,
                field("partitionIndex", INT32),
                field("errorCode", INT16),
                field("errorMessage", STRING),
                field("acknowledgeErrorCode", INT16),
                field("acknowledgeErrorMessage", STRING),
                field("currentLeader", LeaderIdAndEpoch.SCHEMA),
                field("records", RECORDS),
                field("acquiredRecords", array(AcquiredRecords.SCHEMA)));
    }

    public record ShareFetchableTopicResponse(UUID topicId, List<PartitionData> partitions) {
        static final Schema<ShareFetchableTopicResponse> SCHEMA = Schema.of(ShareFetchableTopicResponse.class,
                field("topicId", UUID_TYPE),
                field("partitions", array(PartitionData.SCHEMA)));
    }

    public static final MessageSpec<ShareFetchResponse> SPEC = MessageSpec.of(ApiKey.SHARE_FETCH, 1, 2, 0,
            Schema.of(ShareFetchResponse.class,
                    field("throttleTimeMs", INT32),
                    field("errorCode", INT16),
                    field("errorMessage", STRING),
                    field("acquisitionLockTimeoutMs", INT32),
                    field("responses", array(ShareFetchableTopicResponse.SCHEMA)),
                    field("nodeEndpoints", array(NodeEndpoint.SCHEMA))));

    /** Releases every partition's {@code records}. Call once, after they were decoded; do not use them after. */
    public void release() {
        if (responses == null) {
            return;
        }
        for (ShareFetchableTopicResponse topic : responses) {
            if (topic.partitions() == null) {
                continue;
            }
            for (PartitionData partition : topic.partitions()) {
                if (partition.records() != null) {
                    partition.records().release();
                }
            }
        }
    }
}
