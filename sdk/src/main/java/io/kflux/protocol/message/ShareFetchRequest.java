package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BOOLEAN;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.INT8;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;
import java.util.UUID;

/**
 * ShareFetch request (api key 78, KIP-932), versions 1-2, flexible in every version; topics by id only.
 * Acknowledgements ride along per partition ({@link AcknowledgementBatch}). {@code shareSessionEpoch}: 0 opens
 * a share session, -1 closes it, otherwise it increments with every request. v2 (Kafka 4.2) adds
 * {@code shareAcquireMode} (0 batch-optimized, 1 record-limit; KIP-1206) and {@code isRenewAck}, which must be
 * true when a batch carries a renew (4) type (KIP-1222). Written at v1 both are dropped, so whoever builds a
 * request with renewals must know the broker offers v2 (a v1 broker would reject type 4).
 */
public record ShareFetchRequest(String groupId, String memberId, int shareSessionEpoch, int maxWaitMs, int minBytes,
                                int maxBytes, int maxRecords, int batchSize, byte shareAcquireMode, boolean isRenewAck,
                                List<FetchTopic> topics, List<ForgottenTopic> forgottenTopicsData)
        implements ApiRequest<ShareFetchResponse> {

    public static final byte ACQUIRE_BATCH_OPTIMIZED = 0;
    public static final byte ACQUIRE_RECORD_LIMIT = 1;

    public record FetchPartition(int partitionIndex, List<AcknowledgementBatch> acknowledgementBatches) {
        static final Schema<FetchPartition> SCHEMA = Schema.of(FetchPartition.class,
                field("partitionIndex", INT32),
                field("acknowledgementBatches", array(AcknowledgementBatch.SCHEMA)));
    }

    public record FetchTopic(UUID topicId, List<FetchPartition> partitions) {
        static final Schema<FetchTopic> SCHEMA = Schema.of(FetchTopic.class,
                field("topicId", UUID_TYPE),
                field("partitions", array(FetchPartition.SCHEMA)));
    }

    /** Partitions to remove from the share session. */
    public record ForgottenTopic(UUID topicId, List<Integer> partitions) {
        static final Schema<ForgottenTopic> SCHEMA = Schema.of(ForgottenTopic.class,
                field("topicId", UUID_TYPE),
                field("partitions", array(INT32)));
    }

    public static final MessageSpec<ShareFetchRequest> SPEC = MessageSpec.of(ApiKey.SHARE_FETCH, 1, 2, 0,
            Schema.of(ShareFetchRequest.class,
                    field("groupId", STRING),
                    field("memberId", STRING).defaultValue(""),
                    field("shareSessionEpoch", INT32),
                    field("maxWaitMs", INT32),
                    field("minBytes", INT32),
                    field("maxBytes", INT32).defaultValue(Integer.MAX_VALUE),
                    field("maxRecords", INT32),
                    field("batchSize", INT32),
                    field("shareAcquireMode", INT8).versions(2),
                    field("isRenewAck", BOOLEAN).versions(2),
                    field("topics", array(FetchTopic.SCHEMA)),
                    field("forgottenTopicsData", array(ForgottenTopic.SCHEMA))));

    @Override
    public MessageSpec<ShareFetchRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<ShareFetchResponse> responseSpec() {
        return ShareFetchResponse.SPEC;
    }
}
