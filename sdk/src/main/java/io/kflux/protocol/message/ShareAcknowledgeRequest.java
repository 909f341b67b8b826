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
import java.util.List;
import java.util.UUID;

/**
 * ShareAcknowledge request (api key 79, KIP-932), versions 1-2, flexible in every version: acknowledgements
 * without fetching, in the same share session as ShareFetch (same epoch rules; -1 acknowledges and closes the
 * session). It cannot open a session (epoch 0). v2 (Kafka 4.2) adds {@code isRenewAck}, which must be true when a
 * batch carries a renew (4) type (KIP-1222); written at v1 it is dropped.
 */
public record ShareAcknowledgeRequest(String groupId, String memberId, int shareSessionEpoch, boolean isRenewAck,
                                      List<AcknowledgeTopic> topics)
        implements ApiRequest<ShareAcknowledgeResponse> {

    public record AcknowledgePartition(int partitionIndex, List<AcknowledgementBatch> acknowledgementBatches) {
        static final Schema<AcknowledgePartition> SCHEMA = Schema.of(AcknowledgePartition.class,
                field("partitionIndex", INT32),
                field("acknowledgementBatches", array(AcknowledgementBatch.SCHEMA)));
    }

    public record AcknowledgeTopic(UUID topicId, List<AcknowledgePartition> partitions) {
        static final Schema<AcknowledgeTopic> SCHEMA = Schema.of(AcknowledgeTopic.class,
                field("topicId", UUID_TYPE),
                field("partitions", array(AcknowledgePartition.SCHEMA)));
    }

    public static final MessageSpec<ShareAcknowledgeRequest> SPEC = MessageSpec.of(ApiKey.SHARE_ACKNOWLEDGE, 1, 2, 0,
            Schema.of(ShareAcknowledgeRequest.class,
                    field("groupId", STRING),
                    field("memberId", STRING).defaultValue(""),
                    field("shareSessionEpoch", INT32),
                    field("isRenewAck", BOOLEAN).versions(2),
                    field("topics", array(AcknowledgeTopic.SCHEMA))));

    @Override
    public MessageSpec<ShareAcknowledgeRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<ShareAcknowledgeResponse> responseSpec() {
        return ShareAcknowledgeResponse.SPEC;
    }
}
