package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT8;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/**
 * FindCoordinator request (api key 10). v0-3 carry one {@code key}; v4+ (KIP-699) carry a batch of
 * {@code coordinatorKeys}. Callers fill both (e.g. {@code forGroup}) and the schema writes the one the
 * negotiated version has. {@code keyType}: 0 group, 1 transaction, 2 share (v1+).
 */
public record FindCoordinatorRequest(String key, byte keyType, List<String> coordinatorKeys)
        implements ApiRequest<FindCoordinatorResponse> {

    public static final byte KEY_TYPE_GROUP = 0;
    public static final byte KEY_TYPE_TRANSACTION = 1;

    public static final MessageSpec<FindCoordinatorRequest> SPEC = MessageSpec.of(ApiKey.FIND_COORDINATOR, 0, 6, 3,
            Schema.of(FindCoordinatorRequest.class,
                    field("key", STRING).versions(0, 3).defaultValue(""),
                    field("keyType", INT8).versions(1),
                    field("coordinatorKeys", array(STRING)).versions(4)));

    /** A request for the coordinator of {@code groupId}, valid in every version. */
    public static FindCoordinatorRequest forGroup(String groupId) {
        return new FindCoordinatorRequest(groupId, KEY_TYPE_GROUP, List.of(groupId));
    }

    @Override
    public MessageSpec<FindCoordinatorRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<FindCoordinatorResponse> responseSpec() {
        return FindCoordinatorResponse.SPEC;
    }
}
