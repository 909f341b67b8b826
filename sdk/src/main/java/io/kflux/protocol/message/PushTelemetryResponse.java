package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;

/** PushTelemetry response (KIP-714): the error code drives the client's telemetry state machine. */
public record PushTelemetryResponse(int throttleTimeMs, short errorCode) {

    public static final MessageSpec<PushTelemetryResponse> SPEC = MessageSpec.of(ApiKey.PUSH_TELEMETRY, 0, 0, 0,
            Schema.of(PushTelemetryResponse.class,
                    field("throttleTimeMs", INT32),
                    field("errorCode", INT16)));
}
