package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.nullableArray;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/**
 * ShareGroupHeartbeat request (api key 76, KIP-932), flexible in every version. Version 1 is the first stable
 * one (Kafka 4.1+; v0 was 4.0's early access and no broker of 4.1 on accepts it). The member generates its own
 * member id and keeps it for its lifetime. memberEpoch: 0 join, -1 leave. {@code rackId} and
 * {@code subscribedTopicNames} are null when unchanged since the last heartbeat.
 */
public record ShareGroupHeartbeatRequest(String groupId, String memberId, int memberEpoch, String rackId,
                                         List<String> subscribedTopicNames)
        implements ApiRequest<ShareGroupHeartbeatResponse> {

    public static final int JOIN_EPOCH = 0;
    public static final int LEAVE_EPOCH = -1;

    public static final MessageSpec<ShareGroupHeartbeatRequest> SPEC = MessageSpec.of(
            ApiKey.SHARE_GROUP_HEARTBEAT, 1, 1, 0,
            Schema.of(ShareGroupHeartbeatRequest.class,
                    field("groupId", STRING).defaultValue(""),
                    field("memberId", STRING).defaultValue(""),
                    field("memberEpoch", INT32),
                    field("rackId", STRING),
                    field("subscribedTopicNames", nullableArray(STRING))));

    @Override
    public MessageSpec<ShareGroupHeartbeatRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<ShareGroupHeartbeatResponse> responseSpec() {
        return ShareGroupHeartbeatResponse.SPEC;
    }
}
