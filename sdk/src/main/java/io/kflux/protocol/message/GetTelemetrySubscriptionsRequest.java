package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.UUID_TYPE;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.UUID;

/**
 * GetTelemetrySubscriptions request (api key 71, KIP-714), flexible; v0 is the only version up to Kafka 4.4.
 * {@code clientInstanceId} is the zero uuid on the first request, the broker then assigns one.
 */
public record GetTelemetrySubscriptionsRequest(UUID clientInstanceId)
        implements ApiRequest<GetTelemetrySubscriptionsResponse> {

    public static final MessageSpec<GetTelemetrySubscriptionsRequest> SPEC = MessageSpec.of(
            ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, 0, 0, 0,
            Schema.of(GetTelemetrySubscriptionsRequest.class,
                    field("clientInstanceId", UUID_TYPE)));

    @Override
    public MessageSpec<GetTelemetrySubscriptionsRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<GetTelemetrySubscriptionsResponse> responseSpec() {
        return GetTelemetrySubscriptionsResponse.SPEC;
    }
}
